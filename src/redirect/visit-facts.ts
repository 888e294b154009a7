// What redirect rules may ask of a visit (targeting.ts's VisitFacts), built from the visit the redirect has.
import type { CountryResolver } from "../clicks/describe.js";
import type { VisitFacts } from "./targeting.js";

/** The parts of a visit (resolve-link.ts's Visit) the facts read. */
export interface FactsOfVisit {
  userAgent: string;
  referer: string;
  query: string;
  acceptLanguage: string;
  cookie: string;
  ip: string;
  country: string | null;
}

/** What redirect rules may ask of a visit: one object, no closure (the country worked out only when a rule asks). */
export class Facts implements VisitFacts {
  readonly userAgent: string;
  readonly referer: string;
  readonly query: string;
  readonly acceptLanguage: string;
  readonly cookie: string;
  readonly ip: string;
  private readonly header: string | null;

  constructor(
    v: FactsOfVisit,
    readonly at: number,
    private readonly countries: Pick<CountryResolver, "resolve"> | undefined,
  ) {
    this.userAgent = v.userAgent;
    this.referer = v.referer;
    this.query = v.query;
    this.acceptLanguage = v.acceptLanguage;
    this.cookie = v.cookie;
    this.ip = v.ip;
    this.header = v.country;
  }

  country(): string | null {
    const c = this.countries?.resolve(this.header, this.ip) ?? "unknown";
    return c === "unknown" ? null : c;
  }
}
