// Import benchmark (issue 30): a real snip server (child process, fresh data dir) imports every short URL
// and visit of the fake Shlink (another child process) through POST /api/imports, while this process polls
// the job, samples the server's memory every second and sends redirects of links already imported.
//   npm run bench:import                        100,000 links x 10 visits on SQLite (goal: under 3 minutes)
//   npm run bench:import -- --smoke             2,000 links x 10 visits (well under a minute)
//   npm run bench:import -- --links N --visits-per-link M [--rate R (redirects/s, default 200)] [--pg] [--profile]
// --pg: PostgreSQL instead (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test), a database
// of its own, dropped after. --profile: node --cpu-prof on the server, the busiest threads summarised.
// --max-seconds S: the job cancelled after S seconds (a full run on a machine too busy to end it in time).
// Exit 1 when the counts, the clicks stored or a redirect answer are wrong.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import pg from "pg";
import { type ChildStats, type ServerChild, cpuTimeUs, killAll, processesCpuUs, startChild } from "./lib/children.js";
import { busyShare } from "./lib/cpu.js";
import { formatSummary, summarise } from "./lib/cpuprofile.js";
import { PacedRedirects, type RedirectTally, RssSampler } from "./lib/import-watch.js";
import { createTestDatabase } from "../test/helpers/engines.js";
import { ApiClient } from "../test/helpers/client.js";
import { freePort } from "../test/helpers/server.js";

const BENCH_DIR = import.meta.dirname;
const ROOT = join(BENCH_DIR, "..");
const { values: argv } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    links: { type: "string" },
    "visits-per-link": { type: "string" },
    rate: { type: "string", default: "200" },
    pg: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    "max-seconds": { type: "string" },
  },
});
const LINKS = Number(argv.links ?? (argv.smoke ? 2_000 : 100_000));
const PER_LINK = Number(argv["visits-per-link"] ?? 10);
const RATE = Number(argv.rate);
const GOAL_S = 180;
/** --max-seconds: the job is cancelled past this (a run that cannot end in the time there is); its figures so far are printed. */
const MAX_S = argv["max-seconds"] === undefined ? Infinity : Number(argv["max-seconds"]);
const EMAIL = "import-bench@example.com";
const PASSWORD = "import bench password 1";
if (!Number.isInteger(LINKS) || LINKS < 1 || !Number.isInteger(PER_LINK) || PER_LINK < 0 || !(RATE >= 0))
  throw new Error("--links, --visits-per-link, --rate: whole numbers");

process.on("exit", killAll);
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const n = (x: number) => x.toLocaleString("en");

interface JobView {
  id: string;
  state: string;
  error: string | null;
  total: number | null;
  counts: { read: number; created: number; skipped: number; failed: number; visits: number };
  rate: number;
  eta_seconds: number | null;
}

/** A redirect the server must answer with a 302 to this link's destination: an odd index (never click-limited, expiring or on another domain), alias s<i> kept (i >= 10). */
function pickImported(imported: () => number): () => { path: string; location: string } | null {
  return () => {
    const upTo = imported();
    if (upTo < 20) return null;
    const i = 11 + 2 * Math.floor((Math.random() * (upTo - 11)) / 2);
    return { path: `/s${i}`, location: `https://example.com/shlink/${i}` };
  };
}

/** The engine's env for the server: a fresh data dir and, with --pg, a database of its own. */
async function engineEnv(): Promise<{ env: Record<string, string>; dataDir: string; drop: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), "snip-bench-import-"));
  if (!argv.pg) return { env: {}, dataDir, drop: async () => undefined };
  process.env.TEST_DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/test";
  const db = await createTestDatabase("postgres");
  return { env: { DATABASE_URL: db.databaseUrl! }, dataDir, drop: db.drop };
}

