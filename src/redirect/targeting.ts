// Which destination a visit goes to (docs/api.md, Redirect rules): the first rule that holds, then SPEC.md's
// iOS and Android destinations, then the split's variant, then the link's url. Rules are compiled once per
// cache fill, each condition by its kind's matcher (contract/conditions/), cheap kinds first; what a visit is
// asked (country, languages, user agent, query) is worked out only when a rule needs it, and once per visit.
import type { Rule, Variant } from "../contract/targeting.js";
import { SPLIT_COOKIE_DAYS } from "../contract/targeting.js";
import { CONDITIONS_BY_COST, type VisitAsk } from "../contract/conditions/index.js";
import { describeUserAgent, referrerHost } from "../clicks/describe.js";
import { platformOf } from "./device.js";

/** What a rule can ask about a visit. */
export interface VisitFacts {
  userAgent: string;
  referer: string;
  /** The query string of the short URL, without "?" ("" when none). */
  query: string;
  acceptLanguage: string;
  /** The Cookie header ("" when none). */
  cookie: string;
  /** Client address and user agent pick a split's variant when no cookie does (hashed, never stored). */
  ip: string;
  at: number;
  /** The visitor's country code (upper case), or null when unknown; asked only by rules with `country`. */
  country: () => string | null;
}

interface CompiledRule {
  /** Each condition's matcher, in CONDITIONS_BY_COST's order: every one must hold. */
  tests: ((visit: VisitAsk) => boolean)[];
  url: string;
  /** What its clicks record ("rule:3"), made once. */
  code: string;
}

export interface Targeting {
  rules: CompiledRule[];
  /** Cumulative weights (the last one 100) and addresses; null when the link has no split. */
  split: { until: number[]; urls: string[]; codes: string[]; cookie: string; setCookies: SetCookies | null } | null;
}

/** Each variant's Set-Cookie value for one path and Secure flag (a link is served on one path): made once. */
interface SetCookies {
  path: string;
  secure: boolean;
  values: string[];
}

/** Where a visit goes and the code its click records (null: the link's url). */
export interface Destination {
  url: string;
  code: string | null;
  /** The Set-Cookie value that keeps this visitor's variant, when it was not set yet. */
  setCookie: string | null;
}

function compileRule(rule: Rule, index: number): CompiledRule {
  const given = rule.if as Record<string, unknown>;
  const tests: CompiledRule["tests"] = [];
  for (const kind of CONDITIONS_BY_COST) {
    const value = given[kind.kind];
    if (value !== undefined) tests.push((kind.compile as (v: unknown) => (visit: VisitAsk) => boolean)(value));
  }
  return { tests, url: rule.url, code: `rule:${index + 1}` };
}

/** A link's rules and split made ready for visits; null when it has neither (the common case costs nothing). */
export function compileTargeting(rules: Rule[], split: Variant[], linkNum: number): Targeting | null {
  if (rules.length === 0 && split.length === 0) return null;
  let sum = 0;
  return {
    rules: rules.map(compileRule),
    split:
      split.length === 0
        ? null
        : {
            until: split.map((v) => (sum += v.weight)),
            urls: split.map((v) => v.url),
            codes: split.map((_, i) => `variant:${i + 1}`),
            cookie: `snip_v${linkNum}`,
            setCookies: null,
          },
  };
}

/** The languages of an Accept-Language header, best first (by q, then as listed), without `*` and q=0. */
export function acceptedLanguages(header: string): string[] {
  const out: { tag: string; q: number; i: number }[] = [];
  header.split(",").forEach((part, i) => {
    const [tag, ...params] = part.trim().split(";");
    const name = (tag ?? "").trim().toLowerCase();
    if (name === "" || name === "*") return;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qp === undefined ? 1 : Number(qp.slice(2));
    if (Number.isFinite(q) && q > 0) out.push({ tag: name, q, i });
  });
  return out.sort((a, b) => b.q - a.q || a.i - b.i).map((x) => x.tag);
}

/**
 * The best language of each Accept-Language value seen lately: browsers send a handful of values, and
 * parsing one (split, sort) costs more than the rest of a visit's 20 rules together. Bounded: emptied when full.
 */
const bestLanguages = new Map<string, string | null>();
const BEST_LANGUAGES_MAX = 1000;

function bestLanguage(header: string): string | null {
  let best = bestLanguages.get(header);
  if (best === undefined) {
    best = acceptedLanguages(header)[0] ?? null;
    if (bestLanguages.size >= BEST_LANGUAGES_MAX) bestLanguages.clear();
    bestLanguages.set(header, best);
  }
  return best;
}

/** One visit's facts as matchers ask them (VisitAsk), each worked out at most once. */
class Asked implements VisitAsk {
  readonly at: number;
  private best: string | null | undefined;
  private os: ReturnType<typeof platformOf> | undefined;
  private ua: ReturnType<typeof describeUserAgent> | undefined;
  private osLower: string | undefined;
  private browserLower: string | undefined;
  private params: URLSearchParams | undefined;
  private refHost: string | undefined;
  private countryCode: string | null | undefined;
  constructor(readonly facts: VisitFacts) {
    this.at = facts.at;
  }

