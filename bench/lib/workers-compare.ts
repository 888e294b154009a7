// `npm run bench:redirect -- --workers N`: `snip serve` with WORKERS=1 and with WORKERS=N on copies of one
// SQLite dataset, then (with TEST_DATABASE_URL, unless --no-pg) on two PostgreSQL databases seeded alike, loaded
// in alternating rounds with the same load; per round the answers per second, the CPU time per answer summed
// over every process of the server (the primary and its workers, all threads; on PostgreSQL also the backends
// of its database) and the p99. On a machine whose cores the load generator shares, N workers cannot add requests per
// second; what must hold there is that CPU per answer does not rise (docs/scaling.md: measuring it).
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildScenario, type ScenarioName } from "./dataset.js";
import { cpuTimeUs, processesCpuUs } from "./children.js";
import { PgBench, sqliteSeed } from "./db.js";
import { autocannonRun, type LoadResult, wrkRun } from "./load.js";

const ROOT = new URL("../../", import.meta.url).pathname;

export interface WorkersCompareOptions {
  workers: number;
  links: number;
  seconds: number;
  warmup: number;
  rounds: number;
  connections: number;
  scenarios: ScenarioName[];
  loadTool: "wrk" | "autocannon";
  /** PostgreSQL too (a database per cluster), after SQLite. */
  pgUrl?: string;
  log: (s: string) => void;
}

/** Where a cluster keeps its data: a copy of the SQLite seed, or a PostgreSQL database of its own. */
type Store = { kind: "sqlite"; seed: string } | { kind: "postgres"; bench: PgBench };

interface Cluster {
  workers: number;
  /** Its PostgreSQL database (none on SQLite): the backends' CPU is the cluster's. */
  pg: PgBench | null;
  child: ChildProcess;
  url: string;
  dir: string;
  exited: Promise<number | null>;
}

interface Round {
  rps: number;
  cpuUs: number;
  p99: number;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

/** The server's processes: the primary and its children (the workers; Linux /proc). */
function treeCpuUs(pid: number): number {
  let kids: number[] = [];
  try {
    kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // Gone: counted as nothing.
  }
  return [pid, ...kids].reduce((sum, p) => sum + (cpuTimeUs(p)?.all ?? 0), 0);
}

async function startCluster(workers: number, store: Store): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), `snip-bench-w${workers}-`));
  if (store.kind === "sqlite") copyFileSync(store.seed, join(dir, "snip.db"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    WORKERS: String(workers),
    DATA_DIR: dir,
    PORT: String(port),
    BASE_URL: url,
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
  };
  if (store.kind === "postgres") env.DATABASE_URL = store.bench.url;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src", "cli.ts"), "serve"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes('"msg":"snip is listening"')) resolve();
      if (out.length > 1_000_000) out = out.slice(-10_000);
    });
    void exited.then((code) => reject(new Error(`WORKERS=${workers}: exited (${code}) before it was listening`)));
  });
  child.stdout?.resume();
  return { workers, pg: store.kind === "postgres" ? store.bench : null, child, url, dir, exited };
}

async function loadOnce(o: WorkersCompareOptions, c: Cluster, paths: string[], seconds: number, rate: number): Promise<LoadResult> {
  if (o.loadTool === "wrk") return wrkRun({ url: c.url, paths, connections: o.connections, seconds, workDir: c.dir });
  return autocannonRun({
    url: c.url,
    paths,
    connections: o.connections,
    amount: Math.max(o.connections * 4, Math.round(rate * seconds)),
    maxSeconds: seconds * 4 + 15,
  });
}

/** The CPU time of the cluster's database backends so far, by pid (none on SQLite). */
async function backendsCpuUs(c: Cluster): Promise<Map<number, number>> {
  return c.pg ? processesCpuUs(await c.pg.backendPids()) : new Map();
}