/** SUM(click_count) of the account's links and its rows in clicks, read after the server stopped. */
async function clicksStored(env: Record<string, string>, dataDir: string): Promise<{ sum: number; rows: number; links: number }> {
  const sqlSum = "SELECT COALESCE(SUM(l.click_count), 0) AS s, COUNT(*) AS n FROM links l JOIN users u ON u.id = l.owner_id WHERE u.email = $1";
  const sqlRows = "SELECT COUNT(*) AS n FROM clicks";
  if (env.DATABASE_URL) {
    const c = new pg.Client({ connectionString: env.DATABASE_URL });
    await c.connect();
    try {
      const a = (await c.query<{ s: string; n: string }>(sqlSum, [EMAIL])).rows[0]!;
      const b = (await c.query<{ n: string }>(sqlRows)).rows[0]!;
      return { sum: Number(a.s), links: Number(a.n), rows: Number(b.n) };
    } finally {
      await c.end();
    }
  }
  const db = new SQLite(join(dataDir, "snip.db"), { readonly: true });
  try {
    const a = db.prepare(sqlSum.replace("$1", "?")).get(EMAIL) as { s: number; n: number };
    const b = db.prepare(sqlRows).get() as { n: number };
    return { sum: Number(a.s), links: Number(a.n), rows: Number(b.n) };
  } finally {
    db.close();
  }
}

/** PostgreSQL: the pids of the database's backends (the snip server's connections), with --pg. */
async function backendPids(url: string | undefined): Promise<number[]> {
  if (!url) return [];
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")).rows.map(
      (r) => r.pid,
    );
  } finally {
    await c.end();
  }
}

/** Polls the job every second until it ends, printing a progress line every ~10 s. */
async function follow(api: ApiClient, id: string, onRead: (read: number) => void, t0: number, server: ServerChild, fake: ServerChild): Promise<JobView> {
  let lastPrint = 0;
  for (;;) {
    const r = await api.get<{ import: JobView }>(`/api/imports/${id}`);
    if (r.status !== 200) throw new Error(`GET /api/imports/${id}: ${r.status} ${r.text}`);
    const job = r.body.import;
    onRead(job.counts.read);
    const s = (performance.now() - t0) / 1000;
    const ended = ["done", "failed", "cancelled"].includes(job.state);
    if (s - lastPrint >= 10 || ended) {
      lastPrint = s;
      const c = job.counts;
      const cpuS = (pid: number) => ((cpuTimeUs(pid)?.all ?? 0) / 1e6).toFixed(0);
      console.log(
        `  ${s.toFixed(0).padStart(4)} s  ${job.state}  read ${n(c.read)}/${n(job.total ?? 0)}  created ${n(c.created)}  visits ${n(c.visits)}  ${job.rate.toFixed(0)} links/s` +
          `  eta ${job.eta_seconds ?? "?"} s  (CPU s: server ${cpuS(server.pid)}, fake ${cpuS(fake.pid)})`,
      );
    }
    if (ended) return job;
    if (s > MAX_S) {
      console.log(`  --max-seconds ${MAX_S} passed: the job is cancelled (the figures below are of a cut-off run)`);
      const cancelled = await api.post<{ import: JobView }>(`/api/imports/${id}/cancel`, {});
      if (cancelled.status !== 200) throw new Error(`cancel: ${cancelled.status} ${cancelled.text}`);
      lastPrint = -Infinity;
    }
    await new Promise((res) => setTimeout(res, 1_000));
  }
}

function createAccount(env: Record<string, string>): void {
  const made = spawnSync(
    process.execPath,
    ["--import", "tsx", join(ROOT, "src", "cli.ts"), "user", "create", "--email", EMAIL, "--password", PASSWORD, "--plan", "business", "--verified"],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
    },
  );
  if (made.status !== 0) throw new Error(`user create failed: ${made.stderr}`);
}

interface RunResult {
  job: JobView;
  seconds: number;
  redirects: RedirectTally;
  rss: RssSampler;
  cpu: { server: number; fake: number; pg: number | null };
  busy: number | null;
}

