// Soak (issue 24): a real snip server (bench/snip-server.ts, SQLite) under steady mixed traffic for 30
// minutes: redirects with a Zipf spread over many links, dashboard reads (link list, a link, its
// statistics), link edits, and link_click webhooks to receivers that answer after 1 to 3 s. Every
// interval it prints the server's RSS, heap, open handles and event-loop delay; at the end the errors,
// clicks stored against 302s sent (exact) and whether RSS and handles stayed flat after warm-up.
//
//   npm run bench:soak                    30 minutes, a row a minute
//   npm run bench:soak -- --minutes 5     five minutes
//   npm run bench:soak -- --smoke         CI: about a minute, a row every 10 s
//   options: --rate N (redirects per second, default 200) --links N (default 2000)
import { type ChildProcess, fork, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import { type ChildStats, killAll, startChild } from "./lib/children.js";
import { BROWSER_HEADERS } from "./lib/load.js";
import { prng, zipfIndexes } from "./lib/dataset.js";
import { makeTestCa } from "../test/helpers/webhook-receivers.js";
import { ApiClient } from "../test/helpers/client.js";
import { freePort } from "../test/helpers/server.js";

const BENCH_DIR = import.meta.dirname;
const ROOT = join(BENCH_DIR, "..");

const { values: args } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    minutes: { type: "string" },
    rate: { type: "string", default: "200" },
    links: { type: "string", default: "2000" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (args.help) {
  console.log("usage: npm run bench:soak -- [--minutes 30] [--smoke] [--rate 200] [--links 2000]");
  process.exit(0);
}
const smoke = args.smoke;
const SAMPLE_MS = smoke ? 10_000 : 60_000;
const SAMPLES = smoke ? 6 : Math.max(1, Math.round(Number(args.minutes ?? 30)));
const RATE = Number(args.rate);
const LINKS = Number(args.links);
const HOOKS = 3;
/** Dashboard reads and link edits per second (one signed-in user, as a busy dashboard would). */
const READS_PER_S = 5;
const EDITS_PER_S = 2;
/** Redirects in flight at most: past it the load generator waits (and the rate shows the server fell behind). */
const MAX_IN_FLIGHT = 64;

const log = (s: string) => process.stderr.write(`[soak] ${s}\n`);
process.on("exit", killAll);

// ---- set-up: receivers, server, user, links, webhooks ------------------------------------------

async function startReceivers(keyFile: string, certFile: string): Promise<{ child: ChildProcess; ports: number[]; received(): Promise<number> }> {
  const child = fork(join(BENCH_DIR, "webhook-receivers.ts"), [keyFile, certFile, String(HOOKS)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ask = <T>(msg: object, type: string) =>
    new Promise<T>((resolve) => {
      const on = (m: { type?: string }) => {
        if (m.type === type) {
          child.off("message", on);
          resolve(m as T);
        }
      };
      child.on("message", on);
      child.send(msg);
    });
  const ready = await new Promise<{ ports: number[] }>((resolve) => child.once("message", (m: { ports: number[] }) => resolve(m)));
  await ask({ type: "mode", mode: "varied" }, "mode");
  return { child, ports: ready.ports, received: async () => (await ask<{ received: number }>({ type: "count" }, "count")).received };
}

const ca = makeTestCa();
const receivers = await startReceivers(join(ca.dir, "leaf.key"), join(ca.dir, "leaf.crt"));
const dataDir = mkdtempSync(join(tmpdir(), "snip-soak-"));
const port = await freePort();
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  PORT: String(port),
  HOST: "127.0.0.1",
  BASE_URL: `http://127.0.0.1:${port}`,
  LOG_LEVEL: "warn",
  SESSION_SECRET: "bench-soak-session-secret-0123456789abcdef",
  WEBHOOK_ALLOW_PRIVATE: "true",
  NODE_EXTRA_CA_CERTS: ca.caFile,
};
const made = spawnSync(
  process.execPath,
  [
    "--import",
    "tsx",
    join(ROOT, "src", "cli.ts"),
    "user",
    "create",
    "--email",
    "soak@example.com",
    "--password",
    "soak password 1",
    "--plan",
    "business",
    "--verified",
  ],
  {
    cwd: ROOT,
    env: { ...process.env, ...env },
  },
);
if (made.status !== 0) throw new Error(`user create failed: ${made.stderr}`);
const server = await startChild({ name: "snip", script: join(BENCH_DIR, "snip-server.ts"), env, timeoutMs: 300_000 });
const api = new ApiClient(server.url);
if ((await api.login("soak@example.com", "soak password 1")).status !== 200) throw new Error("login failed");

const links: { id: string; alias: string }[] = [];
for (let i = 0; i < LINKS; i += 500) {
  const urls = Array.from({ length: Math.min(500, LINKS - i) }, (_, k) => `https://example.com/soak/${i + k}`).join("\n");
  const r = await api.post("/api/links/bulk", { urls });
  if (r.status !== 200) throw new Error(`bulk create failed: ${r.status} ${r.text}`);
  for (const x of r.body.results as { status: string; link?: { id: string; alias: string } }[]) {
    if (x.status !== "created" || !x.link) throw new Error(`bulk create: ${JSON.stringify(x)}`);
    links.push({ id: x.link.id, alias: x.link.alias });
  }
}
for (const p of receivers.ports) {
  const r = await api.post("/api/webhooks", { name: `soak ${p}`, url: `https://127.0.0.1:${p}/hook` });
  if (r.status !== 201) throw new Error(`webhook create failed: ${r.text}`);
}
log(
  `${links.length} links, ${HOOKS} webhooks on receivers answering in 1-3 s; ${RATE} redirects/s, ${READS_PER_S} dashboard reads/s, ${EDITS_PER_S} edits/s; ${SAMPLES} x ${SAMPLE_MS / 1000} s`,
);

// ---- traffic ------------------------------------------------------------------------------------

interface Counts {
  redirects: number;
  sent302: number;
  reads: number;
  edits: number;
  errors: number;
  /** Ticks where the redirects in flight were at the bound (the server fell behind the rate). */
  behind: number;
}
const total: Counts = { redirects: 0, sent302: 0, reads: 0, edits: 0, errors: 0, behind: 0 };
const errorSamples: string[] = [];
const fail = (what: string) => {
  total.errors++;
  if (errorSamples.length < 10) errorSamples.push(what);
};

const zipf = zipfIndexes(links.length, 200_000, 1.1, 24);
const agent = new Agent({ keepAlive: true, maxSockets: 32 });
let next = 0;
let inFlight = 0;

function redirect(): void {
  const link = links[zipf[next++ % zipf.length] as number] as { alias: string };
  inFlight++;
  const req = request({ host: "127.0.0.1", port, path: `/${link.alias}`, agent, headers: BROWSER_HEADERS }, (res) => {
    res.resume();
    res.on("end", () => {
      inFlight--;
      total.redirects++;
      if (res.statusCode === 302) total.sent302++;
      else fail(`redirect /${link.alias}: ${res.statusCode}`);
    });
  });
  req.on("error", (err) => {
    inFlight--;
    fail(`redirect /${link.alias}: ${err.message}`);
  });
  req.end();
}

const rnd = prng(99);
/** A link the dashboard looks at: mostly the popular ones, as people look at what gets clicked. */
const someLink = () => links[zipf[Math.floor(rnd() * zipf.length)] as number] as { id: string; alias: string };

async function dashboardRead(): Promise<void> {
  const k = Math.floor(rnd() * 3);
  const path = k === 0 ? "/api/links?limit=50" : k === 1 ? `/api/links/${someLink().id}/stats` : `/api/links/${someLink().id}`;
  const r = await api.get(path).catch((err: Error) => ({ status: 0, text: err.message }));
  total.reads++;
  if (r.status !== 200) fail(`GET ${path}: ${r.status} ${r.text.slice(0, 200)}`);
}

let edit = 0;
async function linkEdit(): Promise<void> {
  const link = someLink();
  // A new destination each time: the link's cache entry is dropped and its next visit reads it again.
  const r = await api
    .patch(`/api/links/${link.id}`, { url: `https://example.com/soak/edited/${edit++}` })
    .catch((err: Error) => ({ status: 0, text: err.message }));
  total.edits++;
  if (r.status !== 200) fail(`PATCH /api/links/${link.id}: ${r.status} ${r.text.slice(0, 200)}`);
}

/** Sends `perSecond` of `fn` spread over 10 ms ticks until stopped. */
function paced(perSecond: number, fn: () => void, bounded: boolean): { stop(): void } {
  let owed = 0;
  const t = setInterval(() => {
    owed += perSecond / 100;
    while (owed >= 1) {
      if (bounded && inFlight >= MAX_IN_FLIGHT) {
        total.behind++;
        owed = 0;
        break;
      }
      owed--;
      fn();
    }
  }, 10);
  return { stop: () => clearInterval(t) };
}

/** One call at a time (a dashboard waits for its answer), `perSecond` at most. */
function sequential(perSecond: number, fn: () => Promise<void>): { stop(): Promise<void> } {
  let stopped = false;
  const run = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      await fn();
      const wait = 1000 / perSecond - (performance.now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await run;
    },
  };
}

// ---- samples ------------------------------------------------------------------------------------

interface Sample {
  at: number;
  stats: ChildStats;
  redirectsPerS: number;
  sent302: number;
  reads: number;
  edits: number;
  errors: number;
  delivered: number;
}

const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
const samples: Sample[] = [];
const unit = smoke ? "10 s sample" : "minute";
console.log(
  `\nsoak: ${SAMPLES} x ${unit}, SQLite, ${LINKS} links (Zipf 1.1), ${RATE} redirects/s, ${READS_PER_S} dashboard reads/s, ${EDITS_PER_S} edits/s, ${HOOKS} webhooks to 1-3 s receivers, node ${process.version}\n`,
);
console.log(
  `| ${smoke ? "10 s" : "minute"} | redirects/s | 302s | reads | edits | errors | webhook deliveries | RSS MB | heap MB | handles | event-loop delay p50 / p99 / max ms |`,
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|");

await server.stats(); // resets the loop-delay histogram: set-up is not counted
const redirects = paced(RATE, redirect, true);
const reads = sequential(READS_PER_S, dashboardRead);
const edits = sequential(EDITS_PER_S, linkEdit);
const t0 = performance.now();
let prev = { ...total, delivered: await receivers.received(), at: t0 };
for (let i = 1; i <= SAMPLES; i++) {
  const wait = t0 + i * SAMPLE_MS - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const stats = await server.stats();
  const delivered = await receivers.received();
  const now = performance.now();
  const s: Sample = {
    at: i,
    stats,
    redirectsPerS: (total.redirects - prev.redirects) / ((now - prev.at) / 1000),
    sent302: total.sent302 - prev.sent302,
    reads: total.reads - prev.reads,
    edits: total.edits - prev.edits,
    errors: total.errors - prev.errors,
    delivered: delivered - prev.delivered,
  };
  samples.push(s);
  prev = { ...total, delivered, at: now };
  const d = stats.loopDelay ?? { p50: NaN, p99: NaN, max: NaN };
  console.log(
    `| ${i} | ${s.redirectsPerS.toFixed(0)} | ${s.sent302} | ${s.reads} | ${s.edits} | ${s.errors} | ${s.delivered} | ${mb(stats.rss)} | ${mb(stats.heapUsed ?? 0)} | ${stats.handles ?? "?"} | ${d.p50.toFixed(1)} / ${d.p99.toFixed(1)} / ${d.max.toFixed(1)} |`,
  );
}
redirects.stop();
await Promise.all([reads.stop(), edits.stop()]);
while (inFlight > 0) await new Promise((r) => setTimeout(r, 20));
agent.destroy();
const webhooks = (await api.get("/api/webhooks")).body.webhooks as { dropped: number }[];
const dropped = webhooks.reduce((n, w) => n + w.dropped, 0);
const last = samples.at(-1)?.stats;
const exit = await server.stop();
receivers.child.kill("SIGTERM");

// ---- verdicts -----------------------------------------------------------------------------------

/** Clicks the database holds after the server's graceful stop: rows (raw and staged) and SUM(click_count). */
function storedClicks(): { rows: number; counted: number } {
  const db = new SQLite(join(dataDir, "snip.db"), { readonly: true });
  try {
    const n = (q: string) => Number((db.prepare(q).get() as { n: number }).n);
    return {
      rows: n("SELECT COUNT(*) AS n FROM clicks") + n("SELECT COUNT(*) AS n FROM click_staging"),
      counted: n("SELECT COALESCE(SUM(click_count), 0) AS n FROM links"),
    };
  } finally {
    db.close();
  }
}
const stored = storedClicks();
rmSync(dataDir, { recursive: true, force: true });

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
// Warm-up: samples 1-2; the reference is samples 3-5 (minutes 3-5), compared with the last three.
const ref = samples.slice(2, 5);
const tail = samples.slice(-3);
const rssRef = mean(ref.map((s) => s.stats.rss));
const rssTail = mean(tail.map((s) => s.stats.rss));
const hRef = mean(ref.map((s) => s.stats.handles ?? 0));
const hTail = mean(tail.map((s) => s.stats.handles ?? 0));
// Flat: RSS within 10% (or 16 MB, a GC's swing at this size) and handles within 10% (or 10) of the reference.
const rssFlat = rssTail <= Math.max(rssRef * 1.1, rssRef + 16 * 1024 * 1024);
const handlesFlat = hTail <= Math.max(hRef * 1.1, hRef + 10);
const enough = samples.length >= 6;

console.log(
  `\ntotals: ${total.redirects} redirects (${total.sent302} answered 302), ${total.reads} dashboard reads, ${total.edits} edits, ${total.errors} errors; server exit ${exit}`,
);
console.log(
  `webhooks: ${samples.reduce((n, s) => n + s.delivered, 0)} deliveries received, ${dropped} events dropped (queues full on slow receivers, as designed)`,
);
if (total.behind > 0) console.log(`the server fell behind ${RATE} redirects/s in ${total.behind} ticks of 10 ms (redirects in flight at ${MAX_IN_FLIGHT})`);
if (last?.handlesByType)
  console.log(
    `open handles at the end: ${Object.entries(last.handlesByType)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
for (const e of errorSamples) console.log(`  error: ${e}`);

const verdicts: [string, boolean | null][] = [
  [`errors: ${total.errors} (goal 0)`, total.errors === 0],
  [
    `clicks stored = 302s sent: ${stored.rows} rows, ${stored.counted} counted, ${total.sent302} 302s`,
    stored.rows === total.sent302 && stored.counted === total.sent302,
  ],
  [`server stopped cleanly (exit ${exit})`, exit === 0],
  [
    enough
      ? `RSS flat after warm-up: last 3 ${unit}s ${mb(rssTail)} MB against ${unit}s 3-5 ${mb(rssRef)} MB (${((rssTail / rssRef - 1) * 100).toFixed(1)}%)`
      : `RSS flat: needs 6 ${unit}s or more`,
    enough ? rssFlat : null,
  ],
  [
    enough
      ? `handles flat after warm-up: last 3 ${unit}s ${hTail.toFixed(1)} against ${unit}s 3-5 ${hRef.toFixed(1)}`
      : `handles flat: needs 6 ${unit}s or more`,
    enough ? handlesFlat : null,
  ],
];
console.log("\n=== verdict ===");
for (const [line, ok] of verdicts) console.log(`${ok === null ? "SKIPPED   " : ok ? "PASS      " : "FAIL      "}  ${line}`);
process.exit(verdicts.every(([, ok]) => ok !== false) ? 0 : 1);
