// Loopback fakes of the import sources' APIs (Bitly v4, Shlink REST v3, YOURLS, Kutt v2, Dub): one real HTTP
// server each on 127.0.0.1, speaking the documented pagination and fields, checking the token, recording what
// it got, with switches for the failures a test needs (a rate-limit answer with Retry-After, server errors
// from a page on, malformed JSON or a wrong shape on a page, a link without its URL). Links and visits are
// generated per page from their index (fake-source-data.ts), so a benchmark can ask for 100,000 links.
import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { URL_FIELD, bitlyClicks, bitlyLink, dubLink, isoAt, kuttLink, shlinkDomain, shlinkLink, shlinkVisit, yourlsLink } from "./fake-source-data.js";

export type FakeSourceName = keyof typeof URL_FIELD;
export type FakeRequestKind = "links" | "visits" | "groups" | "clicks" | "count" | "folders";

export interface FakeSourceOptions {
  /** Links served (default 250). */
  links?: number;
  /** The accepted token (default `token-<name>`). */
  token?: string;
  /** Shlink: visits of link i (default i % 4). */
  visitsPerLink?: (i: number) => number;
  /** Bitly: groups the links are split over (default 1). */
  groups?: number;
  /** Keep every request in `requests` (default true; a benchmark turns it off). */
  record?: boolean;
}

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  kind: FakeRequestKind | null;
  /** The link page asked for (1-based, whatever the source's paging: page, skip, start, search_after). */
  page: number | null;
  status: number;
  at: number;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Route {
  kind: FakeRequestKind;
  page: number | null;
  /** Shlink visits: the link asked for. */
  link?: number;
  answer: () => Answer;
}

interface Ctx {
  n: number;
  groups: number;
  base: string;
  visits: (i: number) => number;
  link: (i: number) => Record<string, unknown>;
}

const NOT_FOUND: Answer = { status: 404, body: { error: "not found" } };

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}

function limitOf(q: URLSearchParams, key: string, fallback: number, max: number): number {
  const n = Number(q.get(key) ?? fallback);
  return Number.isInteger(n) && n > 0 ? Math.min(n, max) : fallback;
}

