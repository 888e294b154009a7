// The redirect answers a link can give (docs/api.md, Short-link redirect): its status (301, 302, 307, 308),
// Cache-Control (no-store, or `private, max-age=N` for the permanent 301 and 308) and X-Robots-Tag
// (noindex unless the link is crawlable). Eight shared, frozen-shape objects built once per instance: a
// cached link points at its own (link-cache.ts), so the hot path allocates nothing to pick one.
/** What routes answer short addresses with (http/pages.ts says the same): every visit reaches the service. */
const NO_STORE = "private, no-store";

export interface RedirectAnswer {
  status: number;
  crawlable: boolean;
  cacheControl: string;
  /** node:http header list with the location at [1] (the fast path writes it there, then writeHead). */
  headers: string[];
  /** The same with set-cookie last (a split's variant). */
  cookieHeaders: string[];
  /** This link's answer for a fallback address (expired or used up): a 302 that is never cached. */
  fallback: RedirectAnswer;
}

/** A permanent redirect a browser may keep: max-age bounds how long its clicks go uncounted. */
export function isCacheable(status: number): boolean {
  return status === 301 || status === 308;
}

function build(status: number, crawlable: boolean, maxAge: number, fallback: RedirectAnswer | null): RedirectAnswer {
  const cacheControl = isCacheable(status) ? `private, max-age=${maxAge}` : NO_STORE;
  const headers = ["location", "", "cache-control", cacheControl, "content-length", "0"];
  if (!crawlable) headers.push("x-robots-tag", "noindex");
  const answer = { status, crawlable, cacheControl, headers, cookieHeaders: [...headers, "set-cookie", ""], fallback: null as unknown as RedirectAnswer };
  answer.fallback = fallback ?? answer;
  return answer;
}

export class RedirectAnswers {
  private readonly table = new Map<number, RedirectAnswer>();

  /** `defaultStatus`: REDIRECT_STATUS; `maxAge`: REDIRECT_MAX_AGE. */
  constructor(
    readonly defaultStatus: number,
    maxAge: number,
  ) {
    for (const crawlable of [false, true]) {
      const plain = build(302, crawlable, maxAge, null);
      for (const status of [301, 302, 307, 308])
        this.table.set(status * 2 + Number(crawlable), status === 302 ? plain : build(status, crawlable, maxAge, plain));
    }
  }

  /** The answer for a link's redirect_status (null: the default) and crawlable mark. */
  of(status: number | null, crawlable: boolean): RedirectAnswer {
    const s = status ?? this.defaultStatus;
    return (this.table.get(s * 2 + Number(crawlable)) ?? this.table.get(302 * 2 + Number(crawlable))) as RedirectAnswer;
  }
}
