// WORKERS=2: `snip serve` as a real cluster (a primary and two HTTP workers on one port), on SQLite and
// PostgreSQL. One cluster per engine runs every check in order: an edit seen by the other worker within a
// second, the external API's hourly limit exact across workers, then a load on plain links and on a link
// limited to 100 clicks during which one worker is killed with SIGKILL (and restarted), then a SIGTERM of
// the primary. Afterwards the database, read without any replay, holds exactly the clicks answered with a 302.
import { mkdtempSync, readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { startTestServer } from "../helpers/server.js";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/engines.js";
import { type Serve, spawnServe } from "../helpers/serve.js";
import { openStorage } from "../../src/storage/db.js";
import { SESSION_COOKIE } from "../../src/accounts/sessions.js";
import { openSse } from "../helpers/sse.js";

// A cluster start through the built CLI and thousands of visits: minutes on a machine busy with parallel work.
const SLOW_TEST_MS = 300_000;
const LINKS = 10;
const CONNECTIONS = 16;
const UA = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0";

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

interface Answer {
  status: number;
  location: string | undefined;
  body: string;
}

function send(port: number, agent: Agent, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, agent, headers: { "user-agent": UA, ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    // As a real client does: a connection that the primary handed to a worker as it was killed can be left
    // without an answer; it counts as a lost connection (the load's catch), not a hang.
    req.setTimeout(15_000, () => req.destroy(new Error("no answer within 15 s")));
    req.end(body);
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The cluster's workers: the primary's children (Linux). */
function workerPids(primary: number): number[] {
  return readFileSync(`/proc/${primary}/task/${primary}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
}

interface Seeded {
  plain: string[];
  limitedId: string;
  editId: string;
  secret: string;
  cookie: string;
}

async function seed(dataDir: string, db: TestDatabase): Promise<Seeded> {
  const s = await startTestServer({ dataDir, databaseUrl: db.databaseUrl });
  const user = await s.ctx.accounts.create({ email: "workers@example.com", password: "correct horse 1", plan: "business", verified: true });
  const plain = Array.from({ length: LINKS }, (_, i) => `plain-${i}`);
  for (const alias of plain) await s.ctx.links.create(user, { url: `https://example.com/${alias}`, alias });
  const limited = await s.ctx.links.create(user, { url: "https://example.com/limited", alias: "limited", max_clicks: 100 });
  const edit = await s.ctx.links.create(user, { url: "https://example.com/old", alias: "edit-me" });
  const { secret } = await s.ctx.apiKeys.create(user, { name: "workers", scopes: ["links:create", "links:write"] });
  const cookie = `${SESSION_COOKIE}=${await s.ctx.sessions.create(user.id)}`;
  await s.stop();
  return { plain, limitedId: limited.id, editId: edit.id, secret, cookie };
}

/** What the visitors saw: each visit names itself in its referrer, so which clicks were stored is known. */
interface Load {
  answered: Set<string>;
  inFlight: Set<string>;
  limited302: number;
  limitedOther: number;
  unexpected: number;
  stop(): Promise<void>;
}

/** Visits the plain links round robin, and every fifth visit the limited link, on CONNECTIONS keep-alive connections until stopped. */
function startLoad(port: number, aliases: string[], tag = "load"): Load {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let running = true;
  let n = 0;
  const load: Load = { answered: new Set(), inFlight: new Set(), limited302: 0, limitedOther: 0, unexpected: 0, stop: async () => undefined };
  const loop = async () => {
    while (running) {
      const i = n++;
      const host = `v${i}.${tag}.example`;
      const limited = i % 5 === 0;
      load.inFlight.add(host);
      try {
        const r = await send(port, agent, "GET", limited ? "/limited" : `/${aliases[i % aliases.length]}`, { referer: `https://${host}/` });
        load.inFlight.delete(host);
        if (r.status === 302) {
          load.answered.add(host);
          if (limited) load.limited302++;
        } else if (limited && r.status === 403) load.limitedOther++;
        else load.unexpected++;
      } catch {
        // A connection to the killed worker: the visit may have been journaled without its answer leaving.
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  };
  const loops = Promise.all(Array.from({ length: CONNECTIONS }, loop));
  load.stop = async () => {
    running = false;
    await loops;
    agent.destroy();
  };
  return load;
}

async function until(what: string, ok: () => boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(ENGINES)("WORKERS=2 (%s)", (engine) => {
  let dataDir: string;
  let db: TestDatabase;
  let seeded: Seeded;
  let cluster: Serve;
  let load: Load;

  it("starts two workers on one port", { timeout: SLOW_TEST_MS }, async () => {
    dataDir = mkdtempSync(join(tmpdir(), "snip-workers-"));
    db = await createTestDatabase(engine);
    cleanup.push(() => db.drop());
    seeded = await seed(dataDir, db);
    cluster = await spawnServe({ DATA_DIR: dataDir, WORKERS: "2", CLICK_FLUSH_MS: "100", ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}) });
    cleanup.push(async () => void cluster.child.kill("SIGKILL"));
    expect(workerPids(cluster.child.pid!)).toHaveLength(2);
  });

  it("an edit through one worker is seen by the other within a second", { timeout: SLOW_TEST_MS }, async () => {
    // Round robin: of six connections, three reach each worker; each caches the link (a second visit: fast path).
    const conns = Array.from({ length: 6 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    for (const a of conns) for (let i = 0; i < 2; i++) expect((await send(cluster.port, a, "GET", "/edit-me")).location).toBe("https://example.com/old");
    const editor = new Agent({ keepAlive: true, maxSockets: 1 });
    const auth = { authorization: `Bearer ${seeded.secret}`, "content-type": "application/json" };
    const r = await send(cluster.port, editor, "PATCH", `/api/external/links/${seeded.editId}`, auth, JSON.stringify({ url: "https://example.com/new" }));
    expect(r.status, r.body).toBe(200);
    // From the edit's answer: the change is committed and published.
    const t0 = performance.now();
    const seen = await Promise.all(
      conns.map(async (a) => {
        while ((await send(cluster.port, a, "GET", "/edit-me")).location !== "https://example.com/new") {
          if (performance.now() - t0 > 5_000) return Infinity;
        }
        return performance.now() - t0;
      }),
    );
    for (const a of [...conns, editor]) a.destroy();
    expect(Math.max(...seen)).toBeLessThan(1_000);
  });

  it("the live feed: a stream open on one worker gets the clicks both workers answer", { timeout: SLOW_TEST_MS }, async () => {
    const stream = await openSse(cluster.url, "/api/analytics/live", seeded.cookie);
    try {
      await until("the stream's start", () => stream.raw().includes("retry:"), 10_000);
      // Rounds of four new connections (round robin: two to each worker) until one round's four clicks all
      // arrive: the other worker learns that the owner is watched a moment after the stream opens.
      let got: string[] = [];
      for (let round = 0; round < 10 && got.length < 4; round++) {
        const conns = Array.from({ length: 4 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
        const refs = conns.map((_, i) => `live${round}-${i}.example`);
        for (const [i, a] of conns.entries()) expect((await send(cluster.port, a, "GET", `/plain-${i}`, { referer: `https://${refs[i]}/` })).status).toBe(302);
        for (const a of conns) a.destroy();
        await new Promise((r) => setTimeout(r, 1_000));
        const seen = new Set(stream.events.filter((e) => e.event === "click").map((c) => (c.data as { referrer: string }).referrer));
        got = refs.filter((r) => seen.has(r));
      }
      expect(got).toHaveLength(4);
    } finally {
      stream.close();
    }
  });

  it("the external API's 100 per hour is exact across workers", { timeout: SLOW_TEST_MS }, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 24 });
    const auth = { authorization: `Bearer ${seeded.secret}`, "content-type": "application/json" };
    const results = await Promise.all(
      Array.from({ length: 130 }, (_, i) =>
        send(cluster.port, agent, "POST", "/api/external-create.php", auth, JSON.stringify({ url: `https://example.com/api/${i}` })),
      ),
    );
    agent.destroy();
    const tally: Record<number, number> = {};
    for (const x of results) tally[x.status] = (tally[x.status] ?? 0) + 1;
    expect(tally).toEqual({ 201: 100, 429: 30 });
  });

  it("under load a worker killed with SIGKILL is restarted and loses no answered click", { timeout: SLOW_TEST_MS }, async () => {
    load = startLoad(cluster.port, seeded.plain);
    await until("1,500 answers", () => load.answered.size >= 1_500);
    const [victim] = workerPids(cluster.child.pid!);
    process.kill(victim!, "SIGKILL");
    // The other worker takes every connection meanwhile; then the load stops (a restart on a busy machine takes seconds).
    const after = load.answered.size;
    await until("500 more answers", () => load.answered.size >= after + 500);
    await load.stop();
    await until("a new worker", () => {
      const pids = workerPids(cluster.child.pid!);
      return pids.length === 2 && !pids.includes(victim!);
    });
    // Its successor replays the dead worker's journal before it listens.
    await until("the restarted worker", () => cluster.stdout().includes("a restarted worker is listening"));
    expect(load.unexpected).toBe(0);
  });

  it("a SIGTERM of the primary drains every worker: clicks stored = 302s answered, the click limit exact", { timeout: SLOW_TEST_MS }, async () => {
    const pids = workerPids(cluster.child.pid!);
    cluster.child.kill("SIGTERM");
    expect(await cluster.exited).toBe(0);
    // No write failed on the way (a batch the one writer mistook for another's retry, for one).
    expect(
      cluster
        .stdout()
        .split("\n")
        .filter((l) => l.includes('"level":50')),
    ).toEqual([]);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    // Read as stored, without a replay: whatever the drain did not write would be missing here.
    const storage = await openStorage(db.databaseUrl ? { kind: "postgres", url: db.databaseUrl } : { kind: "sqlite", file: join(dataDir, "snip.db") });
    try {
      const refs = async (table: "clicks" | "click_staging", like: string) =>
        (await storage.db.selectFrom(table).select("referrer").where("referrer", "like", like).execute()).map((r) => r.referrer!);
      const all = async (like: string) => [...(await refs("clicks", like)), ...(engine === "sqlite" ? await refs("click_staging", like) : [])];
      const stored = await all("%.load.example");
      // The live feed's visits (the test before) are counted too.
      const live = await all("live%.example");
      expect(new Set(stored).size).toBe(stored.length);
      const unanswered = stored.filter((h) => !load.answered.has(h));
      // Stored but never answered: only visits in flight when the worker died (journaled, answer lost).
      expect(unanswered.filter((h) => !load.inFlight.has(h))).toEqual([]);
      expect(stored.length - unanswered.length).toBe(load.answered.size);
      expect(load.limited302).toBe(100);
      expect(load.limitedOther).toBeGreaterThan(0);
      const limited = await storage.db.selectFrom("links").select("click_count").where("id", "=", seeded.limitedId).executeTakeFirstOrThrow();
      expect(Number(limited.click_count)).toBe(100);
      const sum = await sql<{ n: number }>`SELECT coalesce(sum(click_count), 0) AS n FROM links WHERE alias <> 'edit-me'`.execute(storage.db);
      expect(Number(sum.rows[0]!.n)).toBe(stored.length + live.length);
      const created = await storage.db
        .selectFrom("api_creations")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(created.n)).toBe(100);
    } finally {
      await storage.close();
    }
  });
  it("a SIGKILL of the primary ends every worker, and the next start stores every click they answered", { timeout: SLOW_TEST_MS }, async () => {
    cluster = await spawnServe({ DATA_DIR: dataDir, WORKERS: "2", CLICK_FLUSH_MS: "100", ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}) });
    const pids = workerPids(cluster.child.pid!);
    const again = startLoad(cluster.port, seeded.plain, "again");
    await until("1,000 answers", () => again.answered.size >= 1_000);
    cluster.child.kill("SIGKILL");
    await cluster.exited;
    await until("the workers' end", () => pids.every((pid) => !alive(pid)), 30_000);
    await again.stop();
    // The next start (here a single server on the same DATA_DIR and database) replays the workers' journals.
    const next = await startTestServer({ dataDir, databaseUrl: db.databaseUrl });
    try {
      await next.ctx.clicks.flush();
      const refs = async (table: "clicks" | "click_staging") =>
        (await next.ctx.storage.db.selectFrom(table).select("referrer").where("referrer", "like", "%.again.example").execute()).map((r) => r.referrer!);
      const stored = [...(await refs("clicks")), ...(engine === "sqlite" ? await refs("click_staging") : [])];
      expect(new Set(stored).size).toBe(stored.length);
      expect(stored.filter((h) => !again.answered.has(h) && !again.inFlight.has(h))).toEqual([]);
      expect(stored.filter((h) => again.answered.has(h)).length).toBe(again.answered.size);
      expect(again.unexpected).toBe(0);
    } finally {
      await next.stop();
    }
  });
});