function offsetOf(q: URLSearchParams, key: string): number {
  const n = Number(q.get(key) ?? 0);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

function bitlyRoute(ctx: Ctx, path: string, q: URLSearchParams): Route | null {
  const per = Math.ceil(ctx.n / ctx.groups);
  const guid = (g: number) => `Bgroup${g}`;
  if (path === "/v4/groups") {
    const groups = range(0, ctx.groups).map((g) => ({ guid: guid(g), name: `Group ${g}`, organization_guid: "Oorg", is_active: true, role: "org-admin" }));
    return { kind: "groups", page: null, answer: () => ({ status: 200, body: { groups } }) };
  }
  const clicks = /^\/v4\/bitlinks\/bit\.ly\/b(\d+)\/clicks\/summary$/.exec(path);
  if (clicks) {
    const i = Number(clicks[1]);
    const body = {
      unit_reference: isoAt(Date.UTC(2025, 0, 1), "+0000"),
      total_clicks: bitlyClicks(i),
      units: Number(q.get("units") ?? -1),
      unit: q.get("unit") ?? "day",
    };
    return { kind: "clicks", page: null, answer: () => (i < ctx.n ? { status: 200, body } : NOT_FOUND) };
  }
  const list = /^\/v4\/groups\/Bgroup(\d+)\/bitlinks$/.exec(path);
  if (!list) return null;
  const g = Number(list[1]);
  const size = limitOf(q, "size", 50, 100);
  const after = q.get("search_after");
  const offset = after ? Number(JSON.parse(Buffer.from(after, "base64url").toString()).o) : 0;
  const start = g * per;
  const end = Math.min(ctx.n, start + per);
  const from = start + offset;
  const to = Math.min(end, from + size);
  return {
    kind: "links",
    page: Math.floor(from / size) + 1,
    answer: () => {
      if (g >= ctx.groups) return NOT_FOUND;
      const more = to < end;
      const token = more ? Buffer.from(JSON.stringify({ o: offset + size })).toString("base64url") : "";
      const next = more ? `${ctx.base}/v4/groups/${guid(g)}/bitlinks?size=${size}&archived=${q.get("archived") ?? "off"}&search_after=${token}` : "";
      const links = range(from, to).map((i) => ctx.link(i));
      return { status: 200, body: { links, pagination: { prev: "", next, size, total: end - start, search_after: token } } };
    },
  };
}

function pageAnswer(items: unknown[], page: number, perPage: number, total: number) {
  return {
    data: items,
    pagination: { currentPage: page, pagesCount: Math.ceil(total / perPage), itemsPerPage: perPage, itemsInCurrentPage: items.length, totalItems: total },
  };
}

function shlinkRoute(ctx: Ctx, path: string, q: URLSearchParams): Route | null {
  const page = limitOf(q, "page", 1, Number.MAX_SAFE_INTEGER);
  const per = limitOf(q, "itemsPerPage", 10, 5000);
  if (path === "/rest/v3/short-urls") {
    const ids = range((page - 1) * per, Math.min(ctx.n, page * per));
    return {
      kind: "links",
      page,
      answer: () => ({
        status: 200,
        body: {
          shortUrls: pageAnswer(
            ids.map((i) => ctx.link(i)),
            page,
            per,
            ctx.n,
          ),
        },
      }),
    };
  }
  const m = /^\/rest\/v3\/short-urls\/s(\d+)\/visits$/.exec(path);
  if (!m) return null;
  const i = Number(m[1]);
  return {
    kind: "visits",
    page,
    link: i,
    answer: () => {
      if (i >= ctx.n || (q.get("domain") ?? null) !== shlinkDomain(i)) {
        return {
          status: 404,
          body: {
            type: "https://shlink.io/api/error/short-url-not-found",
            title: "Short URL not found",
            status: 404,
            detail: `No URL found with short code "s${i}"`,
          },
        };
      }
      const count = ctx.visits(i);
      // Newest first: position p of the list is visit count-1-p.
      const visits = range((page - 1) * per, Math.min(count, page * per)).map((p) => shlinkVisit(i, count - 1 - p));
      return { status: 200, body: { visits: pageAnswer(visits, page, per, count) } };
    },
  };
}

function yourlsRoute(ctx: Ctx, path: string, q: URLSearchParams): Route | null {
  if (path !== "/yourls-api.php" || q.get("action") !== "stats") return null;
  const limit = limitOf(q, "limit", 10, 1000);
  const start = offsetOf(q, "start");
  return {
    kind: "links",
    page: Math.floor(start / limit) + 1,
    answer: () => {
      const ids = range(start, Math.min(ctx.n, start + limit));
      const links: Record<string, unknown> = {};
      ids.forEach((i, k) => (links[`link_${k + 1}`] = ctx.link(i)));
      const clicks = ((ctx.n * (ctx.n - 1)) / 2) * 2;
      return {
        status: 200,
        body: { links: ids.length > 0 ? links : [], stats: { total_links: String(ctx.n), total_clicks: String(clicks) }, statusCode: 200, message: "success" },
      };
    },
  };
}

function kuttRoute(ctx: Ctx, path: string, q: URLSearchParams): Route | null {
  if (path !== "/api/v2/links") return null;
  const limit = limitOf(q, "limit", 10, 50);
  const skip = offsetOf(q, "skip");
  const ids = range(skip, Math.min(ctx.n, skip + limit));
  return {
    kind: "links",
    page: Math.floor(skip / limit) + 1,
    answer: () => ({ status: 200, body: { total: ctx.n, limit, skip, data: ids.map((i) => ctx.link(i)) } }),
  };
}

function dubRoute(ctx: Ctx, path: string, q: URLSearchParams): Route | null {
  if (path === "/links/count") return { kind: "count", page: null, answer: () => ({ status: 200, body: ctx.n }) };
  if (path === "/folders")
    return { kind: "folders", page: null, answer: () => ({ status: 200, body: [{ id: "fold_clients", name: "Clients", accessLevel: "write" }] }) };
  if (path !== "/links") return null;
  const page = limitOf(q, "page", 1, Number.MAX_SAFE_INTEGER);
  const size = limitOf(q, "pageSize", 100, 100);
  const ids = range((page - 1) * size, Math.min(ctx.n, page * size));
  return { kind: "links", page, answer: () => ({ status: 200, body: ids.map((i) => ctx.link(i)) }) };
}

const ROUTES: Record<FakeSourceName, (ctx: Ctx, path: string, q: URLSearchParams) => Route | null> = {
  bitly: bitlyRoute,
  shlink: shlinkRoute,
  yourls: yourlsRoute,
  kutt: kuttRoute,
  dub: dubRoute,
};

function authorized(name: FakeSourceName, token: string, headers: IncomingHttpHeaders, q: URLSearchParams): boolean {
  if (name === "bitly" || name === "dub") return headers.authorization === `Bearer ${token}`;
  if (name === "yourls") return q.get("signature") === token;
  return headers["x-api-key"] === token;
}

function refusal(name: FakeSourceName): Answer {
  if (name === "yourls") return { status: 403, body: { errorCode: 403, message: "Please log in", callback: "" } };
  if (name === "shlink")
    return {
      status: 401,
      body: {
        type: "https://shlink.io/api/error/invalid-api-key",
        title: "Invalid API key",
        status: 401,
        detail: "Provided API key does not exist or is invalid.",
      },
    };
  return { status: 401, body: { error: { code: "unauthorized", message: "Missing or invalid token" } } };
}

export class FakeSource {
  readonly requests: FakeRequest[] = [];
  /** Link indexes served without their destination URL. */
  readonly broken = new Set<number>();
  private rateLimit: { page: number; retryAfter: string; status: number } | null = null;
  private failingFrom: number | null = null;
  private malformed: number | null = null;
  private wrongShape: number | null = null;
  private failingVisits: number | null = null;
  private readonly ctx: Ctx;

  constructor(
    readonly name: FakeSourceName,
    readonly baseUrl: string,
    readonly token: string,
    readonly links: number,
    private readonly opts: FakeSourceOptions,
  ) {
    const visits = opts.visitsPerLink ?? ((i: number) => i % 4);
    const groups = Math.max(1, opts.groups ?? 1);
    this.ctx = { n: links, groups, base: baseUrl, visits, link: (i) => this.link(i) };
  }

  /** Link i exactly as served (without its URL when broken). */
  link(i: number): Record<string, unknown> {
    const per = Math.ceil(this.links / (this.opts.groups ?? 1));
    const raw =
      this.name === "bitly"
        ? bitlyLink(i, `Bgroup${Math.floor(i / per)}`)
        : this.name === "shlink"
          ? shlinkLink(i, this.visitsOf(i))
          : this.name === "yourls"
            ? yourlsLink(i, this.links)
            : this.name === "kutt"
              ? kuttLink(i)
              : dubLink(i);
    if (this.broken.has(i)) delete raw[URL_FIELD[this.name]];
    return raw;
  }

  visitsOf(i: number): number {
    return this.ctx.visits(i);
  }

  /** The next request for link page `page` answers `status` (429 or 503) with this Retry-After, once. */
  rateLimitOnce(page: number, retryAfter: string, status: 429 | 503 = 429): void {
    this.rateLimit = { page, retryAfter, status };
  }

  /** Link pages from `page` on answer 500 until failFrom(null). */
  failFrom(page: number | null): void {
    this.failingFrom = page;
  }

  /** Link page `page` answers a truncated JSON body (null: no more). */
  malformedOn(page: number | null): void {
    this.malformed = page;
  }

  /** Link page `page` answers JSON of another shape: {"unexpected": true} (null: no more). */
  wrongShapeOn(page: number | null): void {
    this.wrongShape = page;
  }

  /** Shlink: the visits of link i answer 500 (null: no more). */
  failVisits(i: number | null): void {
    this.failingVisits = i;
  }

  /** Link i is served without its URL field. */
  breakLink(i: number): void {
    this.broken.add(i);
  }

  requestsOf(kind: FakeRequestKind): FakeRequest[] {
    return this.requests.filter((r) => r.kind === kind);
  }

  /** The answer to one request (routing, token, switches). */
  answer(method: string, url: URL, headers: IncomingHttpHeaders): { route: Route | null; answer: Answer } {
    const route = method === "GET" ? ROUTES[this.name](this.ctx, url.pathname, url.searchParams) : null;
    if (!route) return { route, answer: NOT_FOUND };
    if (!authorized(this.name, this.token, headers, url.searchParams)) return { route, answer: refusal(this.name) };
    if (route.kind === "visits" && route.link === this.failingVisits) return { route, answer: { status: 500, body: { error: "visits down" } } };
    if (route.kind === "links") {
      const page = route.page;
      if (this.rateLimit && this.rateLimit.page === page) {
        const { status, retryAfter } = this.rateLimit;
        this.rateLimit = null;
        return { route, answer: { status, body: { error: "slow down" }, headers: { "retry-after": retryAfter } } };
      }
      if (this.failingFrom !== null && page !== null && page >= this.failingFrom) return { route, answer: { status: 500, body: { error: "internal error" } } };
      if (this.malformed === page) return { route, answer: { status: 200, body: '{"links": [{"id": "trunc' } };
      if (this.wrongShape === page) return { route, answer: { status: 200, body: { unexpected: true } } };
    }
    return { route, answer: route.answer() };
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.baseUrl);
    const { route, answer } = this.answer(req.method ?? "GET", url, req.headers);
    if (this.opts.record !== false) {
      const query = Object.fromEntries(url.searchParams);
      this.requests.push({
        method: req.method ?? "GET",
        path: url.pathname,
        query,
        headers: req.headers,
        kind: route?.kind ?? null,
        page: route?.page ?? null,
        status: answer.status,
        at: Date.now(),
      });
    }
    const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(body);
  }
}

export interface RunningFakeSource extends FakeSource {
  port: number;
  close(): Promise<void>;
}

/** Starts the fake of `name` on 127.0.0.1 (a free port); `baseUrl` is what the import's base_url is set to. */
export async function startFakeSource(name: FakeSourceName, opts: FakeSourceOptions = {}): Promise<RunningFakeSource> {
  let fake: FakeSource | null = null;
  const server = createServer({ keepAliveTimeout: 15_000 }, (req, res) => {
    req.resume();
    req.on("end", () => fake?.handle(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  fake = new FakeSource(name, `http://127.0.0.1:${port}`, opts.token ?? `token-${name}`, opts.links ?? 250, opts);
  return Object.assign(fake, {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