  language(): string | null {
    if (this.best === undefined) this.best = bestLanguage(this.facts.acceptLanguage.slice(0, 500));
    return this.best;
  }
  platform(): ReturnType<typeof platformOf> {
    if (this.os === undefined) this.os = platformOf(this.facts.userAgent);
    return this.os;
  }
  private agent(): ReturnType<typeof describeUserAgent> {
    return (this.ua ??= describeUserAgent(this.facts.userAgent));
  }
  device(): string {
    return this.agent().device;
  }
  /** The agent's OS and browser in lower case, as rules hold them. */
  osName(): string {
    return (this.osLower ??= this.agent().os.toLowerCase());
  }
  browserName(): string {
    return (this.browserLower ??= this.agent().browser.toLowerCase());
  }
  param(name: string): string | null {
    this.params ??= new URLSearchParams(this.facts.query);
    return this.params.get(name);
  }
  referrer(): string {
    this.refHost ??= referrerHost(this.facts.referer).replace(/^www\./, "");
    return this.refHost;
  }
  country(): string | null {
    if (this.countryCode === undefined) this.countryCode = this.facts.country();
    return this.countryCode;
  }
}

/** Every condition of the rule holds (an index loop: asked on every visit). */
function holds(r: CompiledRule, a: Asked): boolean {
  const tests = r.tests;
  for (let i = 0; i < tests.length; i++) if (!(tests[i] as (visit: VisitAsk) => boolean)(a)) return false;
  return true;
}

/** The first rule that holds (its index), or -1. */
export function matchRule(t: Targeting, v: VisitFacts): number {
  if (t.rules.length === 0) return -1;
  const a = new Asked(v);
  for (let i = 0; i < t.rules.length; i++) if (holds(t.rules[i] as CompiledRule, a)) return i;
  return -1;
}

/** FNV-1a over a visitor's link, address and agent: stable for a visitor, spread evenly, never stored. */
export function visitorBucket(linkNum: number, ip: string, userAgent: string): number {
  // The address, "\n" and the agent, hashed in place: no joined string to build and flatten per visit.
  let h = fnv(0x811c9dc5 ^ linkNum, ip);
  h = Math.imul(h ^ 10, 0x01000193);
  return (fnv(h, userAgent) >>> 0) % 100;
}

function fnv(start: number, s: string): number {
  let h = start;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/** The variant (from 0) a cookie kept, or -1. */
function keptVariant(cookie: string, name: string, count: number): number {
  if (cookie === "") return -1;
  const at = cookie.indexOf(`${name}=`);
  if (at === -1 || (at > 0 && cookie[at - 1] !== " " && cookie[at - 1] !== ";")) return -1;
  const n = cookie.charCodeAt(at + name.length + 1) - 48;
  return n >= 1 && n <= count ? n - 1 : -1;
}

export const SPLIT_COOKIE_MAX_AGE = SPLIT_COOKIE_DAYS * 86_400;

/** The split's variant (from 0) for this visitor, and whether their cookie must be set. */
export function pickVariant(
  split: NonNullable<Targeting["split"]>,
  linkNum: number,
  v: Pick<VisitFacts, "cookie" | "ip" | "userAgent">,
): { index: number; kept: boolean } {
  const kept = keptVariant(v.cookie, split.cookie, split.urls.length);
  if (kept !== -1) return { index: kept, kept: true };
  const bucket = visitorBucket(linkNum, v.ip, v.userAgent);
  let index = 0;
  while (bucket >= (split.until[index] as number)) index++;
  return { index, kept: false };
}

/**
 * Where this visit goes, for a link with rules or a split (`t`); `device` is SPEC.md's iOS/Android choice,
 * null when neither applies. `path` is the short link's path (the variant cookie is kept to it).
 */
export function targetOf(
  t: Targeting,
  linkNum: number,
  v: VisitFacts,
  device: { url: string; code: string } | null,
  path: string,
  secure: boolean,
): Destination | null {
  const rule = matchRule(t, v);
  if (rule !== -1) {
    const r = t.rules[rule] as CompiledRule;
    return { url: r.url, code: r.code, setCookie: null };
  }
  if (device !== null) return { url: device.url, code: device.code, setCookie: null };
  const split = t.split;
  if (split === null) return null;
  const { index, kept } = pickVariant(split, linkNum, v);
  return { url: split.urls[index] as string, code: split.codes[index] as string, setCookie: kept ? null : setCookieOf(split, index, path, secure) };
}

function setCookieOf(split: NonNullable<Targeting["split"]>, index: number, path: string, secure: boolean): string {
  let made = split.setCookies;
  if (made === null || made.path !== path || made.secure !== secure) {
    const values = split.urls.map(
      (_, i) => `${split.cookie}=${i + 1}; Max-Age=${SPLIT_COOKIE_MAX_AGE}; Path=${path}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`,
    );
    made = split.setCookies = { path, secure, values };
  }
  return made.values[index] as string;
}