/** The import itself, with the watchers around it. */
async function runImport(server: ServerChild, fake: ServerChild, token: string, pgUrl: string | undefined): Promise<RunResult> {
  const api = new ApiClient(server.url);
  if ((await api.login(EMAIL, PASSWORD)).status !== 200) throw new Error("login failed");
  let imported = 0;
  const rss = new RssSampler(server.pid);
  const redirects = new PacedRedirects(
    server.url,
    RATE,
    pickImported(() => imported),
  );
  const cpu0 = { server: cpuTimeUs(server.pid)?.all ?? 0, fake: cpuTimeUs(fake.pid)?.all ?? 0 };
  const pg0 = processesCpuUs(await backendPids(pgUrl));
  const busy = await busyShare(1_000);
  const t0 = performance.now();
  // on_taken "generate": s0..s9 are too short for a snip alias and get generated ones.
  const started = await api.post<{ import: JobView }>("/api/imports", { source: "shlink", base_url: fake.url, token, on_taken: "generate" });
  if (started.status !== 201) throw new Error(`POST /api/imports: ${started.status} ${started.text}`);
  const job = await follow(api, started.body.import.id, (read) => (imported = read), t0, server, fake);
  const seconds = (performance.now() - t0) / 1000;
  const tally = await redirects.stop();
  rss.stop();
  // The backends' CPU: what the import's statements (and the redirects' clicks) cost PostgreSQL.
  const pg1 = processesCpuUs(await backendPids(pgUrl));
  const pgUs = pgUrl ? [...pg1].reduce((sum, [pid, us]) => sum + us - (pg0.get(pid) ?? 0), 0) : null;
  const cpu = {
    server: ((cpuTimeUs(server.pid)?.all ?? 0) - cpu0.server) / 1e6,
    fake: ((cpuTimeUs(fake.pid)?.all ?? 0) - cpu0.fake) / 1e6,
    pg: pgUs === null ? null : pgUs / 1e6,
  };
  return { job, seconds, redirects: tally, rss, cpu, busy };
}

function printRun(r: RunResult): void {
  const c = r.job.counts;
  console.log(
    `\ntotal ${r.seconds.toFixed(1)} s (goal for 100,000 links: < ${GOAL_S} s): ${n(Math.round(c.read / r.seconds))} links/s, ${n(Math.round(c.visits / r.seconds))} visits/s`,
  );
  console.log(
    `counts: read ${n(c.read)}, created ${n(c.created)}, skipped ${n(c.skipped)}, failed ${n(c.failed)}, visits ${n(c.visits)}; state ${r.job.state}${r.job.error ? ` (${r.job.error})` : ""}`,
  );
  console.log(
    `CPU during the import: server ${r.cpu.server.toFixed(1)} s (${((100 * r.cpu.server) / r.seconds).toFixed(0)}% of a core), fake Shlink ${r.cpu.fake.toFixed(1)} s${r.cpu.pg === null ? "" : `, PostgreSQL backends ${r.cpu.pg.toFixed(1)} s`}; per link: server ${((1000 * r.cpu.server) / Math.max(1, c.read)).toFixed(2)} ms${r.cpu.pg === null ? "" : `, PostgreSQL ${((1000 * r.cpu.pg) / Math.max(1, c.read)).toFixed(2)} ms`}; machine busy before the start ${r.busy === null ? "?" : (100 * r.busy).toFixed(0) + "%"}`,
  );
  const at = (f: number) => {
    const s = r.rss.at(f);
    return s ? `${mb(s.rss)} at ${s.t.toFixed(0)} s` : "?";
  };
  console.log(
    `server memory: peak RSS (VmHWM) ${mb(r.rss.peak)}; RSS first ${at(0)}, 25% ${at(0.25)}, middle ${at(0.5)}, 75% ${at(0.75)}, last ${at(1)} (${r.rss.samples.length} samples)`,
  );
  const t = r.redirects;
  console.log(
    `redirects during the import: ${n(t.sent)} sent over ${t.seconds.toFixed(0)} s (${(t.sent / Math.max(1, t.seconds)).toFixed(0)}/s, target ${RATE}/s), ${n(t.ok)} right 302s, ${t.errors} errors; ` +
      `latency p50 ${t.p50.toFixed(2)} ms, p99 ${t.p99.toFixed(2)} ms, max ${t.max.toFixed(1)} ms`,
  );
  for (const e of t.errorSamples) console.log(`  error: ${e}`);
}

