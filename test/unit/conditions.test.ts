// The redirect condition registry (src/contract/conditions/): every kind carries its schema, check, matcher,
// words and form field, and each kind's case below holds on one visit and not on another, through the
// redirect's own matcher. A kind without a case here fails (the table is keyed by CondKind).
import { describe, expect, it } from "vitest";
import { Value } from "typebox/value";
import { COND_KINDS, COND_LABELS, CONDITIONS, CONDITIONS_BY_COST, conditionWords, type CondKind } from "../../src/contract/conditions/index.js";
import { RuleConditionSchema, type RuleCondition } from "../../src/contract/targeting.js";
import { compileTargeting, matchRule, type VisitFacts } from "../../src/redirect/targeting.js";
import { checkTargeting } from "../../src/links/link-targeting.js";
import { FieldChecks } from "../../src/shared/errors.js";

const CHROME_WIN = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";
const NOW = Date.parse("2026-06-15T12:00:00Z");

type Facts = Partial<Omit<VisitFacts, "country">> & { country?: string | null };

function facts(over: Facts): VisitFacts {
  const { country = null, ...rest } = over;
  return { userAgent: CHROME_WIN, referer: "", query: "", acceptLanguage: "", cookie: "", ip: "203.0.113.9", at: NOW, country: () => country, ...rest };
}

interface Case {
  /** As a user sends it, and as it is stored after the kind's check. */
  given: unknown;
  stored: unknown;
  /** A value the check refuses, and its message. */
  bad: unknown;
  message: string;
  hit: Facts;
  miss: Facts;
  words: string;
}

const CASES: Record<CondKind, Case> = {
  country: {
    given: ["fr", " BE", "FR"],
    stored: ["FR", "BE"],
    bad: ["FRA"],
    message: '"FRA" is not a two-letter country code such as FR or US',
    hit: { country: "BE" },
    miss: { country: null },
    words: "country FR or BE",
  },
  language: {
    given: ["fr-BE", "de"],
    stored: ["fr-be", "de"],
    bad: ["fr_BE"],
    message: '"fr_BE" is not a language such as fr or fr-BE',
    hit: { acceptLanguage: "de;q=0.9,en;q=0.2" },
    miss: { acceptLanguage: "fr" },
    words: "language fr-be or de",
  },
  device: {
    given: ["ios", "desktop", "ios"],
    stored: ["ios", "desktop"],
    bad: ["phone"],
    message: "Choose among ios, android, mobile, tablet, desktop and bot",
    hit: { userAgent: IPHONE },
    miss: { userAgent: "" },
    words: "device ios or desktop",
  },
  os: {
    given: ["Linux"],
    stored: ["Linux"],
    bad: ["a\u0001"],
    message: "Use 1 to 40 characters without control characters",
    hit: { userAgent: FIREFOX_LINUX },
    miss: {},
    words: "OS Linux",
  },
  browser: {
    given: ["firefox "],
    stored: ["firefox"],
    bad: [],
    message: "Give at least one value, or remove this condition",
    hit: { userAgent: FIREFOX_LINUX },
    miss: {},
    words: "browser firefox",
  },
  query: {
    given: { " utm_source": "news", ref: "*" },
    stored: { utm_source: "news", ref: "*" },
    bad: { a: 1 },
    message: "Give query parameters as name and value (* for any value)",
    hit: { query: "ref=x&utm_source=news" },
    miss: { query: "utm_source=news" },
    words: "query utm_source=news and ref present",
  },
  referrer_host: {
    given: ["www.Example.com."],
    stored: ["example.com"],
    bad: ["not a host"],
    message: '"not a host" is not a host name such as news.example.com',
    hit: { referer: "https://news.example.com/a" },
    miss: { referer: "https://notexample.com/" },
    words: "referrer example.com",
  },
  after: {
    given: "2026-06-01T12:00:00+02:00",
    stored: "2026-06-01T10:00:00.000Z",
    bad: "June",
    message: "Enter a date and time such as 2026-11-21T10:00:00.000Z",
    hit: { at: NOW },
    miss: { at: Date.parse("2026-06-01T09:59:59Z") },
    words: "from 2026-06-01T10:00:00.000Z",
  },
  before: {
    given: "2026-07-01T00:00:00Z",
    stored: "2026-07-01T00:00:00.000Z",
    bad: "2026-13-01T00:00:00Z",
    message: "Enter a date and time such as 2026-11-21T10:00:00.000Z",
    hit: { at: NOW },
    miss: { at: Date.parse("2026-07-01T00:00:00Z") },
    words: "until 2026-07-01T00:00:00.000Z",
  },
};

