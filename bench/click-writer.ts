// The click writer alone, without HTTP: CPU time per stored click for the `hot` and `zipf` request
// streams of bench/redirect, fed as the service feeds it (a batch per CLICK_FLUSH_MS at a given rate,
// roll-ups every CLICK_ROLLUP_MS). The ratio zipf/hot is what decides whether a skewed load can
// keep up with one hot link; the split shows where the writer's time goes.
// Usage: npm run bench:clicks [-- --clicks N --rate R --links N]
//        npm run bench:clicks -- --statements   (also the time of each SQLite statement the writer ran, by text)
//        npm run bench:clicks -- --pg   (TEST_DATABASE_URL: the PostgreSQL writer, CPU of this process
//        and of its PostgreSQL backends, and the clicks it stores per second of wall time, its batches
//        merged up to --merge clicks per transaction as the recorder merges them when behind; 0: one at a time)
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type SQLite from "better-sqlite3";
import { openSqliteFile } from "../src/storage/db.js";
import { SqliteClickWriter } from "../src/clicks/sqlite-writer.js";
import { CountryResolver } from "../src/clicks/describe.js";
import { type ClickInput, MAX_BATCH, MERGE_MAX } from "../src/clicks/recorder.js";
import { type ClickBatch, batchOf } from "../src/clicks/click-buffer.js";
import { buildScenario, type ScenarioName } from "./lib/dataset.js";
import { PgBench, sqliteSeed } from "./lib/db.js";
import { processesCpuUs } from "./lib/children.js";
import { openPostgresDb } from "../src/storage/db.js";
import { PostgresClickWriter } from "../src/clicks/pg-writer.js";
import { sql } from "kysely";

const { values } = parseArgs({
  options: {
    clicks: { type: "string", default: "300000" },
    rate: { type: "string", default: "10000" },
    links: { type: "string", default: "1000000" },
    "flush-ms": { type: "string", default: "250" },
    "rollup-ms": { type: "string", default: "5000" },
    pg: { type: "boolean", default: false },
    merge: { type: "string", default: String(MERGE_MAX) },
    statements: { type: "boolean", default: false },
  },
});
const clicks = Number(values.clicks);
const rate = Number(values.rate);
const linkCount = Number(values.links);
// As the recorder batches: what one flush interval brings, at most MAX_BATCH.
const perBatch = Math.min(MAX_BATCH, Math.max(1, Math.round((rate * Number(values["flush-ms"])) / 1000)));
const batchesPerRollup = Math.max(1, Math.round(Number(values["rollup-ms"]) / Number(values["flush-ms"])));
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const log = (s: string) => console.error(`[bench] ${s}`);