/** Exit status: every count exact, every redirect a right 302, every click stored. */
function verdict(r: RunResult, stored: { sum: number; rows: number; links: number }): boolean {
  const c = r.job.counts;
  const visits = LINKS * PER_LINK;
  const want = { read: LINKS, created: LINKS, skipped: 0, failed: 0, visits };
  const countsOk = r.job.state === "done" && JSON.stringify(c) === JSON.stringify(want);
  const clicks = visits + r.redirects.ok;
  const clicksOk = stored.sum === clicks && stored.rows === clicks && stored.links === LINKS;
  const redirectsOk = r.redirects.errors === 0 && r.redirects.ok === r.redirects.sent && (RATE === 0 || r.redirects.sent > 0);
  console.log(`counts ${countsOk ? "OK" : `WRONG (want ${JSON.stringify(want)})`}`);
  console.log(
    `clicks stored: SUM(click_count) ${n(stored.sum)}, rows ${n(stored.rows)}, links ${n(stored.links)}; want ${n(clicks)} (${n(visits)} visits + ${n(r.redirects.ok)} redirects) and ${n(LINKS)} links: ${clicksOk ? "MATCH" : "MISMATCH"}`,
  );
  console.log(`redirects ${redirectsOk ? "OK" : "WRONG"}`);
  if (LINKS >= 100_000) console.log(`goal (${n(LINKS)} links under ${GOAL_S} s): ${r.seconds < GOAL_S ? "PASS" : "MISSED"}`);
  return countsOk && clicksOk && redirectsOk;
}

function printProfile(dir: string): void {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")) : [];
  const threads = files.map((f) => summarise(join(dir, f))).sort((a, b) => b.totalMs - b.idleMs - (a.totalMs - a.idleMs));
  for (const [i, s] of threads.slice(0, 2).entries())
    console.log(`\n--- CPU profile of the server, ${i === 0 ? "busiest" : "second busiest"} thread ---\n${formatSummary(s, 30)}`);
}

async function main(): Promise<boolean> {
  const { env: dbEnv, dataDir, drop } = await engineEnv();
  const port = await freePort();
  const profileDir = join(dataDir, "profile");
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: "error",
    SESSION_SECRET: "bench-import-session-secret-0123456789",
    IMPORT_ALLOW_PRIVATE: "true",
    ...dbEnv,
  };
  try {
    console.log(
      `bench:import: ${n(LINKS)} links x ${PER_LINK} visits = ${n(LINKS * PER_LINK)} visits from the fake Shlink into ${argv.pg ? "PostgreSQL" : "SQLite"}, redirects at ${RATE}/s`,
    );
    createAccount(env);
    const fake = await startChild({ name: "fake-shlink", script: join(BENCH_DIR, "fake-source-server.ts"), args: [String(LINKS), String(PER_LINK)] });
    const server = await startChild({
      name: "snip",
      script: join(BENCH_DIR, "snip-server.ts"),
      env,
      nodeFlags: argv.profile ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [],
    });
    let run: RunResult;
    try {
      // The fake's default token (test/helpers/fake-sources.ts).
      run = await runImport(server, fake, "token-shlink", env.DATABASE_URL);
      const served = ((await fake.stats()) as ChildStats & { served?: Record<string, number> }).served;
      console.log(`fake Shlink served: ${JSON.stringify(served)}`);
    } finally {
      const code = await server.stop();
      if (code !== 0) console.log(`snip server exited with ${code}`);
      await fake.stop();
    }
    printRun(run);
    const ok = verdict(run, await clicksStored(env, dataDir));
    if (argv.profile) printProfile(profileDir);
    return ok;
  } finally {
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.exit((await main()) ? 0 : 1);
