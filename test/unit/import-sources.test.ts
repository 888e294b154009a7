// Each API source against its loopback fake: every link across pages with its fields, Retry-After waited for,
// a server error mid-way and the resume from the last cursor, malformed and wrongly shaped answers, a wrong
// token, a link without a URL; no error message carries the token.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSourceFetch } from "../../src/imports/source-http.js";
import { type ImportSource, type SourceLink, SourceError, type SourceFactory } from "../../src/imports/source.js";
import { API_SOURCES } from "../../src/imports/sources/index.js";
import { ReceiverCheck } from "../../src/webhooks/receiver-check.js";
import { type FakeSourceName, type RunningFakeSource, startFakeSource } from "../helpers/fake-sources.js";

const check = new ReceiverCheck({ dnsServers: [], allowPrivate: false });
const T0 = Date.UTC(2024, 0, 1);
const H = 3_600_000;
const D = 24 * H;
const N = 250;
const messages: string[] = [];
const tokens: string[] = [];

/** Every page from `cursor` on: the links, and the cursor each page gave. */
async function readAll(
  src: ImportSource,
  cursor: string | null = null,
): Promise<{ links: SourceLink[]; cursors: (string | null)[]; totals: (number | null | undefined)[] }> {
  const links: SourceLink[] = [];
  const cursors: (string | null)[] = [];
  const totals: (number | null | undefined)[] = [];
  for (let at = cursor, pages = 0; pages < 10_000; pages++) {
    const page = await src.page(at);
    links.push(...page.links);
    cursors.push(page.next);
    totals.push(page.total);
    if (page.next === null) return { links, cursors, totals };
    at = page.next;
  }
  throw new Error("no end");
}

async function failure(p: Promise<unknown>): Promise<SourceError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SourceError);
  messages.push((e as SourceError).message);
  return e as SourceError;
}

function withoutVisits(l: SourceLink): Omit<SourceLink, "visits"> & { visits?: string } {
  const { visits, ...rest } = l;
  return visits ? { ...rest, visits: "function" } : rest;
}

interface Case {
  name: FakeSourceName;
  perPage: number;
  title: string;
  id: (i: number) => string;
  samples: [number, Record<string, unknown>][];
}

