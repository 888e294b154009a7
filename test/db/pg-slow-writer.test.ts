// PostgreSQL up but slower than the redirects (issue 44): a statement trigger sleeps on every insert into
// clicks, the load runs past CLICK_MEMORY_MAX, and the clicks past it live in the click journal alone
// until the writer catches up. Every 302 answered is a click stored, exactly: with one instance, with
// two on one database, and with a SIGKILL in the middle (the next start replays the journal). Reads stay
// exact meanwhile (what only the journal holds is read back from it). Without a journal the clicks past
// memory are dropped, and each one is counted in /metrics and logged.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { spawnServe } from "../helpers/serve.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { loops } from "../helpers/load.js";
import { UA, visit } from "../helpers/visit.js";
import { waitFor } from "../helpers/wait.js";
import { openStorage } from "../../src/storage/db.js";
import type { Db } from "../../src/storage/db.js";

const LINKS = 300;
const EMAIL = "slow@example.com";
const METRICS_TOKEN = "slow-writer-metrics-0123456789";
/** The lowest CLICK_MEMORY_MAX: a few batches of this load. */
const MEMORY = { CLICK_MEMORY_MAX: "1000", CLICK_FLUSH_MS: "100", METRICS_TOKEN };
/** Per click row inserted: the writer stores about 1,000 clicks a second at best, less than the load brings. */
const SLEEP_S = 0.001;

async function count(db: Db, q: string): Promise<number> {
  return Number((await sql<{ n: number | string | null }>`${sql.raw(q)}`.execute(db)).rows[0]?.n ?? 0);
}

/** Every row inserted into clicks waits SLEEP_S. */
async function slowDown(db: Db): Promise<void> {
  await sql
    .raw(`CREATE OR REPLACE FUNCTION snip_test_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(${SLEEP_S}); RETURN NEW; END $$`)
    .execute(db);
  await sql`CREATE TRIGGER snip_test_slow BEFORE INSERT ON clicks FOR EACH ROW EXECUTE FUNCTION snip_test_slow()`.execute(db);
}

/**
 * Inserts into clicks fast again, while the writers insert: the trigger's function is replaced, which locks nothing of
 * clicks. A DROP TRIGGER there locks clicks and each partition, against the writers' inserts into them (a deadlock, once in CI).
 */
async function speedUp(db: Db): Promise<void> {
  await sql`CREATE OR REPLACE FUNCTION snip_test_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`.execute(db);
}

/** Links slow-1..slow-LINKS, straight into the database (owned by `owner`). */
async function seedLinks(db: Db, owner: string): Promise<void> {
  await sql`INSERT INTO links (id, domain, alias, url, owner_id, click_count, created_at, updated_at)
    SELECT 'slow_' || g, '', 'slow-' || g, 'https://example.com/' || g, ${owner}, 0, 0, 0 FROM generate_series(1, ${LINKS}) g`.execute(db);
}

/** The loads started and not yet stopped: a failed test's load must not go on into the next test's servers (a port may be reused). */
const running: Array<{ stop(): Promise<void> }> = [];

/**
 * Visits spread over the links (link 1 one in four) in `n` parallel loops against `bases`; counts the
 * 302s per path, and the other answers (a refused connection, once a server is killed, is 0).
 * `inFlight()`: the paths of the visits sent and not answered yet (one per loop at most).
 */
function load(bases: string[], n = 12): { answered: Map<string, number>; others: number[]; inFlight(): string[]; stop(): Promise<void> } {
  const answered = new Map<string, number>();
  const others: number[] = [];
  const sent = new Map<number, string>();
  const l = loops(n, async (loop, i) => {
    const path = i % 4 === 0 ? "/slow-1" : `/slow-${((loop * 7919 + i * 31) % LINKS) + 1}`;
    sent.set(loop, path);
    const status = await visit(bases[(loop + i) % bases.length]!, path, { "user-agent": UA.windows }).catch(() => 0);
    sent.delete(loop);
    if (status === 302) answered.set(path, (answered.get(path) ?? 0) + 1);
    else {
      others.push(status);
      if (status === 0) await new Promise((r) => setTimeout(r, 20));
    }
  });
  running.push(l);
  return { answered, others, inFlight: () => [...sent.values()], stop: () => l.stop() };
}

/** One metric's value from /metrics. */
async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.split(" ")[1]);
}

