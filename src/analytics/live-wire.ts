// What instances on one PostgreSQL tell each other about the live feed, as NOTIFY payloads: which owners
// someone watches here (announcements), and batches of described clicks of watched owners. A payload
// stays under PostgreSQL's 8000-byte limit: a batch is split into as many notifications as it needs.
import type { LiveClick, LiveConversion } from "../contract/live.js";

export const WATCH_CHANNEL = "live_watch";
export const CLICKS_CHANNEL = "live_clicks";
export const CONVERSIONS_CHANNEL = "live_conversions";
/** Bytes per payload at most (PostgreSQL refuses 8000 and more), with room to spare. */
export const PAYLOAD_LIMIT = 7_800;

/** A click of an owner as it travels: the owner's id, then the event. */
export interface OwnedClick {
  owner: string;
  click: LiveClick;
}

export type WatchMessage = { instance: string; owners: string[] } | { instance: string; ask: true };

export interface ClicksMessage {
  instance: string;
  clicks: OwnedClick[];
  /** Per owner, clicks the sender left out (its own rate cap). */
  skipped: Array<[string, number]>;
}

/** Announcements of `owners`, as many payloads as the limit needs. */
export function watchPayloads(instance: string, owners: string[]): string[] {
  return packed(
    owners.map((o) => JSON.stringify(o)),
    (items) => `{"i":${JSON.stringify(instance)},"o":[${items.join(",")}]}`,
  );
}

export function askPayload(instance: string): string {
  return JSON.stringify({ i: instance, ask: 1 });
}

/** A batch as payloads: compact tuples; the skipped counts ride in the first. */
export function clicksPayloads(instance: string, clicks: OwnedClick[], skipped: Array<[string, number]>): string[] {
  const tuples = clicks.map(({ owner, click: c }) =>
    JSON.stringify([
      owner,
      Date.parse(c.at),
      c.link_id,
      c.alias,
      c.domain,
      c.country,
      c.device,
      c.browser,
      c.os,
      c.referrer,
      c.source === "qr" ? 1 : 0,
      c.destination,
      c.bot ? 1 : 0,
    ]),
  );
  const head = `{"i":${JSON.stringify(instance)},"s":${JSON.stringify(skipped)},"c":[`;
  const rest = `{"i":${JSON.stringify(instance)},"s":[],"c":[`;
  let first = true;
  return packed(
    tuples,
    (items) => {
      const text = `${first ? head : rest}${items.join(",")}]}`;
      first = false;
      return text;
    },
    head.length,
  );
}

/**
 * Items joined into payloads of at most PAYLOAD_LIMIT bytes each (`wrap` adds the envelope, `reserve`
 * bytes beyond the usual envelope are kept free in the first). No item alone comes near the limit: ids,
 * aliases, host names and browser names are bounded far below it.
 */
function packed(items: string[], wrap: (items: string[]) => string, reserve = 0): string[] {
  const out: string[] = [];
  let chunk: string[] = [];
  let bytes = 200 + reserve;
  for (const item of items) {
    const size = Buffer.byteLength(item) + 1;
    if (chunk.length > 0 && bytes + size > PAYLOAD_LIMIT) {
      out.push(wrap(chunk));
      chunk = [];
      bytes = 200;
    }
    chunk.push(item);
    bytes += size;
  }
  if (chunk.length > 0 || out.length === 0) out.push(wrap(chunk));
  return out;
}

export function parseWatch(payload: string): WatchMessage | null {
  const v = parse(payload);
  if (!v || typeof v.i !== "string") return null;
  if (v.ask === 1) return { instance: v.i, ask: true };
  if (!Array.isArray(v.o) || !v.o.every((o: unknown) => typeof o === "string")) return null;
  return { instance: v.i, owners: v.o as string[] };
}

export function parseClicks(payload: string): ClicksMessage | null {
  const v = parse(payload);
  if (!v || typeof v.i !== "string" || !Array.isArray(v.c) || !Array.isArray(v.s)) return null;
  const clicks: OwnedClick[] = [];
  for (const t of v.c as unknown[]) {
    const c = clickOf(t);
    if (c) clicks.push(c);
  }
  const skipped = (v.s as unknown[]).filter(
    (s): s is [string, number] => Array.isArray(s) && typeof s[0] === "string" && Number.isInteger(s[1]) && (s[1] as number) > 0,
  );
  return { instance: v.i, clicks, skipped };
}

/** The tuple's places that hold text (clicksPayloads' order). */
const TEXT_AT = [0, 2, 3, 4, 5, 6, 7, 8, 9, 11];

function clickOf(t: unknown): OwnedClick | null {
  if (!Array.isArray(t) || t.length !== 13 || typeof t[1] !== "number" || Math.abs(t[1]) > 8.64e15 || !TEXT_AT.every((i) => typeof t[i] === "string"))
    return null;
  const [owner, at, linkId, alias, domain, country, device, browser, os, referrer, qr, destination, bot] = t as [
    string,
    number,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    number,
    string,
    number,
  ];
  return {
    owner,
    click: {
      at: new Date(at).toISOString(),
      link_id: linkId,
      alias,
      domain,
      country,
      device,
      browser,
      os,
      referrer,
      source: qr === 1 ? "qr" : "link",
      destination,
      bot: bot === 1,
    },
  };
}

function parse(payload: string): Record<string, any> | null {
  try {
    const v: unknown = JSON.parse(payload);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, any>) : null;
  } catch {
    return null;
  }
}

/** A lead or sale of a watched owner for the other instances (a few hundred bytes: its texts are bounded). */
export function conversionPayload(instance: string, owner: string, c: LiveConversion): string {
  return JSON.stringify({ i: instance, o: owner, v: c });
}

const CONVERSION_TEXT = ["at", "link_id", "alias", "domain", "event_name"] as const;

export function parseConversion(payload: string): { instance: string; owner: string; conversion: LiveConversion } | null {
  const m = parse(payload);
  const v = m?.v as Record<string, unknown> | undefined;
  if (!m || typeof m.i !== "string" || typeof m.o !== "string" || !v || typeof v !== "object") return null;
  if ((v.type !== "lead" && v.type !== "sale") || !CONVERSION_TEXT.every((k) => typeof v[k] === "string")) return null;
  const nullable = (x: unknown, t: "string" | "number") => x === null || typeof x === t;
  if (!nullable(v.destination, "string") || !nullable(v.amount, "number") || !nullable(v.currency, "string")) return null;
  const conversion = {
    type: v.type,
    at: v.at,
    link_id: v.link_id,
    alias: v.alias,
    domain: v.domain,
    event_name: v.event_name,
    destination: v.destination,
    amount: v.amount,
    currency: v.currency,
  } as LiveConversion;
  return { instance: m.i, owner: m.o, conversion };
}
