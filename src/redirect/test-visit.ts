// "Test a visit" (docs/api.md, GET /api/links/{id}/resolve): which destination a visitor with the given
// country, language, user agent, query, referrer and time would get, and why; the redirect's own matcher
// (targeting.ts) answers, so the test and real visits cannot disagree. Password, expiry and click limit
// come first on a real visit and are not part of this answer.
import type { LinkRow } from "../storage/schema.js";
import type { ResolveParams, ResolveReply, Rule } from "../contract/targeting.js";
import { countryCode, instant, rulesOf, splitOf } from "../links/link-targeting.js";
import { compileTargeting, matchRule, pickVariant } from "./targeting.js";
import { deviceDestination } from "./device.js";
import { conditionWords } from "../contract/conditions/index.js";

const DEVICE_NAMES = { ios: "iOS", android: "Android" } as const;

/** The conditions of a rule in words, as the registry writes them: "country FR or BE, language fr". */
export function ruleInWords(rule: Rule): string {
  return conditionWords(rule.if, (iso) => iso);
}

const given = (raw: string | undefined) => (raw === undefined || raw.trim() === "" ? null : raw.trim());

/** Where a visitor described by `p` would go on `link`; `countrySource` is how this server learns countries. */
export function testVisit(link: LinkRow, p: ResolveParams, now: number, countrySource: ResolveReply["country_source"]): Omit<ResolveReply, "status"> {
  const rules = rulesOf(link.rules);
  const split = splitOf(link.split);
  // As on a real visit: without a country source, rules with `country` never hold.
  const asked = given(p.country);
  const askedCountry = asked === null ? null : countryCode(asked, "country");
  const country = countrySource === null ? null : askedCountry;
  const facts = {
    userAgent: (p.ua ?? "").slice(0, 1024),
    referer: (p.referrer ?? "").slice(0, 2048),
    query: (p.query ?? "").replace(/^\?/, ""),
    acceptLanguage: p.language ?? "",
    cookie: "",
    ip: "",
    at: given(p.at) === null ? now : instant(p.at!, "at"),
    country: () => country,
  };
  const base = { variants: [] as ResolveReply["variants"], country_source: countrySource };
  const t = compileTargeting(rules, split, Number(link.num));
  const rule = t === null ? -1 : matchRule(t, facts);
  if (rule !== -1) {
    const r = rules[rule] as Rule;
    return { ...base, destination: `rule:${rule + 1}`, url: r.url, rule: rule + 1, reason: `Rule ${rule + 1} holds (${ruleInWords(r)})` };
  }
  const blind = countrySource === null && askedCountry !== null && rules.some((r) => r.if.country !== undefined);
  const none =
    rules.length === 0
      ? "The link has no rules"
      : blind
        ? "No rule holds (this server learns no visitor's country, so rules with a country never hold)"
        : "No rule holds";
  const device = deviceDestination(link, facts.userAgent);
  if (device !== null) {
    return {
      ...base,
      destination: device.code,
      url: device.url,
      rule: null,
      reason: `${none}; ${DEVICE_NAMES[device.code]} visitors go to the link's ${DEVICE_NAMES[device.code]} destination`,
    };
  }
  if (t !== null && t.split !== null) {
    const { index } = pickVariant(t.split, Number(link.num), facts);
    const variants = split.map((v, i) => ({ destination: `variant:${i + 1}`, url: v.url, weight: v.weight }));
    const v = variants[index]!;
    return {
      ...base,
      variants,
      destination: v.destination,
      url: v.url,
      rule: null,
      reason: `${none}; the split sends this visitor to variant ${index + 1} (${v.weight}% of visitors), and each visitor keeps their variant for 30 days`,
    };
  }
  return { ...base, destination: "default", url: link.url, rule: null, reason: `${none}; the visitor goes to the link's URL` };
}