function total(m: Map<string, number>): number {
  let n = 0;
  for (const v of m.values()) n += v;
  return n;
}

describe.runIf(process.env.TEST_DATABASE_URL)("PostgreSQL slower than the redirects", () => {
  let db: TestDatabase;
  let peek: Awaited<ReturnType<typeof openStorage>>;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    const setup = await startTestServer({ databaseUrl: db.databaseUrl });
    await signedInClient(setup, EMAIL, "business");
    const owner = await setup.ctx.storage.db.selectFrom("users").select("id").where("email", "=", EMAIL).executeTakeFirstOrThrow();
    await seedLinks(setup.ctx.storage.db, owner.id);
    await setup.close();
    peek = await openStorage({ kind: "postgres", url: db.databaseUrl as string });
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) await s.close();
    await peek?.close();
    await db?.drop();
  });

  async function start(env: Record<string, string> = MEMORY, dataDir?: string): Promise<TestServer> {
    const s = await startTestServer({ databaseUrl: db.databaseUrl, env, dataDir });
    servers.push(s);
    return s;
  }

  /** Stops the servers of the test before (a failed one leaves them running), empties the click tables and counts (the links stay), then slows the writes down. */
  async function slowFromScratch(): Promise<void> {
    const d = peek.db;
    for (const l of running.splice(0)) await l.stop();
    for (const s of servers.splice(0)) await s.close();
    // Nothing writes now: the trigger can go.
    await sql`DROP TRIGGER IF EXISTS snip_test_slow ON clicks`.execute(d);
    await sql`TRUNCATE clicks, click_daily, click_hourly, click_breakdown, click_breakdown_month, owner_daily, owner_hourly, owner_breakdown, owner_breakdown_month, click_visitors, click_journal`.execute(
      d,
    );
    await sql`UPDATE links SET click_count = 0, last_click_at = NULL`.execute(d);
    await slowDown(d);
  }

  /**
   * Every 302 answered is one click stored: raw rows, counts and roll-ups. After a SIGKILL, `inFlight`
   * holds the visits sent and not answered when it came: each may have been journaled with its answer
   * lost (as in click-journal-crash.test.ts), so a link's count is its 302s plus at most its visits in flight.
   */
  async function expectStored(answered: Map<string, number>, inFlight: string[] = []): Promise<void> {
    const d = peek.db;
    const n = total(answered);
    expect(n).toBeGreaterThan(1000);
    const stored = await count(d, "SELECT count(*) AS n FROM clicks");
    const rows = await sql<{ alias: string; n: number | string }>`SELECT alias, click_count AS n FROM links WHERE click_count > 0`.execute(d);
    const counted = new Map(rows.rows.map((r) => [`/${r.alias}`, Number(r.n)]));
    const beyond: string[] = [];
    for (const path of new Set([...counted.keys(), ...answered.keys()])) {
      const [c, a] = [counted.get(path) ?? 0, answered.get(path) ?? 0];
      if (c < a || c - a > inFlight.filter((p) => p === path).length) beyond.push(`${path}: ${c} stored, ${a} answered`);
    }
    expect(beyond).toEqual([]);
    expect(stored - n).toBeGreaterThanOrEqual(0);
    expect(stored - n).toBeLessThanOrEqual(inFlight.length);
    expect(await count(d, "SELECT sum(click_count) AS n FROM links")).toBe(stored);
    expect(await count(d, "SELECT sum(clicks) AS n FROM click_daily")).toBe(stored);
    expect(await count(d, "SELECT sum(clicks) AS n FROM owner_daily")).toBe(stored);
  }

  it("one instance: clicks past memory wait in the journal, reads stay exact, every 302 is stored", { timeout: 180_000 }, async () => {
    await slowFromScratch();
    const s = await start();
    const l = load([s.url]);
    await waitFor(() => s.ctx.clicks.backlog().spilled >= 5000 || null, { timeoutMs: 60_000 });
    expect(s.ctx.clicks.backlog().journalBytes).toBeGreaterThan(0);
    // /metrics shows it while the writer is behind (on a loaded machine the scrape itself can take long
    // enough for the writer to catch up with a slowed load meanwhile: asked again until it shows).
    await waitFor(async () => ((await metric(s.url, "snip_clicks_journal_only")) > 0 && (await metric(s.url, "snip_click_journal_bytes")) > 0) || null, {
      timeoutMs: 60_000,
    });
    await l.stop();
    expect(l.others).toEqual([]);
    const behind = s.ctx.clicks.backlog();
    expect(behind.spilled).toBeGreaterThan(0);

    // A read while the writer is behind counts every click answered, those only on disk included.
    const api = new ApiClient(s.url);
    expect((await api.login(EMAIL)).status).toBe(200);
    const r = await api.get("/api/links/slow_1");
    expect(r.status, r.text).toBe(200);
    expect(r.body.link.click_count).toBe(l.answered.get("/slow-1"));

    await speedUp(peek.db);
    await waitFor(() => (s.ctx.clicks.pending === 0 ? true : null), { timeoutMs: 120_000 });
    expect(s.ctx.clicks.counts.dropped).toBe(0);
    expect(await metric(s.url, "snip_clicks_dropped_total")).toBe(0);
    expect(s.ctx.clicks.backlog()).toMatchObject({ pending: 0, spilled: 0, journalBytes: 0 });
    await expectStored(l.answered);
  });

  it("two instances on one database: every 302 of either is stored once", { timeout: 180_000 }, async () => {
    await slowFromScratch();
    const a = await start();
    const b = await start();
    const l = load([a.url, b.url], 16);
    await waitFor(() => (a.ctx.clicks.backlog().spilled > 0 && b.ctx.clicks.backlog().spilled > 0) || null, { timeoutMs: 60_000 });
    await l.stop();
    expect(l.others).toEqual([]);
    await speedUp(peek.db);
    await waitFor(() => (a.ctx.clicks.pending + b.ctx.clicks.pending === 0 ? true : null), { timeoutMs: 120_000 });
    expect(a.ctx.clicks.counts.dropped + b.ctx.clicks.counts.dropped).toBe(0);
    await expectStored(l.answered);
  });

  it("SIGKILL while clicks wait in the journal: the next start writes every one", { timeout: 300_000 }, async () => {
    await slowFromScratch();
    const dataDir = mkdtempSync(join(tmpdir(), "snip-slow-kill-"));
    const serve = await spawnServe({ DATA_DIR: dataDir, DATABASE_URL: db.databaseUrl as string, ...MEMORY });
    const l = load([serve.url]);
    await waitFor(async () => ((await metric(serve.url, "snip_clicks_journal_only")) > 0 ? true : null), { timeoutMs: 60_000 });
    const inFlight = l.inFlight();
    serve.child.kill("SIGKILL");
    await serve.exited;
    await l.stop();
    // Only refused connections after the kill: everything else was a 302.
    expect(l.others.filter((st) => st !== 0)).toEqual([]);
    await speedUp(peek.db);
    // Fewer stored than answered so far: the rest is in the dead process's journal.
    expect(await count(peek.db, "SELECT count(*) AS n FROM clicks")).toBeLessThan(total(l.answered));
    const next = await start({}, dataDir);
    await next.close();
    await expectStored(l.answered, inFlight);
  });

  it("without a journal, clicks past memory are dropped, each counted in /metrics and logged with its count", { timeout: 180_000 }, async () => {
    await slowFromScratch();
    const lines: Array<{ msg?: string; dropped?: number; droppedTotal?: number }> = [];
    const log = pino({ level: "error" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const s = await startTestServer({ databaseUrl: db.databaseUrl, env: { ...MEMORY, CLICK_JOURNAL: "off" }, log });
    servers.push(s);
    const l = load([s.url]);
    await waitFor(() => s.ctx.clicks.counts.dropped > 0 || null, { timeoutMs: 60_000 });
    await l.stop();
    await speedUp(peek.db);
    await waitFor(() => (s.ctx.clicks.pending === 0 ? true : null), { timeoutMs: 120_000 });
    const dropped = s.ctx.clicks.counts.dropped;
    expect(await metric(s.url, "snip_clicks_dropped_total")).toBe(dropped);
    const logged = lines.filter((x) => x.msg?.startsWith("click buffer full"));
    expect(logged.reduce((n, x) => n + (x.dropped ?? 0), 0)).toBe(dropped);
    expect(logged.at(-1)?.droppedTotal).toBe(dropped);
    expect(await count(peek.db, "SELECT count(*) AS n FROM clicks")).toBe(total(l.answered) - dropped);
  });
});