/** CPU time of this process (user + system), in ms: waiting for the disk is not the writer's work. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

interface Result {
  name: ScenarioName;
  rawMs: number;
  rollupMs: number;
  distinct: number;
}

async function run(name: ScenarioName, seed: string, dir: string): Promise<Result> {
  const file = join(dir, `${name}.db`);
  copyFileSync(seed, file);
  const handle = openSqliteFile(file);
  const writer = new SqliteClickWriter(async (fn) => fn(), handle, new CountryResolver(null));
  const paths = buildScenario(name, linkCount).paths;
  const ids = paths.map((p) => "bench_" + p.slice(1));
  // Each path's link number, read once per distinct link.
  const numOf = handle.prepare<[string], number>("SELECT num FROM links WHERE id = ?").pluck();
  const known = new Map<string, number>();
  for (const id of ids) if (!known.has(id)) known.set(id, numOf.get(id) as number);
  const nums = ids.map((id) => known.get(id) as number);
  if (values.statements) timeStatements(handle, name);
  let at = Date.UTC(2026, 10, 21, 12);
  let rawMs = 0;
  let rollupMs = 0;
  const seen = new Set<string>();
  for (let sent = 0, batch = 0; sent < clicks; batch++) {
    const inputs: ClickInput[] = [];
    for (let i = 0; i < perBatch && sent < clicks; i++, sent++) {
      const linkId = ids[sent % ids.length] as string;
      seen.add(linkId);
      inputs.push({
        linkId,
        linkNum: nums[sent % ids.length] as number,
        at: at++,
        userAgent: UA,
        referer: "",
        ip: "127.0.0.1",
        country: null,
        counted: false,
        destination: null,
      });
    }
    let t = cpuMs();
    await writer.write(batchOf(inputs));
    rawMs += cpuMs() - t;
    if ((batch + 1) % batchesPerRollup === 0) {
      t = cpuMs();
      await writer.flushRollups();
      rollupMs += cpuMs() - t;
    }
  }
  const t = cpuMs();
  await writer.flushRollups();
  rollupMs += cpuMs() - t;
  const stored = Number(handle.prepare("SELECT count(*) FROM clicks").pluck().get());
  if (stored !== clicks) throw new Error(`${name}: ${stored} clicks stored, ${clicks} written`);
  handle.close();
  return { name, rawMs, rollupMs, distinct: seen.size };
}

/** Wall time and runs of each statement prepared on `handle` from now on, by text, printed at exit (the writer's statements are prepared on first use). */
function timeStatements(handle: SQLite.Database, name: string): void {
  const times = new Map<string, { ms: number; runs: number }>();
  const prepare = handle.prepare.bind(handle);
  handle.prepare = ((text: string) => {
    const st = prepare(text);
    for (const m of ["run", "get", "all"] as const) {
      const call = st[m].bind(st) as (...a: unknown[]) => unknown;
      (st as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => {
        const t = performance.now();
        try {
          return call(...a);
        } finally {
          const e = times.get(text) ?? { ms: 0, runs: 0 };
          e.ms += performance.now() - t;
          e.runs++;
          times.set(text, e);
        }
      };
    }
    return st;
  }) as typeof handle.prepare;
  process.on("exit", () => {
    console.log(`\n${name}: the writer's statements by wall time (ms, runs, µs per run)`);
    for (const [text, e] of [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) {
      console.log(
        `${e.ms.toFixed(0).padStart(7)} ${String(e.runs).padStart(8)} ${((e.ms * 1000) / e.runs).toFixed(1).padStart(8)}  ${text.replace(/\s+/g, " ").slice(0, 100)}`,
      );
    }
  });
}

/** PostgreSQL: each stream through the PostgreSQL writer, CPU of this process and of the database's server processes. */
async function runPg(url: string): Promise<void> {
  const bench = new PgBench(url);
  await bench.create(linkCount, log);
  const db = openPostgresDb(bench.url, 2);
  try {
    const nums = new Map((await sql<{ id: string; num: number }>`SELECT id, num FROM links`.execute(db)).rows.map((r) => [r.id, Number(r.num)]));
    const results: Array<{ name: string; nodeMs: number; pgMs: number; rollupMs: number; wallMs: number }> = [];
    const merge = Number(values.merge);
    for (let round = 0; round < 2; round++) {
      for (const name of ["hot", "zipf"] as const) {
        {
          await bench.reset();
          const writer = new PostgresClickWriter(db, new CountryResolver(null));
          const ids = buildScenario(name, linkCount).paths.map((p) => "bench_" + p.slice(1));
          // Opens the pool's connections, so that their backends are measured from the start.
          await Promise.all([sql`SELECT pg_sleep(0.05)`.execute(db), sql`SELECT pg_sleep(0.05)`.execute(db)]);
          const pids = await bench.backendPids();
          const pg0 = processesCpuUs(pids);
          const n0 = cpuMs();
          const w0 = performance.now();
          let rollupMs = 0;
          let at = Date.UTC(2026, 10, 21, 12);
          let queued: ClickBatch[] = [];
          let queuedClicks = 0;
          for (let sent = 0, batch = 0; sent < clicks; batch++) {
            const inputs: ClickInput[] = [];
            for (let i = 0; i < perBatch && sent < clicks; i++, sent++) {
              const linkId = ids[sent % ids.length] as string;
              inputs.push({
                linkId,
                linkNum: nums.get(linkId) as number,
                at: at++,
                userAgent: UA,
                referer: "",
                ip: "127.0.0.1",
                country: null,
                counted: false,
                destination: null,
              });
            }
            // As the recorder writes when the writer is behind: the queued batches together, up to --merge clicks.
            queued.push(batchOf(inputs));
            queuedClicks += inputs.length;
            if (queuedClicks + perBatch > merge || sent >= clicks) {
              await (queued.length === 1 ? writer.write(queued[0]!) : writer.writeMany(queued));
              queued = [];
              queuedClicks = 0;
            }
            if ((batch + 1) % batchesPerRollup === 0) {
              const t = performance.now();
              await writer.flushRollups();
              rollupMs += performance.now() - t;
            }
          }
          await writer.flushRollups();
          const nodeMs = cpuMs() - n0;
          const wallMs = performance.now() - w0;
          const pg1 = processesCpuUs(pids);
          let pgUs = 0;
          for (const [pid, us] of pg1) pgUs += us - (pg0.get(pid) ?? 0);
          const stored = Number((await sql<{ n: number }>`SELECT sum(click_count)::bigint AS n FROM links`.execute(db)).rows[0]!.n);
          if (stored !== clicks) throw new Error(`${name}: ${stored} clicks counted, ${clicks} written`);
          results.push({ name, nodeMs, pgMs: pgUs / 1000, rollupMs, wallMs });
          log(
            `${name}: node ${((nodeMs * 1000) / clicks).toFixed(2)} µs/click, PostgreSQL ${(pgUs / clicks).toFixed(2)} µs/click, ${Math.round((clicks * 1000) / wallMs)} clicks/s`,
          );
        }
      }
    }
    const us = (ms: number) => ((ms * 1000) / clicks).toFixed(2);
    console.log(
      `\nclick writer (PostgreSQL), ${clicks.toLocaleString("en")} clicks over ${linkCount.toLocaleString("en")} links, batches of ${perBatch} merged up to ${merge} clicks, mean of 2 rounds`,
    );
    console.log("scenario  node µs/click  PostgreSQL µs/click  total µs/click  stored clicks/s");
    for (const name of ["hot", "zipf"]) {
      const rs = results.filter((r) => r.name === name);
      const mean = (f: (r: (typeof rs)[number]) => number) => rs.reduce((a, r) => a + f(r), 0) / rs.length;
      const rate = Math.round((clicks * 1000) / mean((r) => r.wallMs));
      console.log(
        `${name.padEnd(8)}  ${us(mean((r) => r.nodeMs)).padStart(13)}  ${us(mean((r) => r.pgMs)).padStart(19)}  ${us(mean((r) => r.nodeMs + r.pgMs)).padStart(14)}  ${String(rate).padStart(15)}`,
      );
    }
  } finally {
    await db.destroy();
    await bench.drop();
  }
}

const pgUrl = process.env.TEST_DATABASE_URL?.trim();
if (values.pg) {
  if (!pgUrl) throw new Error("--pg needs TEST_DATABASE_URL");
  await runPg(pgUrl);
  process.exit(0);
}

const seed = await sqliteSeed(linkCount, log);
const dir = mkdtempSync(join(tmpdir(), "snip-clickbench-"));
try {
  log(`${clicks.toLocaleString("en")} clicks per scenario, ${perBatch} per batch, roll-ups every ${batchesPerRollup} batches`);
  const results: Result[] = [];
  // hot, zipf, hot, zipf: the median of two is their mean; alternating evens out a busy machine.
  for (let round = 0; round < 2; round++) for (const name of ["hot", "zipf"] as const) results.push(await run(name, seed, dir));
  const us = (ms: number) => ((ms * 1000) / clicks).toFixed(2);
  console.log(`\nclick writer (SQLite, in-process), ${clicks.toLocaleString("en")} clicks, batches of ${perBatch}, roll-ups every ${batchesPerRollup} batches`);
  console.log("scenario  distinct links  raw µs/click  roll-up µs/click  total µs/click");
  const total: Record<string, number> = {};
  for (const name of ["hot", "zipf"] as const) {
    const rs = results.filter((r) => r.name === name);
    const raw = rs.reduce((a, r) => a + r.rawMs, 0) / rs.length;
    const roll = rs.reduce((a, r) => a + r.rollupMs, 0) / rs.length;
    total[name] = raw + roll;
    console.log(
      `${name.padEnd(8)}  ${String(rs[0]!.distinct).padStart(14)}  ${us(raw).padStart(12)}  ${us(roll).padStart(16)}  ${us(raw + roll).padStart(14)}`,
    );
  }
  console.log(`zipf / hot cost per click: ${(total.zipf! / total.hot!).toFixed(2)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
