// Tracked clicks (docs/conversions.md, The click id): a visit of a link that tracks conversions gets a click id
// of 128 random bits, sent to the destination in the account's query parameter and stored here with the link, the
// destination chosen and the visit's country, device and referrer, so that a lead can name it. The redirect
// never waits for the write: ids are made on the spot and the rows written in batches, a few per second.
import { randomBytes } from "node:crypto";
import type { Db } from "../storage/db.js";
import type { TrackedClickRow } from "../storage/conversion-tables.js";
import { describeUserAgent, referrerHost } from "../clicks/describe.js";

/** A click id: 16 bytes from the CSPRNG, base64url (22 characters). */
export function newClickId(): string {
  return randomBytes(16).toString("base64url");
}

/** A tracked visit as the redirect knows it. */
export interface TrackedVisit {
  id: string;
  ownerId: string;
  linkId: string;
  destination: string | null;
  /** Resolved country code, or null. */
  country: string | null;
  userAgent: string;
  referer: string;
  at: number;
}

/** The stored row of a visit: device as the click statistics name it ("bot" for a bot), the referrer's host. */
export function trackedRow(v: TrackedVisit): TrackedClickRow {
  const ua = describeUserAgent(v.userAgent);
  return {
    id: v.id,
    owner_id: v.ownerId,
    link_id: v.linkId,
    destination: v.destination,
    country: v.country,
    device: ua.isBot ? "bot" : ua.device,
    referrer_host: referrerHost(v.referer),
    at: v.at,
  };
}

/** Writes rows at once (tests, imports); ignores a row whose link is gone. */
export async function storeTrackedClicks(db: Db, rows: TrackedClickRow[]): Promise<void> {
  if (rows.length === 0) return;
  const links = new Set(
    (
      await db
        .selectFrom("links")
        .select("id")
        .where("id", "in", [...new Set(rows.map((r) => r.link_id))])
        .execute()
    ).map((l) => l.id),
  );
  const kept = rows.filter((r) => links.has(r.link_id));
  for (let i = 0; i < kept.length; i += 500) {
    await db
      .insertInto("tracked_clicks")
      .values(kept.slice(i, i + 500))
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
  }
}

/** How often buffered tracked clicks are written: a lead can name a click this long after its redirect. */
export const TRACKED_FLUSH_MS = 100;

/** Buffers the redirect's tracked visits and writes them every TRACKED_FLUSH_MS, and at close. */
export class TrackedClickWriter {
  private pending: TrackedVisit[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly failed: (err: unknown, lost: number) => void,
  ) {}

  record(v: TrackedVisit): void {
    this.pending.push(v);
    this.timer ??= setTimeout(() => void this.flush(), TRACKED_FLUSH_MS);
  }

  /** Writes what is buffered; resolves once every visit recorded before the call is stored (or reported lost). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    this.writing = this.writing.then(async () => {
      if (batch.length === 0) return;
      try {
        await storeTrackedClicks(this.db, batch.map(trackedRow));
      } catch (err) {
        this.failed(err, batch.length);
      }
    });
    return this.writing;
  }
}

/** `url` with `name=value` in its query (the query it had kept, a value of that name replaced), before any #fragment. */
export function withQueryParam(url: string, name: string, value: string): string {
  const hash = url.indexOf("#");
  const base = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? "" : url.slice(hash);
  const q = base.indexOf("?");
  const pair = `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
  if (q < 0) return `${base}?${pair}${fragment}`;
  const kept = base
    .slice(q + 1)
    .split("&")
    .filter((p) => p !== "" && decodeURIComponentSafe(p.split("=")[0]!) !== name);
  return `${base.slice(0, q)}?${[...kept, pair].join("&")}${fragment}`;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}