/** The rules as the server checks them: stored JSON, or the field errors. */
function check(cond: Record<string, unknown>): { stored?: RuleCondition; errors?: { field: string; message: string }[] } {
  const checks = new FieldChecks();
  const out = checkTargeting(checks, { rules: [{ if: cond as RuleCondition, url: "https://example.com/x" }] }, "business", "s.example", 0);
  try {
    checks.throwIfAny();
  } catch (err) {
    return { errors: (err as { details?: { field: string; message: string }[] }).details };
  }
  return { stored: (JSON.parse(out.set.rules!) as { if: RuleCondition }[])[0]!.if };
}

const holds = (cond: Record<string, unknown>, f: Facts) =>
  matchRule(compileTargeting([{ if: cond as RuleCondition, url: "https://example.com/x" }], [], 1)!, facts(f)) === 0;

describe("redirect condition registry", () => {
  it("has a case here for every kind, and every kind has its parts", () => {
    expect(Object.keys(CASES).sort()).toEqual([...COND_KINDS].sort());
    expect(new Set(COND_KINDS).size).toBe(CONDITIONS.length);
    expect([...CONDITIONS_BY_COST].map((k) => k.kind).sort()).toEqual([...COND_KINDS].sort());
    for (const k of CONDITIONS) {
      expect(COND_LABELS[k.kind]).toMatch(/^[A-Z]/);
      expect(RuleConditionSchema.properties[k.kind]).toBeDefined();
      expect(typeof k.normalise).toBe("function");
      expect(typeof k.compile).toBe("function");
      expect(typeof k.words).toBe("function");
      expect(["list", "choices", "pairs", "datetime"]).toContain(k.field.input);
      expect(k.field.empty.length).toBeGreaterThan(5);
    }
    // The contract knows no condition the registry does not.
    expect(Object.keys(RuleConditionSchema.properties).sort()).toEqual([...COND_KINDS].sort());
  });

  describe.each(COND_KINDS.map((kind) => [kind, CASES[kind]] as const))("%s", (kind, c) => {
    it("is stored in its normal form, which the contract's schema accepts", () => {
      expect(check({ [kind]: c.given })).toEqual({ stored: { [kind]: c.stored } });
      expect(Value.Check(RuleConditionSchema, { [kind]: c.stored })).toBe(true);
    });

    it("refuses a wrong value under its field", () => {
      expect(check({ [kind]: c.bad }).errors).toEqual([{ field: `rules[0].if.${kind}`, message: c.message }]);
    });

    it("holds on one visit and not on another", () => {
      expect(holds({ [kind]: c.stored }, c.hit)).toBe(true);
      expect(holds({ [kind]: c.stored }, c.miss)).toBe(false);
    });

    it("says itself in words", () => {
      expect(conditionWords({ [kind]: c.stored }, (iso) => iso)).toBe(c.words);
    });
  });

  it("words follow the registry's order; every condition of a rule must hold", () => {
    const both = { before: CASES.before.stored, country: CASES.country.stored } as RuleCondition;
    expect(conditionWords(both, (iso) => `at ${iso.slice(0, 10)}`)).toBe("country FR or BE, until at 2026-07-01");
    expect(holds(both, { country: "FR" })).toBe(true);
    expect(holds(both, { country: "FR", at: Date.parse("2026-07-02T00:00:00Z") })).toBe(false);
  });

  it("`before` must come after `after`, said under `before`", () => {
    expect(check({ after: "2026-07-01T00:00:00Z", before: "2026-06-01T00:00:00Z" }).errors).toEqual([
      { field: "rules[0].if.before", message: "Choose a time after the rule's start" },
    ]);
  });
});
