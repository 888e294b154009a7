// SQLite's volume full under load (a small tmpfs of the test's own holds DATA_DIR: the database, its WAL
// and the click journal), then space back: writes answer 503 `unavailable` and leave nothing half-made,
// cached links keep redirecting, the click journal says once that it cannot write, and everything
// recovers without a restart, every click answered stored (docs/operations.md, When things fail).
import { join } from "node:path";
import pino from "pino";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { type SmallFs, mountSmallFs, smallFsUnavailable } from "../helpers/small-fs.js";
import { type Answer, loops, problemWith503, send } from "../helpers/load.js";
import { UA, visit } from "../helpers/visit.js";
import { within } from "../helpers/wait.js";

const HOT = 6;
const JOURNAL_FAILED = "click journal write failed: clicks are not journaled until it works again (they are still written)";

interface LogLine {
  level: number;
  msg?: string;
}

const unavailable = smallFsUnavailable();
if (unavailable) console.warn(`sqlite-disk-full: skipped: ${unavailable}`);

describe.skipIf(unavailable !== null)(`SQLite: the disk fills up under load, then space comes back${unavailable ? ` (skipped: ${unavailable})` : ""}`, () => {
  let fs: SmallFs;
  let server: TestServer;
  const lines: LogLine[] = [];
  const log = pino({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l) as LogLine) });
  let owner: ApiClient;
  const hot: string[] = [];

  beforeAll(async () => {
    fs = mountSmallFs(64);
    server = await startTestServer({ dataDir: join(fs.dir, "data"), log });
    owner = await signedInClient(server, "full@example.com", "pro");
    for (let i = 0; i < HOT; i++) {
      expect((await owner.post("/api/links", { url: `https://example.com/hot-${i}`, alias: `hot-${i}` })).status).toBe(201);
      hot.push(`hot-${i}`);
    }
    expect((await owner.post("/api/links", { url: "https://example.com/cold", alias: "cold" })).status).toBe(201);
    // Counted in the database at each visit (a write on every redirect).
    expect((await owner.post("/api/links", { url: "https://example.com/limited", alias: "limited", max_clicks: 1_000_000 })).status).toBe(201);
    for (const alias of hot) {
      await within(
        5000,
        async () => (await visit(server.url, `/${alias}`, { "user-agent": UA.windows }), server.ctx.redirects.cache.peek("", alias)),
        (v) => v !== undefined,
      );
      expect(server.ctx.redirects.cache.peek("", alias)).toBeTruthy();
    }
  }, 60_000);

  afterAll(async () => {
    fs?.free();
    await server?.close();
    fs?.unmount();
  });

  it("writes answer 503 unavailable, nothing half-written, every click answered stored after", async () => {
    const answers: Answer[] = [];
    const problems: string[] = [];
    const record = (kind: string, r: { status: number; headers: Record<string, string | string[] | undefined>; body: string }) => {
      answers.push({ kind, server: server.url, status: r.status, at: Date.now() });
      const p = problemWith503(r);
      if (p) problems.push(`${kind}: ${p}`);
    };
    // The warm-up's clicks, staged rows moved into clicks by the roll-up.
    await server.ctx.clicks.flush();
    const db = server.ctx.storage.db;
    const count = async (q: string) => Number((await sql<{ n: number }>`${sql.raw(q)}`.execute(db)).rows[0]?.n ?? 0);
    const warmup = await count("SELECT count(*) AS n FROM clicks");

    const hotLoad = loops(3, async (loop, i) => {
      const status = await visit(server.url, `/${hot[(loop + i) % HOT]}`, { "user-agent": UA.windows });
      answers.push({ kind: "hot", server: server.url, status, at: Date.now() });
    });
    const limitedLoad = loops(1, async () =>
      record("limited", await send(`${server.url}/limited`, { headers: { accept: "application/json", "user-agent": UA.windows } })),
    );
    const created: string[] = [];
    const refused: string[] = [];
    const apiLoad = loops(1, async (_loop, i) => {
      const headers = { accept: "application/json", cookie: owner.cookie!, "x-csrf-token": owner.csrf!, "content-type": "application/json" };
      if (i % 2 === 0) return record("api-read", await send(`${server.url}/api/links?limit=5`, { headers }));
      const alias = `api-${i}`;
      const r = await send(`${server.url}/api/links`, { method: "POST", headers, body: JSON.stringify({ url: "https://example.com/api", alias }) });
      record("api-write", r);
      (r.status === 201 ? created : refused).push(alias);
    });
    await within(
      10_000,
      async () => answers.filter((x) => x.kind === "hot" && x.status === 302).length,
      (n) => n >= 200,
    );

    const filled = fs.fill();
    const fullAt = Date.now();
    // A write refused for want of space, and the journal's one line about it.
    const firstRefusal = await within(
      20_000,
      async () => answers.find((x) => x.kind === "api-write" && x.status === 503 && x.at > fullAt),
      (x) => x !== undefined,
    );
    expect(firstRefusal).toBeDefined();
    expect(await within(10_000, async () => lines.some((l) => l.msg === JOURNAL_FAILED), Boolean)).toBe(true);
    // While full, for a while longer: redirects go on, reads are served, the health check passes.
    const hotAtRefusal = answers.filter((x) => x.kind === "hot").length;
    await within(
      20_000,
      async () => answers.filter((x) => x.kind === "hot").length - hotAtRefusal,
      (n) => n >= 300,
    );
    const refusedWhileFull = answers.filter((x) => x.kind === "api-write" && x.at > fullAt && x.status === 503).length;
    await within(
      20_000,
      async () => answers.filter((x) => x.kind === "api-write" && x.at > fullAt && x.status === 503).length,
      (n) => n >= refusedWhileFull + 3,
    );
    const health = await send(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    // A link not cached yet is only read: it redirects.
    const cold = await send(`${server.url}/cold`, { headers: { "user-agent": UA.windows } });
    expect(cold.status).toBe(302);
    answers.push({ kind: "cold", server: server.url, status: cold.status, at: Date.now() });

    fs.free();
    const freedAt = Date.now();
    const writable = await within(
      20_000,
      async () => answers.find((x) => x.kind === "api-write" && x.status === 201 && x.at > freedAt),
      (x) => x !== undefined,
    );
    expect(writable).toBeDefined();
    const writableAfter = writable!.at - freedAt;
    expect(await within(20_000, async () => lines.some((l) => l.msg === "click journal writes again"), Boolean)).toBe(true);
    await hotLoad.stop();
    await limitedLoad.stop();
    await apiLoad.stop();

    const drained = Date.now();
    await within(
      30_000,
      async () => server.ctx.clicks.pending,
      (n) => n === 0,
    );
    const drainMs = Date.now() - drained;
    await server.ctx.clicks.flush();
    const answered302 = answers.filter((x) => x.status === 302).length + warmup;
    const stored = await count("SELECT count(*) AS n FROM clicks");
    const counted = await count("SELECT coalesce(sum(click_count), 0) AS n FROM links");
    const full = answers.filter((x) => x.at > fullAt && x.at < freedAt);
    const statuses = [...new Set(answers.map((x) => `${x.kind}:${x.status}`))].sort();
    const of = (list: Answer[], kind: string, status: number) => list.filter((x) => x.kind === kind && x.status === status).length;
    console.log(
      `sqlite-disk-full: filler took ${(filled / 1048576).toFixed(1)} MiB; ${answers.length} requests; 302 answered ${answered302} (warm-up ${warmup}), clicks stored ${stored}, click_count ${counted}; ` +
        `while full (${freedAt - fullAt} ms): hot 302 ${of(full, "hot", 302)}, limited 302 ${of(full, "limited", 302)} / 503 ${of(full, "limited", 503)}, ` +
        `creates 201 ${of(full, "api-write", 201)} / 503 ${of(full, "api-write", 503)}; 503s in all ${answers.filter((x) => x.status === 503).length}; ` +
        `first refusal ${firstRefusal!.at - fullAt} ms after filling; writes again ${writableAfter} ms after freeing; buffers drained in ${drainMs} ms; statuses ${statuses.join(" ")}`,
    );

    expect(problems).toEqual([]);
    expect(
      statuses.filter(
        (s) => !["hot:302", "cold:302", "limited:302", "limited:503", "api-read:200", "api-read:503", "api-write:201", "api-write:503"].includes(s),
      ),
    ).toEqual([]);
    expect(of(full, "hot", 302)).toBeGreaterThanOrEqual(300);
    expect(stored).toBe(answered302);
    expect(counted).toBe(answered302);
    // Nothing half-made: a creation answered 201 is there whole, one answered 503 left no link and no alias reservation.
    const links = new Set((await sql<{ alias: string }>`SELECT alias FROM links WHERE alias LIKE 'api-%'`.execute(db)).rows.map((r) => r.alias));
    const reserved = await count("SELECT count(*) AS n FROM alias_reservations WHERE alias LIKE 'api-%'");
    expect(created.filter((x) => !links.has(x))).toEqual([]);
    expect(refused.filter((x) => links.has(x))).toEqual([]);
    expect(links.size).toBe(created.length);
    expect(reserved).toBe(0);
    expect(refused.length).toBeGreaterThan(0);
    // Said once, not at every click: the journal could not write, clicks were kept in memory until the
    // database could take them again.
    expect(lines.filter((l) => l.msg === JOURNAL_FAILED)).toHaveLength(1);
    expect(lines.filter((l) => l.msg === "click flush failed; clicks are kept and retried")).toHaveLength(1);
    expect(lines.filter((l) => l.msg === "clicks are written again")).toHaveLength(1);
    expect(lines.filter((l) => l.msg === "click journal writes again")).toHaveLength(1);
    expect(lines.filter((l) => l.msg === "database unavailable: answering 503 unavailable").length).toBeLessThanOrEqual(
      Math.ceil((Date.now() - fullAt) / 10_000) + 1,
    );
    // The server still answers: no restart was needed.
    expect((await send(`${server.url}/healthz`)).status).toBe(200);
    expect((await owner.post("/api/links", { url: "https://example.com/after", alias: "after-full" })).status).toBe(201);
  }, 180_000);
});
