// The benchmark's links, generated deterministically so the baseline server and the seeded database
// hold the same aliases, and the request path lists (hot, Zipf, click-limited mixes, password form).

import type { Rule, Variant } from "../../src/contract/targeting.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Bumped whenever the seeded rows change shape, so cached SQLite seeds are rebuilt. */
export const DATASET_VERSION = 5;

/** A bijective 32-bit mix (lowbias32): distinct indexes give distinct aliases, spread over the index. */
function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

function base62(n: number, width: number): string {
  let s = "";
  do {
    s = BASE62[n % 62] + s;
    n = Math.floor(n / 62);
  } while (n > 0);
  return s.padStart(width, "0");
}

/** Plain links 0..count-1: 7-character aliases like real random ones (index 0 is the hot link). */
export function plainAlias(i: number): string {
  return "b" + base62(mix32(i), 6);
}
export function plainUrl(i: number): string {
  return `https://example.com/articles/${i}?utm_source=snip`;
}

/** Links with a huge click limit: never exhausted, but every click takes the atomic counted path. */
export const BIG_LIMITED = 100;
export const BIG_LIMIT = 1_000_000_000;
export function bigLimitedAlias(i: number): string {
  return "L" + base62(mix32(i + 0x10000000), 6);
}

/** Links with small limits (100, 300, 900, ...): the first run out during warm-up, answering 403. */
export const SMALL_LIMITED = 10;
export function smallLimit(i: number): number {
  return 100 * 3 ** i;
}
export function smallLimitedAlias(i: number): string {
  return "S" + base62(mix32(i + 0x20000000), 6);
}

/** A verified custom domain holding one link with the hot link's alias (another link, its own destination). */
export const BENCH_DOMAIN = "go.bench.example";
export const DOMAIN_URL = "https://example.com/on-a-custom-domain?utm_source=snip";

export const PASSWORD_ALIAS = "pwProtected1";
export const PASSWORD = "bench-password";

/** links.id of a seeded link. */
export function benchLinkId(alias: string): string {
  return "bench_" + alias;
}

export interface LinkSpec {
  alias: string;
  url: string;
  maxClicks: number | null;
  password: boolean;
}

/** Every link of a dataset of `count` plain links, in a fixed order. */
export function* allLinks(count: number): Generator<LinkSpec> {
  for (let i = 0; i < count; i++) yield { alias: plainAlias(i), url: plainUrl(i), maxClicks: null, password: false };
  for (let i = 0; i < BIG_LIMITED; i++) yield { alias: bigLimitedAlias(i), url: `https://example.com/limited/${i}`, maxClicks: BIG_LIMIT, password: false };
  for (let i = 0; i < SMALL_LIMITED; i++)
    yield { alias: smallLimitedAlias(i), url: `https://example.com/small/${i}`, maxClicks: smallLimit(i), password: false };
  yield { alias: PASSWORD_ALIAS, url: "https://example.com/secret", maxClicks: null, password: true };
}

/** Deterministic PRNG (mulberry32), so every run and every target gets the same sequence. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `draws` link indexes from Zipf(s) over 0..count-1 (index 0 the most popular), by inverse CDF. */
export function zipfIndexes(count: number, draws: number, s = 1.1, seed = 42): Uint32Array {
  const cdf = new Float64Array(count);
  let sum = 0;
  for (let k = 0; k < count; k++) {
    sum += 1 / (k + 1) ** s;
    cdf[k] = sum;
  }
  const rnd = prng(seed);
  const out = new Uint32Array(draws);
  for (let d = 0; d < draws; d++) {
    const u = rnd() * sum;
    let lo = 0;
    let hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] as number) < u) lo = mid + 1;
      else hi = mid;
    }
    out[d] = lo;
  }
  return out;
}

export type ScenarioName = "hot" | "zipf" | "limited" | "limited-403" | "password" | "domain-hot" | "detailed-hot" | "rules" | "split" | "tracked-hot";
export const SCENARIOS: readonly ScenarioName[] = [
  "hot",
  "zipf",
  "limited",
  "limited-403",
  "password",
  "domain-hot",
  "detailed-hot",
  "rules",
  "split",
  "tracked-hot",
];

/** Plain link 1 carries everything a link can describe itself with: tags, title, note, a fallback URL and a preview card. */
export const DETAILED_INDEX = 1;

/** Plain link 2 has 20 redirect rules; only the last holds for the load's requests (English first in Accept-Language). */
export const RULES_INDEX = 2;
export const RULE_URL = "https://example.com/en/welcome?utm_source=snip";
/** What rules 1 to 19 ask, each something the load's requests (Chrome on Windows, en-US, no referrer, no query, no country) are not. */
const MISSES: Rule["if"][] = [
  { country: ["FR", "BE"] },
  { country: ["DE", "AT", "CH"] },
  { language: ["fr"] },
  { language: ["de"] },
  { query: { utm_campaign: "spring" } },
  { referrer_host: ["facebook.com"] },
  { device: ["bot"] },
  { device: ["ios", "android"] },
  { os: ["iOS"] },
  { os: ["Android"] },
  { browser: ["Firefox"] },
  { browser: ["Safari"] },
  { country: ["US"], language: ["es"] },
  { before: "2020-01-01T00:00:00Z" },
  { after: "2099-01-01T00:00:00Z" },
  { query: { ref: "*" } },
  { referrer_host: ["twitter.com", "t.co", "x.com"] },
  { language: ["es", "it", "pt"] },
  { device: ["tablet", "mobile"] },
];
export const RULES: Rule[] = [...MISSES.map((c, i) => ({ if: c, url: `https://example.com/rule/${i + 1}` })), { if: { language: ["en"] }, url: RULE_URL }];