const CASES: Case[] = [
  {
    name: "bitly",
    perPage: 100,
    title: "Bitly",
    id: (i) => `bit.ly/b${i}`,
    samples: [
      [
        0,
        {
          source_id: "bit.ly/b0",
          url: "https://example.com/bitly/0",
          alias: "custom-0",
          domain: "go.example.org",
          title: "Bitly link 0",
          tags: ["promo", "t0"],
          created_at: T0,
          archived: false,
          clicks_total: 0,
        },
      ],
      [
        3,
        {
          source_id: "bit.ly/b3",
          url: "https://example.com/bitly/3",
          alias: "b3",
          domain: "bit.ly",
          title: "Bitly link 3",
          tags: ["promo", "t1"],
          created_at: T0 + 3 * H,
          archived: true,
          clicks_total: 9,
        },
      ],
    ],
  },
  {
    name: "shlink",
    perPage: 100,
    title: "Shlink",
    id: (i) => `${i % 10 === 0 ? "s.example.net" : ""}/s${i}`,
    samples: [
      [
        0,
        {
          source_id: "s.example.net/s0",
          url: "https://example.com/shlink/0",
          alias: "s0",
          domain: "s.example.net",
          title: "Shlink 0",
          tags: ["news", "shlink"],
          created_at: T0,
          crawlable: false,
          valid_since: T0 + D,
          expires_at: T0 + 30 * D,
          max_clicks: 100,
          android_url: "https://example.com/android/0",
          ios_url: "https://example.com/ios/0",
        },
      ],
      [
        1,
        {
          source_id: "/s1",
          url: "https://example.com/shlink/1",
          alias: "s1",
          domain: null,
          title: null,
          tags: [],
          created_at: T0 + H,
          crawlable: false,
          valid_since: null,
          expires_at: null,
          max_clicks: null,
          android_url: null,
          ios_url: null,
          visits: "function",
        },
      ],
    ],
  },
  {
    name: "yourls",
    perPage: 100,
    title: "YOURLS",
    id: (i) => `y${i}`,
    samples: [
      [
        0,
        {
          source_id: "y0",
          url: "https://example.com/yourls/0",
          alias: "y0",
          domain: "y.example",
          title: "YOURLS 0",
          created_at: T0 + 250 * H,
          clicks_total: 0,
        },
      ],
      [
        7,
        {
          source_id: "y7",
          url: "https://example.com/yourls/7",
          alias: "y7",
          domain: "y.example",
          title: "YOURLS 7",
          created_at: T0 + 243 * H,
          clicks_total: 14,
        },
      ],
    ],
  },
  {
    name: "kutt",
    perPage: 50,
    title: "Kutt",
    id: (i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    samples: [
      [
        0,
        {
          source_id: "00000000-0000-4000-8000-000000000000",
          url: "https://example.com/kutt/0",
          alias: "k0",
          domain: "k.example.io",
          title: null,
          expires_at: T0 + 7 * D,
          created_at: T0,
          clicks_total: 0,
          password_protected: true,
        },
      ],
      [
        1,
        {
          source_id: "00000000-0000-4000-8000-000000000001",
          url: "https://example.com/kutt/1",
          alias: "k1",
          domain: "kutt.it",
          title: "Kutt 1",
          expires_at: null,
          created_at: T0 + H,
          clicks_total: 1,
        },
      ],
    ],
  },
  {
    name: "dub",
    perPage: 100,
    title: "Dub",
    id: (i) => `link_${String(i).padStart(6, "0")}`,
    samples: [
      [
        0,
        {
          source_id: "link_000000",
          url: "https://example.com/dub/0",
          alias: "d0",
          domain: "go.example.com",
          title: "Dub 0",
          note: "note 0",
          tags: ["launch"],
          expires_at: T0 + 14 * D,
          expired_url: "https://example.com/expired/0",
          ios_url: "https://apps.apple.com/app/0",
          android_url: "https://play.google.com/store/apps/0",
          created_at: T0,
          clicks_total: 0,
          archived: true,
          preview: { title: "Dub 0", description: "About 0", image: "https://img.example/0.png" },
          password_protected: true,
        },
      ],
      [
        1,
        {
          source_id: "link_000001",
          url: "https://example.com/dub/1",
          alias: "d1",
          domain: "dub.sh",
          title: "Dub 1",
          note: null,
          tags: [],
          expires_at: null,
          expired_url: null,
          ios_url: null,
          android_url: null,
          created_at: T0 + H,
          clicks_total: 5,
          archived: false,
          conversions_total: { leads: 1, sales: 1, revenue: { USD: 1999 } },
          // In Dub's folder "Clients" (GET /folders lists it).
          folder: "Clients",
        },
      ],
    ],
  },
];

describe.each(CASES)("$name", ({ name, perPage, title, id, samples }) => {
  let fake: RunningFakeSource;
  const http = createSourceFetch({ check, allowPrivate: true });
  const factory: SourceFactory = API_SOURCES[name];
  const source = (token?: string) => factory({ base_url: fake.baseUrl, token: token ?? fake.token }, http);
  const pages = Math.ceil(N / perPage);
  const allIds = Array.from({ length: N }, (_, i) => id(i));

  beforeAll(async () => {
    fake = await startFakeSource(name, { links: N });
    tokens.push(fake.token);
  });
  afterEach(() => {
    fake.requests.length = 0;
    fake.failFrom(null);
    fake.malformedOn(null);
    fake.wrongShapeOn(null);
    fake.broken.clear();
  });
  afterAll(async () => {
    await http.close();
    await fake.close();
  });

  it("reads every link across the pages, with the documented fields", async () => {
    const { links, cursors, totals } = await readAll(source());
    expect(links.map((l) => l.source_id)).toEqual(allIds);
    expect(cursors.length).toBe(pages);
    expect(totals[0]).toBe(N);
    // Notes only where the fixture asks for one: Dub's links in a folder GET /folders does not list.
    const noted = (i: number) => name === "dub" && i % 10 === 3;
    expect(
      links.every(
        (l, i) =>
          l.url.endsWith(`/${name}/${i}`) &&
          (noted(i) ? l.notes?.join() === "its Dub folder could not be read (GET /folders); the link is in no folder" : l.notes === undefined),
      ),
    ).toBe(true);
    for (const [i, want] of samples) expect(withoutVisits(links[i] as SourceLink)).toEqual(want);
    const listed = fake.requestsOf("links");
    expect(listed.map((r) => r.page)).toEqual(Array.from({ length: pages }, (_, k) => k + 1));
    expect(listed.every((r) => r.status === 200)).toBe(true);
  });

  it("waits for Retry-After on a rate-limited page and goes on", async () => {
    fake.rateLimitOnce(2, "1");
    const src = source();
    const first = await src.page(null);
    const started = performance.now();
    const second = await src.page(first.next);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(990);
    expect(waited).toBeLessThan(5_000);
    expect(second.links[0]?.source_id).toBe(id(perPage));
    expect(
      fake
        .requestsOf("links")
        .filter((r) => r.page === 2)
        .map((r) => r.status),
    ).toEqual([429, 200]);
  });

  it("a server error mid-way is transient; reading again from the last cursor loses and repeats nothing", async () => {
    fake.failFrom(2);
    const src = source();
    const first = await src.page(null);
    const e = await failure(src.page(first.next));
    expect(e.transient).toBe(true);
    expect(e.message).toContain("answered 500");
    expect(e.message).not.toContain(fake.token);
    fake.failFrom(null);
    const rest = await readAll(src, first.next);
    expect([...first.links, ...rest.links].map((l) => l.source_id)).toEqual(allIds);
  });

  it("malformed JSON and a wrong shape are SourceErrors saying what was wrong", async () => {
    fake.malformedOn(2);
    const src = source();
    const first = await src.page(null);
    const bad = await failure(src.page(first.next));
    expect(bad.message).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\S* answered something that is not valid JSON \(\d+ bytes, application\/json\)$/);
    fake.malformedOn(null);
    fake.wrongShapeOn(2);
    const shape = await failure(src.page(first.next));
    expect(shape.message).toMatch(new RegExp(`^${title} answered in an unexpected shape: `));
    fake.wrongShapeOn(null);
    expect((await src.page(first.next)).links[0]?.source_id).toBe(id(perPage));
  });

  it("a wrong token is refused for good, and the error names neither token", async () => {
    const e = await failure(source("not-the-token").page(null));
    expect(e.transient).toBe(false);
    expect(e.message).toMatch(/^the source refused the token \((401|403) from http:\/\/127\.0\.0\.1:\d+\//);
    expect(e.message).not.toContain("not-the-token");
    expect(e.message).not.toContain(fake.token);
  });

  it('a link without its URL is kept with url "" and a note (the job reports that line)', async () => {
    fake.breakLink(2);
    const { links } = await readAll(source());
    expect(links.length).toBe(N);
    expect(links[2]).toMatchObject({ source_id: id(2), url: "", notes: [expect.stringContaining("the source gave no destination URL")] });
    expect(links[3]?.url).not.toBe("");
  });
});

describe("source specifics", () => {
  const http = createSourceFetch({ check, allowPrivate: true });
  afterAll(() => http.close());

  it("Shlink: visits page by page, newest first, with location, referrer and the bot flag", async () => {
    const fake = await startFakeSource("shlink", { links: 3, visitsPerLink: (i) => (i === 1 ? 1201 : 0) });
    try {
      const { links } = await readAll(API_SOURCES.shlink({ base_url: fake.baseUrl, token: fake.token }, http));
      expect(links[0]?.visits).toBeUndefined();
      const pages = [];
      for await (const page of links[1]!.visits!()) pages.push(page);
      expect(pages.map((p) => p.length)).toEqual([500, 500, 201]);
      const all = pages.flat();
      expect(all[0]).toEqual({
        at: T0 + H + 1201 * 60_000,
        referrer: "https://ref.example/0",
        user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
        bot: false,
        country: "DE",
        region: "Berlin",
        city: "Berlin",
      });
      expect(all[1]).toEqual({ at: T0 + H + 1200 * 60_000, referrer: null, user_agent: "curl/8.4.0", bot: false });
      expect(all[5]).toMatchObject({ at: T0 + H + 1196 * 60_000, referrer: null, bot: true });
      expect(all[5]?.user_agent).toContain("iPhone");
      expect(all.filter((v) => v.bot).length).toBe(Math.floor(1201 / 13));
      const asked = fake.requestsOf("visits");
      expect(asked.map((r) => [r.path, r.query.page, r.query.domain])).toEqual([1, 2, 3].map((p) => ["/rest/v3/short-urls/s1/visits", String(p), undefined]));
    } finally {
      await fake.close();
    }
  });

  it("Bitly: every group in turn, archived links included, a click summary per link", async () => {
    const fake = await startFakeSource("bitly", { links: 150, groups: 2 });
    try {
      const { links, totals } = await readAll(API_SOURCES.bitly({ base_url: fake.baseUrl, token: fake.token }, http));
      expect(links.map((l) => l.source_id)).toEqual(Array.from({ length: 150 }, (_, i) => `bit.ly/b${i}`));
      expect(totals).toEqual([null, null]);
      expect(links.map((l) => l.clicks_total)).toEqual(Array.from({ length: 150 }, (_, i) => i * 3));
      expect(fake.requestsOf("links").map((r) => [r.path, r.query.archived])).toEqual([
        ["/v4/groups/Bgroup0/bitlinks", "both"],
        ["/v4/groups/Bgroup1/bitlinks", "both"],
      ]);
      expect(fake.requestsOf("groups").length).toBe(1);
      expect(fake.requestsOf("clicks").map((r) => r.query)).toContainEqual({ unit: "day", units: "-1" });
      const one = await readAll(API_SOURCES.bitly({ base_url: fake.baseUrl, token: fake.token, group: "Bgroup1" }, http));
      expect(one.links.map((l) => l.source_id)).toEqual(Array.from({ length: 75 }, (_, i) => `bit.ly/b${75 + i}`));
      expect(one.totals).toEqual([75]);
    } finally {
      await fake.close();
    }
  });

  it("a saved cursor that is not the source's own is refused", async () => {
    const src = API_SOURCES.kutt({ base_url: "http://127.0.0.1:9", token: "t" }, http);
    const e = await failure(src.page('{"page": 2}'));
    expect(e).toMatchObject({ transient: false, message: "Kutt: the saved position of the import is unreadable; start the import again" });
    const b = await failure(
      API_SOURCES.bitly({ base_url: "http://127.0.0.1:9", token: "t" }, http).page(JSON.stringify({ groups: ["g"], g: 0, next: "http://evil.test/v4/x" })),
    );
    expect(b.transient).toBe(false);
  });

  it("self-hosted sources need a base address; every source needs a token", () => {
    expect(() => API_SOURCES.shlink({ token: "t" }, http)).toThrow("Shlink: the API's base address is required");
    expect(() => API_SOURCES.dub({}, http)).toThrow("Dub: the API token is required");
  });

  it("no error message of these tests carries a token", () => {
    expect(messages.length).toBeGreaterThan(10);
    for (const t of tokens) expect(messages.filter((m) => m.includes(t))).toEqual([]);
  });
});
