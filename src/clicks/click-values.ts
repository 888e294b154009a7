// A click's stored values (what groups are made of): how a batch's numbers and strings are described
// into them, each distinct string once, and how two are compared. Terms: README.md.
import type { Selectable } from "kysely";
import type { ClicksTable } from "../storage/schema.js";
import { type ClickDimensions, type CountryResolver, type Place, describeUserAgent, referrerHost, referrerUrl } from "./describe.js";

/** The values of one click that the roll-ups are grouped by. */
export type Values = Pick<
  Selectable<ClicksTable>,
  "country" | "device" | "os" | "browser" | "referrer" | "is_bot" | "destination" | "qr" | "region" | "city" | "referrer_url" | "utm"
>;

/** Whether two clicks (or groups) have the same values. */
export function sameValues(a: Values, b: Values): boolean {
  return (
    a.country === b.country &&
    a.device === b.device &&
    a.os === b.os &&
    a.browser === b.browser &&
    a.referrer === b.referrer &&
    a.is_bot === b.is_bot &&
    a.destination === b.destination &&
    a.qr === b.qr &&
    a.referrer_url === b.referrer_url &&
    a.city === b.city &&
    a.region === b.region &&
    a.utm === b.utm
  );
}

/** One number for a click's (country header, address) pair: a batch holds far fewer than 2^20 strings. */
export function placeOf(header: number, ip: number): number {
  return (header + 1) * 1_048_576 + ip;
}

/** Describes a batch's (user agent, referrer, place, destination, QR flag, UTM values) as stored values, each distinct string once. */
export function describer(
  s: string[],
  countries: CountryResolver,
): (ua: number, ref: number, place: number, destination: number, qr: number, utm: number) => Values {
  const agents = new Map<number, ClickDimensions>();
  const referrers = new Map<number, { host: string; url: string | null }>();
  const places = new Map<number, Place>();
  return (ua, ref, place, destination, qr, utm) => {
    let d = agents.get(ua);
    if (d === undefined) agents.set(ua, (d = describeUserAgent(s[ua] as string)));
    let referrer = referrers.get(ref);
    if (referrer === undefined) referrers.set(ref, (referrer = { host: referrerHost(s[ref] as string), url: referrerUrl(s[ref] as string) }));
    let where = places.get(place);
    if (where === undefined) {
      const header = Math.floor(place / 1_048_576) - 1;
      where = countries.place(header < 0 ? null : (s[header] as string), s[place % 1_048_576] as string);
      places.set(place, where);
    }
    return {
      country: where.country,
      device: d.device,
      os: d.os,
      browser: d.browser,
      referrer: referrer.host,
      is_bot: d.isBot ? 1 : 0,
      destination: destination === -1 ? null : (s[destination] as string),
      qr,
      region: where.region,
      city: where.city,
      referrer_url: referrer.url,
      utm: utm === -1 ? null : (s[utm] as string),
    };
  };
}
