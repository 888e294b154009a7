// Fresh reads: a click shows in click_count (get, list, after an edit) and in every statistic
// within one second of its 302, whatever the roll-ups hold back, idle and under a concurrent load; a
// read never counts a click twice while roll-ups are being written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { UA, visit } from "../helpers/visit.js";
import { storedClicks } from "../helpers/links.js";
import { within as poll } from "../helpers/wait.js";

/** Polls `probe` until it returns `want` or `ms` pass; returns the value and when it was first seen. */
async function within<T>(ms: number, probe: () => Promise<T>, want: T): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await poll(ms, probe, (v) => v === want);
  return { value, ms: Date.now() - started };
}

const visits: Array<[string, Record<string, string>]> = [
  [UA.iphone, { referer: "https://news.example.org/a" }],
  [UA.iphone, {}],
  [UA.windows, { referer: "https://news.example.org/b" }],
  [UA.android, {}],
  [UA.googlebot, {}],
  [UA.ipad, { referer: "https://mail.example.com/" }],
  [UA.windows, {}],
];

/** Every read of one link's clicks: get, list, stats (total, range, daily, each breakdown). */
async function reads(c: ApiClient, id: string) {
  const [get, list, stats] = await Promise.all([c.get(`/api/links/${id}`), c.get("/api/links?limit=100"), c.get(`/api/links/${id}/stats`)]);
  const sum = (rows: Array<{ clicks: number }>) => rows.reduce((n, r) => n + r.clicks, 0);
  return {
    get: get.body.link.click_count as number,
    list: (list.body.links as Array<{ id: string; click_count: number }>).find((l) => l.id === id)?.click_count,
    total: stats.body.total_clicks as number,
    range: stats.body.range_clicks as number,
    daily: sum(stats.body.daily),
    countries: sum(stats.body.countries),
    devices: sum(stats.body.devices),
    browsers: sum(stats.body.browsers),
    os: sum(stats.body.os),
    referrers: sum(stats.body.referrers),
    stats: stats.body,
  };
}

const every = (n: number) => ({ get: n, list: n, total: n, range: n, daily: n, countries: n, devices: n, browsers: n, os: n, referrers: n });
const counts = (r: Awaited<ReturnType<typeof reads>>) => ({ ...r, stats: undefined });

