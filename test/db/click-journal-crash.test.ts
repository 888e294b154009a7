// Clicks answered just before a SIGKILL: `snip serve` as a real process under a steady stream of
// visits is killed mid-load and started again; every 302 the clients received is a stored click (the
// click journal under DATA_DIR is replayed at start), on SQLite and PostgreSQL. The loss without the
// journal (CLICK_JOURNAL=off) is measured too: the window a hard kill used to cost.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/engines.js";

const root = join(import.meta.dirname, "..", "..");
const LINKS = 20;
const CONNECTIONS = 24;

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

interface Serve {
  child: ChildProcess;
  port: number;
  exited: Promise<unknown>;
}

async function serve(dataDir: string, db: TestDatabase, env: Record<string, string>): Promise<Serve> {
  const port = await freePort();
  const preload = env.KILL_AFTER_ANSWERS ? ["--import", pathToFileURL(join(root, "test", "helpers", "kill-on-answer.mjs")).href] : [];
  const child = spawn(process.execPath, ["--import", "tsx", ...preload, join(root, "src", "cli.ts"), "serve"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      DATA_DIR: dataDir,
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "silent",
      CLICK_FLUSH_MS: "250",
      ...env,
    },
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  for (let i = 0; i < 300; i++) {
    if (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)) return { child, port, exited };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error("snip serve did not start");
}

/**
 * Visits the links round robin on CONNECTIONS keep-alive connections until the server dies; counts
 * the 302 answers received (a head with status 302 is an answer the visitor got).
 */
function visitUntilDead(port: number, aliases: string[], onAnswer: (n: number) => void): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let answered = 0;
  let next = 0;
  const loop = () =>
    new Promise<void>((done) => {
      const one = () => {
        const alias = aliases[next++ % aliases.length] as string;
        const req = request({ host: "127.0.0.1", port, path: `/${alias}`, agent, headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0" } }, (res) => {
          // Anything else is a failure of the test's own (the links exist and are plain).
          if (res.statusCode === 302) onAnswer(++answered);
          else answered = Number.NaN;
          res.resume();
          res.on("end", one);
          res.on("error", () => done());
        });
        req.on("error", () => done());
        req.end();
      };
      one();
    });
  return Promise.all(Array.from({ length: CONNECTIONS }, loop)).then(() => {
    agent.destroy();
    return answered;
  });
}

/**
 * Kills `snip serve` with SIGKILL once `afterAnswers` 302s were received (or lets it kill itself,
 * KILL_AFTER_ANSWERS); returns the 302s received in all and the rate until the kill.
 */
async function killUnderLoad(s: Serve, aliases: string[], afterAnswers: number | null): Promise<{ answered: number; rate: number }> {
  const t0 = performance.now();
  let killedAt = 0;
  const answered = await visitUntilDead(s.port, aliases, (n) => {
    if (n === afterAnswers && killedAt === 0) {
      killedAt = performance.now();
      s.child.kill("SIGKILL");
    }
  });
  await s.exited;
  return { answered, rate: (afterAnswers ?? answered) / (((killedAt || performance.now()) - t0) / 1000) };
}

async function storedClicks(server: TestServer, dialect: string): Promise<{ raw: number; counted: number }> {
  await server.ctx.clicks.flush();
  const db = server.ctx.storage.db;
  const count = async (table: "clicks" | "click_staging") =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
  const raw = (await count("clicks")) + (dialect === "sqlite" ? await count("click_staging") : 0);
  const counted = Number((await sql<{ n: number }>`SELECT coalesce(sum(click_count), 0) AS n FROM links`.execute(db)).rows[0]!.n);
  return { raw, counted };
}

/** A database with LINKS links; returns their aliases. */
async function seed(dataDir: string, db: TestDatabase): Promise<string[]> {
  const setup = await startTestServer({ dataDir, databaseUrl: db.databaseUrl });
  const user = await setup.ctx.accounts.create({ email: "kill@example.com", password: "correct horse 1", plan: "pro", verified: true });
  const aliases = Array.from({ length: LINKS }, (_, i) => `kill-${i}`);
  for (const alias of aliases) await setup.ctx.links.create(user, { url: `https://example.com/${alias}`, alias });
  await setup.stop();
  return aliases;
}

describe.each(ENGINES)("SIGKILL under load (%s)", (engine) => {
  async function freshDatabase(): Promise<{ dataDir: string; db: TestDatabase }> {
    const dataDir = mkdtempSync(join(tmpdir(), "snip-kill-"));
    const db = await createTestDatabase(engine);
    cleanup.push(() => db.drop());
    return { dataDir, db };
  }

  async function run(env: Record<string, string>): Promise<{ answered: number; stored: { raw: number; counted: number }; rate: number }> {
    const { dataDir, db } = await freshDatabase();
    const aliases = await seed(dataDir, db);
    const s = await serve(dataDir, db, env);
    const { answered, rate } = await killUnderLoad(s, aliases, env.KILL_AFTER_ANSWERS ? null : 6_000);
    const after = await startTestServer({ dataDir, databaseUrl: db.databaseUrl });
    cleanup.push(() => after.close());
    const stored = await storedClicks(after, after.ctx.storage.dialect);
    return { answered, stored, rate };
  }

  it("loses clicks without the journal: the window measured", async () => {
    const { answered, stored, rate } = await run({ CLICK_JOURNAL: "off" });
    const lost = answered - stored.raw;
    console.log(`[${engine}] without the journal: ${lost} of ${answered} answered clicks lost (${rate.toFixed(0)}/s: ${((lost / rate) * 1000).toFixed(0)} ms of clicks)`);
    expect(stored.counted).toBe(stored.raw);
    expect(lost).toBeGreaterThan(0);
    expect(lost).toBeLessThan(answered);
  });

  it("stores every answered click after a SIGKILL mid-load (journal replayed at start)", async () => {
    const { answered, stored } = await run({});
    expect(answered).toBeGreaterThanOrEqual(6_000);
    expect(stored).toEqual({ raw: answered, counted: answered });
  });

  it("keeps the click of an answer sent just before the kill (answers go out after the journal's append)", async () => {
    const { answered, stored } = await run({ KILL_AFTER_ANSWERS: "3000" });
    expect(answered).toBeGreaterThanOrEqual(3_000);
    expect(stored).toEqual({ raw: answered, counted: answered });
  });
});
