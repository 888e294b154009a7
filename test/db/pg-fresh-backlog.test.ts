// Fresh reads on PostgreSQL when the click writer falls behind: a click this instance answered shows in
// click_count and every statistic within a second although its batch is not committed (in the buffer,
// queued for the writer, or inside it, blocked), is never counted twice once the batch commits, and
// every read under a load of commits shows no fewer clicks than were answered before it began and no
// more than were sent before it ended.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { UA, visit } from "../helpers/visit.js";
import { linkNum } from "../helpers/links.js";
import { waitFor, within } from "../helpers/wait.js";

/** Every read of one link's clicks (get, list, stats), as numbers; `devices` etc. are the breakdowns' sums. */
async function reads(c: ApiClient, id: string) {
  const [get, list, stats] = await Promise.all([c.get(`/api/links/${id}`), c.get("/api/links?limit=100"), c.get(`/api/links/${id}/stats`)]);
  const sum = (rows: Array<{ clicks: number }>) => rows.reduce((n, r) => n + r.clicks, 0);
  return {
    counts: {
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
    },
    stats: stats.body,
  };
}

const every = (n: number) => ({ get: n, list: n, total: n, range: n, daily: n, countries: n, devices: n, browsers: n, os: n, referrers: n });

/** Polls until every read shows `n`, at most `ms`; returns the last read and how long it took. */
async function showing(c: ApiClient, id: string, n: number, ms: number) {
  const started = Date.now();
  const r = await within(
    ms,
    () => reads(c, id),
    (x) => JSON.stringify(x.counts) === JSON.stringify(every(n)),
  );
  return { ...r, ms: Date.now() - started };
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

/** The raw clicks and counts committed, as another connection sees them. */
async function committed(client: pg.Client, id: string, num: number): Promise<{ raw: number; count: number; daily: number }> {
  const raw = await client.query<{ n: string }>("SELECT count(*) AS n FROM clicks WHERE link_num = $1", [num]);
  const count = await client.query<{ n: string }>("SELECT click_count AS n FROM links WHERE id = $1", [id]);
  const daily = await client.query<{ n: string | null }>("SELECT sum(clicks) AS n FROM click_daily WHERE link_id = $1", [id]);
  return { raw: Number(raw.rows[0]!.n), count: Number(count.rows[0]!.n), daily: Number(daily.rows[0]!.n ?? 0) };
}

/**
 * Whether a session of the database (the click writer's) is waiting for a lock. The client asking holds
 * the lock inside a transaction, where PostgreSQL would answer every poll from the transaction's first
 * snapshot of pg_stat_activity: the snapshot is dropped first.
 */
async function blockedOnLock(client: pg.Client): Promise<boolean> {
  await client.query("SELECT pg_stat_clear_snapshot()");
  const r = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
  return Number(r.rows[0]!.n) > 0;
}

// The worker thread with the click journal (the default), and the main-thread writer without a journal.
const SETUPS = [
  { writer: "worker", journal: "on" },
  { writer: "inline", journal: "off" },
] as const;

describe.skipIf(!process.env.TEST_DATABASE_URL)("fresh reads on PostgreSQL with clicks not committed yet", () => {
  describe.each(SETUPS)("writer behind the load ($writer writer, journal $journal)", ({ writer, journal }) => {
    let server: TestServer;
    let pro: ApiClient;
    beforeAll(async () => {
      server = await startTestServer({ engine: "postgres", env: { CLICK_WRITER: writer, CLICK_JOURNAL: journal, CLICK_FLUSH_MS: "50" } });
      pro = await signedInClient(server, `backlog-${writer}@example.com`, "pro");
    });
    afterAll(async () => server?.close());

    it("clicks whose batch is blocked show within a second, and once after the commit", async () => {
      const link = await pro.post("/api/links", { url: "https://example.com/backlog", alias: `backlog-${writer}` });
      const limited = await pro.post("/api/links", { url: "https://example.com/limited", alias: `limited-${writer}`, max_clicks: 1000 });
      expect([link.status, limited.status]).toEqual([201, 201]);
      const id = link.body.link.id as string;
      const limitedId = limited.body.link.id as string;
      const num = await linkNum(server, id);

      const locker = new pg.Client({ connectionString: server.databaseUrl });
      await locker.connect();
      let locked = false;
      try {
        // The writer's next batch blocks on its roll-up (after locking its links and inserting its raw clicks).
        await locker.query("BEGIN");
        await locker.query("LOCK TABLE click_daily IN EXCLUSIVE MODE");
        locked = true;

        // A first round: sealed and handed to the writer (which blocks on the lock) ...
        for (const [ua, extra] of visits) expect(await visit(server.url, `/backlog-${writer}`, { "user-agent": ua, ...extra })).toBe(302);
        for (let i = 0; i < 3; i++) expect(await visit(server.url, `/limited-${writer}`, { "user-agent": UA.windows })).toBe(302);
        await waitFor(() => blockedOnLock(locker), { what: "the writer's batch blocked on the roll-up lock" });
        // ... then a second: in the recorder's buffer, queued behind the blocked batch.
        for (const [ua, extra] of visits.slice(0, 5)) expect(await visit(server.url, `/backlog-${writer}`, { "user-agent": ua, ...extra })).toBe(302);
        const n = visits.length + 5;
        const answered = Date.now();

        const seen = await showing(pro, id, n, 1000);
        expect(seen.counts).toEqual(every(n));
        expect(Date.now() - answered).toBeLessThan(1000 + 300);
        const s = seen.stats;
        // Visitors of clicks not committed (one address: one per agent, under its first click's values), each once across both rounds.
        expect(s.devices).toEqual([
          { device: "mobile", clicks: 6, visitors: 2 },
          { device: "desktop", clicks: 3, visitors: 1 },
          { device: "bot", clicks: 2, visitors: 1 },
          { device: "tablet", clicks: 1, visitors: 1 },
        ]);
        expect(s.referrers).toEqual([
          { referrer: "direct", clicks: 7, visitors: 2 },
          { referrer: "news.example.org", clicks: 4, visitors: 2 },
          { referrer: "mail.example.com", clicks: 1, visitors: 1 },
        ]);
        expect(s.countries).toEqual([{ country: "unknown", clicks: n, visitors: 5 }]);
        expect(s.bots).toBe(2);
        expect(s.daily.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), clicks: n, visitors: 5, qr: 0 });
        // Counted as served (the click limit) and not added again from the pending clicks; its statistics are.
        const lim = await showing(pro, limitedId, 3, 1000);
        expect(lim.counts).toEqual(every(3));

        // The writer really is behind: still blocked on the lock, nothing of it committed yet.
        expect(await blockedOnLock(locker)).toBe(true);
        expect(await committed(locker, id, num)).toEqual({ raw: 0, count: 0, daily: 0 });
        expect((await reads(pro, id)).counts).toEqual(every(n));
        // The last 24 hours by hour: none of these clicks is in the raw table yet, all come from memory.
        const day = (await pro.get(`/api/links/${id}/stats?range=24h`)).body;
        expect(day.range_clicks).toBe(n);
        expect(day.hourly.reduce((k: number, h: { clicks: number }) => k + h.clicks, 0)).toBe(n);
        expect(day.hourly.slice(0, 22).every((h: { clicks: number }) => h.clicks === 0)).toBe(true);
        expect(day.devices).toEqual(s.devices);

        // Released: the batches commit while reads go on; no read shows a click twice or misses one.
        await locker.query("ROLLBACK");
        locked = false;
        // At least 1.5 s, and at least 4 reads however slow the machine (10 s at most).
        const until = Date.now() + 1500;
        const cap = Date.now() + 10_000;
        let reads_ = 0;
        while (Date.now() < until || (reads_ <= 3 && Date.now() < cap)) {
          const [r, l] = await Promise.all([reads(pro, id), reads(pro, limitedId)]);
          expect(r.counts).toEqual(every(n));
          expect(l.counts).toEqual(every(3));
          reads_++;
        }
        // Once committed, the writer counted the same visitors as the reads of its uncommitted clicks did.
        await server.ctx.clicks.flush();
        expect((await reads(pro, id)).stats.countries).toEqual([{ country: "unknown", clicks: n, visitors: 5 }]);
        expect(reads_).toBeGreaterThan(3);
        await server.ctx.clicks.flush();
        expect(await committed(locker, id, num)).toEqual({ raw: n, count: n, daily: n });
        expect((await reads(pro, id)).counts).toEqual(every(n));
        expect((await reads(pro, id)).stats.devices).toEqual(s.devices);
        // Committed: from the raw table now, the same hours, none twice.
        const after = (await pro.get(`/api/links/${id}/stats?range=24h`)).body;
        expect([after.range_clicks, after.hourly, after.devices]).toEqual([n, day.hourly, s.devices]);
        // After an edit, the same.
        const edited = await pro.patch(`/api/links/${id}`, { url: "https://example.com/backlog-2" });
        expect(edited.body.link.click_count).toBe(n);
      } finally {
        if (locked) await locker.query("ROLLBACK");
        await locker.end();
      }
    });

    it("reads racing with commits under a load show every click answered, none twice", async () => {
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, i) => pro.post("/api/links", { url: `https://example.com/bg/${i}`, alias: `race-bg-${writer}-${i}` })),
      );
      expect(made.every((m) => m.status === 201)).toBe(true);
      const target = await pro.post("/api/links", { url: "https://example.com/race", alias: `race-${writer}` });
      const id = target.body.link.id as string;
      let loading = true;
      /** Visits of the target sent, and answered (302 received). */
      let sent = 0;
      let answered = 0;
      let background = 0;
      const load = Promise.all([
        // The background: 4 connections over 20 links (batches commit every CLICK_FLUSH_MS).
        ...Array.from({ length: 4 }, async (_, c) => {
          for (let i = c; loading; i += 4) {
            expect(await visit(server.url, `/race-bg-${writer}-${i % 20}`, { "user-agent": UA.windows })).toBe(302);
            background++;
          }
        }),
        // The target: 2 connections.
        ...Array.from({ length: 2 }, async (_, c) => {
          for (let i = c; loading; i += 2) {
            const [ua, extra] = visits[i % visits.length]!;
            sent++;
            expect(await visit(server.url, `/race-${writer}`, { "user-agent": ua, ...extra })).toBe(302);
            answered++;
          }
        }),
      ]);
      let checked = 0;
      try {
        // At least 4 s, and then until enough reads raced with enough visits (a loaded machine is slower; 30 s at most).
        const until = Date.now() + 4000;
        const cap = Date.now() + 30_000;
        while (Date.now() < until || ((checked <= 10 || answered <= 50 || background <= 100) && Date.now() < cap)) {
          const lo = answered;
          const r = await reads(pro, id);
          const hi = sent;
          for (const [k, v] of Object.entries(r.counts)) {
            expect(v, `${k} after ${lo} answered`).toBeGreaterThanOrEqual(lo);
            expect(v, `${k} with ${hi} sent`).toBeLessThanOrEqual(hi);
          }
          checked++;
        }
      } finally {
        loading = false;
        await load;
      }
      console.log(`${writer}: ${checked} reads, ${answered} target visits, ${background} background visits`);
      expect(checked).toBeGreaterThan(10);
      expect(answered).toBeGreaterThan(50);
      expect(background).toBeGreaterThan(100);
      expect((await reads(pro, id)).counts).toEqual(every(answered));
      await server.ctx.clicks.flush();
      expect((await reads(pro, id)).counts).toEqual(every(answered));
      const raw = await server.ctx.storage.db
        .selectFrom("clicks")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("link_num", "=", await linkNum(server, id))
        .executeTakeFirstOrThrow();
      expect(Number(raw.n)).toBe(answered);
    });
  });
});
