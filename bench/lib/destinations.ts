// Per-destination accounting of the rules and split scenarios: the Locations of the 302s the load received,
// mapped to the code each click must record (clicks.destination), against the clicks stored per code.
import type { Scenario } from "./dataset.js";

export interface DestinationCheck {
  ok: boolean;
  text: string;
}

/** Locations received → codes ("default" for any Location that is not one of the scenario's destinations). */
export function expectedCodes(s: Scenario, locations: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [url, n] of Object.entries(locations)) {
    const code = s.destinations?.codes[url] ?? "default";
    out[code] = (out[code] ?? 0) + n;
  }
  return out;
}

const fmt = (m: Record<string, number>) =>
  Object.keys(m).length === 0
    ? "none"
    : Object.entries(m)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => `${k} ${Math.round(v).toLocaleString("en")}`)
        .join(", ");

/**
 * Equal per code; with `slack` (answers the load generator may not have counted), each stored count may
 * exceed the received one, by at most `slack` in all.
 */
export function checkDestinations(
  s: Scenario,
  locations: Record<string, number>,
  before: Record<string, number>,
  after: Record<string, number>,
  slack: number,
): DestinationCheck {
  const want = expectedCodes(s, locations);
  const got: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const n = v - (before[k] ?? 0);
    if (n !== 0) got[k] = n;
  }
  const codes = new Set([...Object.keys(want), ...Object.keys(got)]);
  let exact = true;
  let within = true;
  let extra = 0;
  for (const c of codes) {
    const w = want[c] ?? 0;
    const g = got[c] ?? 0;
    if (w !== g) exact = false;
    if (g < w) within = false;
    extra += g - w;
  }
  const ok = exact || (slack > 0 && within && extra <= slack);
  const verdict = exact ? "MATCH" : ok ? `MATCH (±${slack} cut off)` : "MISMATCH";
  return { ok, text: `${verdict} (received ${fmt(want)}; stored ${fmt(got)})` };
}
