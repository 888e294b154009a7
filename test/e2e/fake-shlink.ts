// A small Shlink (REST API v3) on loopback for the Import page's browser test: pages of short URLs, each
// link's visits, the API key checked, and a page that can be held back (the job is seen running, cancelled
// mid-way and resumed).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeShortUrl {
  shortCode: string;
  longUrl: string;
  title?: string | null;
  tags?: string[];
  visits?: { date: string; referer: string; userAgent: string; countryCode: string; cityName: string }[];
}

export interface FakeShlink {
  url: string;
  /** Requests for page `n` wait until released. */
  hold(n: number): void;
  release(n: number): void;
  /** The page numbers asked for, in order. */
  pagesAsked: number[];
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};
const pagination = (page: number, pages: number, items: number, total: number) => ({
  currentPage: page,
  pagesCount: pages,
  itemsPerPage: 100,
  itemsInCurrentPage: items,
  totalItems: total,
});

export async function startFakeShlink(apiKey: string, pages: FakeShortUrl[][]): Promise<FakeShlink> {
  const held = new Map<number, { promise: Promise<void>; release: () => void }>();
  const pagesAsked: number[] = [];
  const total = pages.reduce((n, p) => n + p.length, 0);
  const all = pages.flat();

  const shortUrl = (s: FakeShortUrl) => ({
    shortCode: s.shortCode,
    shortUrl: `https://s.example.com/${s.shortCode}`,
    longUrl: s.longUrl,
    dateCreated: "2024-03-01T10:00:00+00:00",
    visitsSummary: { total: s.visits?.length ?? 0, nonBots: s.visits?.length ?? 0, bots: 0 },
    tags: s.tags ?? [],
    meta: { validSince: null, validUntil: null, maxVisits: null },
    domain: null,
    title: s.title ?? null,
    crawlable: false,
    forwardQuery: true,
  });

  async function answer(req: IncomingMessage, res: ServerResponse) {
    const u = new URL(req.url ?? "/", "http://x");
    if (req.headers["x-api-key"] !== apiKey) return json(res, 401, { type: "INVALID_API_KEY", title: "Invalid API key", status: 401 });
    const page = Number(u.searchParams.get("page") ?? "1");
    if (u.pathname === "/rest/v3/short-urls") {
      pagesAsked.push(page);
      await held.get(page)?.promise;
      const data = pages[page - 1] ?? [];
      return json(res, 200, { shortUrls: { data: data.map(shortUrl), pagination: pagination(page, pages.length, data.length, total) } });
    }
    const m = /^\/rest\/v3\/short-urls\/([^/]+)\/visits$/.exec(u.pathname);
    const link = m ? all.find((s) => s.shortCode === decodeURIComponent(m[1] ?? "")) : undefined;
    if (!link) return json(res, 404, { type: "INVALID_SHORTCODE", title: "Short URL not found", status: 404 });
    const visits = (link.visits ?? []).map((v) => ({
      date: v.date,
      referer: v.referer,
      userAgent: v.userAgent,
      potentialBot: false,
      visitLocation: { countryCode: v.countryCode, cityName: v.cityName, regionName: null },
    }));
    return json(res, 200, { visits: { data: visits, pagination: pagination(1, 1, visits.length, visits.length) } });
  }

  const server = createServer((req, res) => void answer(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    pagesAsked,
    hold(n) {
      let release = () => undefined as void;
      const promise = new Promise<void>((r) => (release = r));
      held.set(n, { promise, release });
    },
    release(n) {
      held.get(n)?.release();
      held.delete(n);
    },
    close: () =>
      new Promise<void>((r) => {
        for (const h of held.values()) h.release();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
