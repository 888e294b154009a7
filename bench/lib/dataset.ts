// The benchmark's links, generated deterministically so the baseline server and the seeded database
// hold the same aliases, and the request path lists (hot, Zipf, click-limited mixes, password form).

import type { Rule, Variant } from "../../src/contract/targeting.js";
import { androidFile, appleFile, type HostApps } from "../../src/deeplinks/association-files.js";
import { ANDROID_PATH, APPLE_PATH } from "../../src/deeplinks/app-associations.js";
import { appStoreUrl, playStoreUrl } from "../../src/deeplinks/link-apps.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Bumped whenever the seeded rows change shape, so cached SQLite seeds are rebuilt. */
export const DATASET_VERSION = 6;

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

export type ScenarioName =
  "hot" | "zipf" | "limited" | "limited-403" | "password" | "domain-hot" | "detailed-hot" | "rules" | "split" | "tracked-hot" | "app-hot" | "association";
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
  "app-hot",
  "association",
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

/**
 * Plain link 5 opens an app (issue 57, docs/deep-links.md): an App Store id, an Android package, an in-app path
 * and open_outside, its owner the bench account (a store visit's click id needs an owner).
 */
export const APP_INDEX = 5;
/** Plain link 6: the same owner's plain link, loaded with the same user agents in app-hot's rounds (its like). */
export const APP_TWIN_INDEX = 6;
export const APP_LINK = { app_ios_store_id: "389801252", app_android_package: "com.example.shop", app_path: "/product/42?color=red" } as const;

/**
 * app-hot's visitors, one branch of the app turn each (src/redirect/app-turn.ts): a desktop (the destination), iPhone
 * Safari (the App Store), Android Chrome (the Play Store with the click id in its referrer) and Instagram's web view on
 * Android (the intent address). The first is the load's usual browser (the probe's). Instagram on iOS (the in-app page)
 * is the Fastify route's and not a redirect: left out (test/api/app-links-redirect.test.ts covers it).
 */
export const APP_AGENTS: ReadonlyArray<readonly [name: string, userAgent: string]> = [
  ["desktop", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"],
  [
    "iPhone Safari",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1",
  ],
  ["Android Chrome", "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36"],
  [
    "Instagram on Android",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240105.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.193 Mobile Safari/537.36 Instagram 309.0.0.40.113 Android (34/14; 420dpi; 1080x2205; Google/google; Pixel 8; shiba; shiba; en_US; 541635863)",
  ],
];

/** The main host's apps (the operator's), which the association scenario's two files describe. */
export const HOST_APPS: HostApps = {
  ios: [{ app_id: "ABCDE12345.com.example.shop", paths: [], webcredentials: false }],
  android: [
    {
      package: APP_LINK.app_android_package,
      sha256_cert_fingerprints: ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"],
    },
  ],
};

/** A store visit's click id (conversions/tracked-clicks.ts): 24 base64url characters. */
const CLICK_ID = "[A-Za-z0-9_-]{24}";
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * app-hot's tally key of a Location: the agent and what the Location is ("App Store", "Play Store + click id", ...),
 * so that click ids do not make every answer a key of its own and a wrong Location shows as itself.
 */
export function appLocationKey(location: string, agent: number): string {
  const name = APP_AGENTS[agent]?.[0] ?? `agent ${agent}`;
  return `${name}: ${appLocationKind(location)}`;
}

const APP_URL = plainUrl(APP_INDEX);
const PLAY_RE = new RegExp(`^${escapeRe(playStoreUrl(APP_LINK.app_android_package, "CLICKID", "utm_source=snip")).replace("CLICKID", CLICK_ID)}$`);
const INTENT_RE = new RegExp(
  `^${escapeRe(`intent://${APP_URL.slice("https://".length)}#Intent;scheme=https;package=${APP_LINK.app_android_package};S.browser_fallback_url=`)}(.*);end$`,
);

const KIND = {
  destination: "destination",
  twin: "the plain link's destination",
  store: "App Store",
  play: "Play Store, click id in the referrer",
  intent: "intent, Play Store fallback with click id",
} as const;

function appLocationKind(location: string): string {
  if (location === APP_URL) return KIND.destination;
  if (location === plainUrl(APP_TWIN_INDEX)) return KIND.twin;
  if (location === appStoreUrl(APP_LINK.app_ios_store_id)) return KIND.store;
  if (PLAY_RE.test(location)) return KIND.play;
  const intent = INTENT_RE.exec(location);
  if (intent !== null && PLAY_RE.test(decodeURIComponent(intent[1] as string))) return KIND.intent;
  return `unexpected ${location}`;
}

/** The tally keys each target must give in app-hot, every one and nothing else: snip's app link, the bare server, the plain twin. */
export function appExpectedKeys(answer: "app" | "bare" | "twin"): string[] {
  const kinds =
    answer === "app" ? [KIND.destination, KIND.store, KIND.play, KIND.intent] : APP_AGENTS.map(() => (answer === "bare" ? KIND.destination : KIND.twin));
  return APP_AGENTS.map(([name], i) => `${name}: ${kinds[i]}`).sort();
}

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
  /** What the tally counts a 302's Location as (its agent's index beside it), instead of the Location itself. */
  locationKey?: (location: string, agent: number) => string;
  /**
   * A plain link of the same owner, which each snip target also loads in every round with the same user agents:
   * the like-for-like CPU per answer (printed as its own row, the ratio in the goals).
   */
  twin?: { paths: string[]; title: string };
  /** Exact bodies of 200 answers by path (every target probed at each): the association files. */
  bodies?: Record<string, string>;
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
    case "app-hot":
      // The baseline answers with the link's url whatever the agent: what the app turn (store, intent, click id) costs snip.
      return {
        name,
        title: `one hot link with app destinations and open_outside, ${APP_AGENTS.length} user agents (${APP_AGENTS.map(([n]) => n).join(", ")})`,
        paths: ["/" + plainAlias(APP_INDEX)],
        expected: [302],
        destinations: {
          linkId: benchLinkId(plainAlias(APP_INDEX)),
          codes: { [`${APP_AGENTS[1]?.[0]}: ${KIND.store}`]: "ios", [`${APP_AGENTS[2]?.[0]}: ${KIND.play}`]: "android" },
        },
        userAgents: APP_AGENTS.map(([, ua]) => ua),
        locationKey: appLocationKey,
        twin: { paths: ["/" + plainAlias(APP_TWIN_INDEX)], title: "the same owner's plain link, same agents" },
      };
    case "association":
      // The baseline answers both paths with the same bytes (bench/baseline-server.ts).
      return {
        name,
        title: "the main host's apple-app-site-association and assetlinks.json, alternately",
        paths: [APPLE_PATH, ANDROID_PATH],
        expected: [200],
        bodies: associationBodies(),
      };
  }
}

/** The two files as snip serves them for HOST_APPS (src/deeplinks/association-files.ts), by path. */
export function associationBodies(): Record<string, string> {
  return { [APPLE_PATH]: JSON.stringify(appleFile(HOST_APPS)), [ANDROID_PATH]: JSON.stringify(androidFile(HOST_APPS)) };
}