/** Plain link 3 splits its visitors 50/50 between two pages. */
export const SPLIT_INDEX = 3;
export const SPLIT: Variant[] = [
  { url: "https://example.com/landing/a?utm_source=snip", weight: 50 },
  { url: "https://example.com/landing/b?utm_source=snip", weight: 50 },
];
/**
 * Chrome user agents differing in the build number: a split picks a visitor's variant from a hash of address
 * and user agent, and every request comes from 127.0.0.1 without the variant's cookie.
 */
export const SPLIT_USER_AGENTS = Array.from(
  { length: 256 },
  (_, i) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.${6778 + i}.86 Safari/537.36`,
);

/** Plain link 4 tracks conversions (issue 56): every visit gets a click id in its Location and a tracked-click row. */
export const TRACKED_INDEX = 4;

export interface Scenario {
  name: ScenarioName;
  title: string;
  /** Request paths, cycled in order by every load generator. */
  paths: string[];
  /** Statuses that are correct answers here (anything else counts as an error). */
  expected: number[];
  /** Host header of every request (a custom domain), instead of the URL's. */
  host?: string;
  /**
   * snip's destinations (Location → the code clicks.destination records; any other Location is the link's url,
   * NULL): the load tallies every 302's Location, compared with the clicks stored per destination afterwards.
   */
  destinations?: { linkId: string; codes: Record<string, string> };
  /** User agents the requests cycle through (each request of a path list gets the next one). */
  userAgents?: string[];
}

/** The request paths of every scenario, for a dataset of `count` plain links. */
export function buildScenario(name: ScenarioName, count: number, pathCount = 100_000): Scenario {
  const zipf = () => Array.from(zipfIndexes(count, pathCount), (i) => "/" + plainAlias(i));
  switch (name) {
    case "hot":
      return { name, title: "one hot link", paths: ["/" + plainAlias(0)], expected: [302] };
    case "zipf":
      return { name, title: `${count.toLocaleString("en")} links, Zipf(1.1) access`, paths: zipf(), expected: [302] };
    case "limited": {
      const rnd = prng(7);
      const paths = zipf().map((p, k) => (k % 20 === 19 ? "/" + bigLimitedAlias(Math.floor(rnd() * BIG_LIMITED)) : p));
      return { name, title: `Zipf mix, 5% to click-limited links (limit ${BIG_LIMIT.toExponential(0)})`, paths, expected: [302] };
    }
    case "limited-403": {
      const rnd = prng(11);
      const paths = zipf().map((p, k) => (k % 20 === 19 ? "/" + smallLimitedAlias(Math.floor(rnd() * SMALL_LIMITED)) : p));
      return { name, title: "Zipf mix, 5% to links with small limits (403 once used up)", paths, expected: [302, 403] };
    }
    case "domain-hot":
      // The baseline answers by path alone, so it serves this exactly like "hot": the ratio compares like with like.
      return { name, title: `one hot link on a custom domain (Host: ${BENCH_DOMAIN})`, paths: ["/" + plainAlias(0)], expected: [302], host: BENCH_DOMAIN };
    case "password":
      return { name, title: "password-protected link: the form page", paths: ["/" + PASSWORD_ALIAS], expected: [200] };
    case "detailed-hot":
      // A plain link to the baseline: what tags, note, fallback and preview (the crawler check) cost snip.
      return { name, title: "one hot link with tags, note, fallback URL and preview card", paths: ["/" + plainAlias(DETAILED_INDEX)], expected: [302] };
    case "rules":
      // The baseline answers with the plain link's url: what evaluating 20 rules costs snip.
      return {
        name,
        title: "one hot link with 20 redirect rules, the last one holding",
        paths: ["/" + plainAlias(RULES_INDEX)],
        expected: [302],
        destinations: { linkId: benchLinkId(plainAlias(RULES_INDEX)), codes: { [RULE_URL]: `rule:${RULES.length}` } },
      };
    case "split":
      return {
        name,
        title: `one hot link with a 50/50 split, ${SPLIT_USER_AGENTS.length} user agents, no cookie`,
        paths: ["/" + plainAlias(SPLIT_INDEX)],
        expected: [302],
        destinations: { linkId: benchLinkId(plainAlias(SPLIT_INDEX)), codes: Object.fromEntries(SPLIT.map((v, i) => [v.url, `variant:${i + 1}`])) },
        userAgents: SPLIT_USER_AGENTS,
      };
    case "tracked-hot":
      // The baseline answers with the plain link's url: what the click id (a random id, the query rewritten, the
      // tracked-click row) costs snip, compared with "hot" in the same run.
      return { name, title: "one hot link tracking conversions (snip_id added)", paths: ["/" + plainAlias(TRACKED_INDEX)], expected: [302] };
  }
}