async function measure(o: WorkersCompareOptions, c: Cluster, paths: string[], rate: number): Promise<Round> {
  const pid = c.child.pid!;
  const before = treeCpuUs(pid);
  const pg0 = await backendsCpuUs(c);
  const r = await loadOnce(o, c, paths, o.seconds, rate);
  let cpu = treeCpuUs(pid) - before;
  // A backend opened during the round counts from its start.
  for (const [p, us] of await backendsCpuUs(c)) cpu += us - (pg0.get(p) ?? 0);
  return { rps: r.rps, cpuUs: r.completed > 0 ? cpu / r.completed : 0, p99: r.p99 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function report(o: WorkersCompareOptions, engine: Store["kind"], scenario: string, results: Map<number, Round[]>): void {
  const one = results.get(1)!;
  const n = results.get(o.workers)!;
  const row = (label: string, rs: Round[]) =>
    `  ${label.padEnd(12)} CPU ${median(rs.map((r) => r.cpuUs))
      .toFixed(1)
      .padStart(7)} µs/answer   ${median(rs.map((r) => r.rps))
      .toFixed(0)
      .padStart(7)} req/s   p99 ${median(rs.map((r) => r.p99))
      .toFixed(2)
      .padStart(7)} ms`;
  const where = engine === "sqlite" ? "SQLite" : "PostgreSQL; its backends' CPU included";
  console.log(`\nworkers, ${scenario} (${where}, ${o.rounds} rounds of ${o.seconds} s, medians; CPU summed over the primary and its workers)`);
  console.log(row("WORKERS=1", one));
  console.log(row(`WORKERS=${o.workers}`, n));
  const ratio = (f: (r: Round) => number) => (median(n.map(f)) / median(one.map(f))).toFixed(2);
  console.log(
    `  ${`${o.workers} / 1`.padEnd(12)} CPU ${ratio((r) => r.cpuUs).padStart(7)}×            ${ratio((r) => r.rps).padStart(7)}×         p99 ${ratio((r) => r.p99).padStart(7)}×`,
  );
}

/** Runs the comparison and prints one table per engine and scenario. */
export async function compareWorkers(o: WorkersCompareOptions): Promise<void> {
  if (!Number.isInteger(o.workers) || o.workers < 2) throw new Error(`--workers: a number of workers of 2 or more, got ${o.workers}`);
  const seed = await sqliteSeed(o.links, o.log);
  for (const name of o.scenarios)
    await compareOn(o, name, [
      { kind: "sqlite", seed },
      { kind: "sqlite", seed },
    ]);
  if (!o.pgUrl) return;
  const dbs = [new PgBench(o.pgUrl), new PgBench(o.pgUrl)];
  try {
    for (const b of dbs) await b.create(o.links, o.log);
    for (const name of o.scenarios) {
      for (const b of dbs) await b.reset();
      await compareOn(
        o,
        name,
        dbs.map((bench) => ({ kind: "postgres" as const, bench })),
      );
    }
  } finally {
    for (const b of dbs) await b.drop();
  }
}

/** One scenario: WORKERS=1 on the first store, WORKERS=N on the second. */
async function compareOn(o: WorkersCompareOptions, name: ScenarioName, stores: Store[]): Promise<void> {
  const { paths } = buildScenario(name, o.links);
  const clusters = [await startCluster(1, stores[0]!), await startCluster(o.workers, stores[1]!)];
  try {
    const results = new Map<number, Round[]>(clusters.map((c) => [c.workers, []]));
    const rates = new Map<number, number>();
    for (const c of clusters) {
      o.log(`${name}: warming WORKERS=${c.workers}`);
      // Each worker warms its own JIT and cache: as long a warm-up per worker as for the single process.
      const w = await loadOnce(o, c, paths, Math.max(1, o.warmup) * c.workers, 5_000);
      rates.set(c.workers, w.rps);
    }
    for (let round = 0; round < o.rounds; round++) {
      // Alternating, and the other order every round: neither is always first after a pause.
      const order = round % 2 === 0 ? clusters : [...clusters].reverse();
      for (const c of order) {
        const r = await measure(o, c, paths, rates.get(c.workers)!);
        o.log(`${name} round ${round + 1}: WORKERS=${c.workers} ${r.rps.toFixed(0)} req/s, ${r.cpuUs.toFixed(1)} µs CPU/answer, p99 ${r.p99.toFixed(2)} ms`);
        results.get(c.workers)!.push(r);
      }
    }
    report(o, stores[0]!.kind, name, results);
  } finally {
    for (const c of clusters) {
      c.child.kill("SIGTERM");
      await c.exited;
      rmSync(c.dir, { recursive: true, force: true });
    }
  }
}