describe.each(
  ENGINES.flatMap((engine) => (engine === "sqlite" ? (["worker", "inline"] as const) : (["worker"] as const)).map((writer) => [engine, writer] as const)),
)("fresh click reads on %s (%s writer)", (engine, writer) => {
  describe("idle, roll-ups held back for 10 minutes", () => {
    let server: TestServer;
    let pro: ApiClient;
    beforeAll(async () => {
      server = await startTestServer({ engine, env: { CLICK_ROLLUP_MS: "600000", CLICK_WRITER: writer } });
      pro = await signedInClient(server, `idle-${writer}@example.com`, "pro");
    });
    afterAll(async () => server?.close());

    it("N visits show as N in get, list, every statistic and after an edit within a second", async () => {
      const r = await pro.post("/api/links", { url: "https://example.com/fresh", alias: `fresh-${writer}` });
      const id = r.body.link.id as string;
      for (const [ua, extra] of visits) expect(await visit(server.url, `/fresh-${writer}`, { "user-agent": ua, ...extra })).toBe(302);
      const answered = Date.now();
      const seen = await within(1000, async () => JSON.stringify(counts(await reads(pro, id))), JSON.stringify(every(visits.length)));
      expect(JSON.parse(seen.value)).toEqual(every(visits.length));
      expect(Date.now() - answered).toBeLessThan(1000 + 300);
      const s = (await reads(pro, id)).stats;
      // Visitors too (one address: one per agent; a visitor under the referrer of its first visit), written or not.
      expect(s.devices).toEqual([
        { device: "mobile", clicks: 3, visitors: 2 },
        { device: "desktop", clicks: 2, visitors: 1 },
        { device: "bot", clicks: 1, visitors: 1 },
        { device: "tablet", clicks: 1, visitors: 1 },
      ]);
      expect(s.referrers).toEqual([
        { referrer: "direct", clicks: 4, visitors: 2 },
        { referrer: "news.example.org", clicks: 2, visitors: 2 },
        { referrer: "mail.example.com", clicks: 1, visitors: 1 },
      ]);
      expect(s.bots).toBe(1);
      expect(s.daily.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), clicks: visits.length, visitors: 5, qr: 0 });
      // The last 24 hours, counted from the raw clicks, show the same clicks (in the current hour or, just past an hour's end, the one before).
      const day = (await pro.get(`/api/links/${id}/stats?range=24h`)).body;
      expect(day.range_clicks).toBe(visits.length);
      expect(day.hourly.slice(0, 22).every((h: { clicks: number }) => h.clicks === 0)).toBe(true);
      expect(day.hourly.at(-1).clicks + day.hourly.at(-2).clicks).toBe(visits.length);
      expect(day.devices).toEqual(s.devices);
      expect(day.bots).toBe(1);
      // Held back: the roll-up has not been written (the count comes from the writer's memory on SQLite).
      if (engine === "sqlite") {
        const row = await server.ctx.storage.db.selectFrom("links").select("click_count").where("id", "=", id).executeTakeFirstOrThrow();
        expect(Number(row.click_count)).toBe(0);
      }
      const edited = await pro.patch(`/api/links/${id}`, { url: "https://example.com/fresh-2" });
      expect(edited.body.link.click_count).toBe(visits.length);
      // Once rolled up, the same figures, nothing counted twice.
      await server.ctx.clicks.flush();
      expect(counts(await reads(pro, id))).toEqual(every(visits.length));
      expect((await reads(pro, id)).stats.devices).toEqual(s.devices);
      expect(await storedClicks(server, id)).toBe(visits.length);
    });
  });

  describe("under a concurrent load, roll-ups written all the time", () => {
    let server: TestServer;
    let pro: ApiClient;
    beforeAll(async () => {
      // Roll-ups every 20 ms: reads keep meeting roll-ups being written (a count held back and stored at once would show twice).
      server = await startTestServer({ engine, env: { CLICK_ROLLUP_MS: "20", CLICK_WRITER: writer } });
      pro = await signedInClient(server, `load-${writer}@example.com`, "pro");
    });
    afterAll(async () => server?.close());

    it("reads never run ahead of the visits answered, and catch up within a second", async () => {
      const made = await Promise.all(
        Array.from({ length: 40 }, (_, i) => pro.post("/api/links", { url: `https://example.com/bg/${i}`, alias: `bg-${writer}-${i}` })),
      );
      const target = await pro.post("/api/links", { url: "https://example.com/target", alias: `target-${writer}` });
      const id = target.body.link.id as string;
      expect(made.every((m) => m.status === 201)).toBe(true);
      let loading = true;
      let background = 0;
      // The load: 8 connections over 40 links, until the end of the test.
      const load = Promise.all(
        Array.from({ length: 8 }, async (_, c) => {
          for (let i = c; loading; i += 8) {
            expect(await visit(server.url, `/bg-${writer}-${i % 40}`, { "user-agent": UA.windows })).toBe(302);
            background++;
          }
        }),
      );
      let answered = 0;
      const lags: number[] = [];
      try {
        for (let round = 0; round < 4; round++) {
          for (let i = 0; i < 15; i++) {
            const [ua, extra] = visits[i % visits.length]!;
            expect(await visit(server.url, `/target-${writer}`, { "user-agent": ua, ...extra })).toBe(302);
            answered++;
            // Mid-way, one read: never more than answered.
            if (i % 5 === 0) {
              const r = await reads(pro, id);
              for (const [k, v] of Object.entries(counts(r))) if (k !== "stats") expect(v, k).toBeLessThanOrEqual(answered);
            }
          }
          const seen = await within(1000, async () => JSON.stringify(counts(await reads(pro, id))), JSON.stringify(every(answered)));
          expect(JSON.parse(seen.value)).toEqual(every(answered));
          lags.push(seen.ms);
        }
      } finally {
        loading = false;
        await load;
      }
      expect(background).toBeGreaterThan(100);
      console.log(`${engine} ${writer}: lags ${lags.join(", ")} ms, ${background} background visits`);
      expect(Math.max(...lags)).toBeLessThan(1000);
      await server.ctx.clicks.flush();
      expect(counts(await reads(pro, id))).toEqual(every(answered));
    });
  });
});
