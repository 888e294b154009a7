// Webhooks under redirect load: the hot link's rate and p99 with five active webhooks on slow
// receivers (3 s answers, so every delivery times out at 2 s and the queues stay full) against the same
// run with the webhooks inactive, in alternating rounds; the server's peak RSS (the queues must stay
// bounded); then the deliveries per second the service sustains to fast receivers.
//   npm run bench:webhooks            BENCH_REQUESTS (40000), BENCH_ROUNDS (3), BENCH_CONNECTIONS (50),
//                                     BENCH_DATABASE_URL (default: SQLite in a temporary DATA_DIR),
//                                     BENCH_PROFILE (a directory for the server's .cpuprofile)
import { type ChildProcess, fork, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuTimeUs, killAll, peakRssBytes, startChild } from "./lib/children.js";
import { autocannonRun, type LoadResult } from "./lib/load.js";
import { makeTestCa } from "../test/helpers/webhook-receivers.js";
import { ApiClient } from "../test/helpers/client.js";
import { freePort } from "../test/helpers/server.js";

const BENCH_DIR = import.meta.dirname;
const ROOT = join(BENCH_DIR, "..");
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const HOOKS = 5;

process.on("exit", killAll);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

async function startReceivers(
  keyFile: string,
  certFile: string,
): Promise<{ child: ChildProcess; ports: number[]; ask<T>(msg: object, type: string): Promise<T> }> {
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
  return { child, ports: ready.ports, ask };
}

const ca = makeTestCa();
const receivers = await startReceivers(join(ca.dir, "leaf.key"), join(ca.dir, "leaf.crt"));
const received = async () => (await receivers.ask<{ received: number }>({ type: "count" }, "count")).received;

const dataDir = mkdtempSync(join(tmpdir(), "snip-bench-wh-"));
const port = await freePort();
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  PORT: String(port),
  BASE_URL: `http://127.0.0.1:${port}`,
  LOG_LEVEL: "error",
  SESSION_SECRET: "bench-webhooks-session-secret-0123456789",
  WEBHOOK_ALLOW_PRIVATE: "true",
  NODE_EXTRA_CA_CERTS: ca.caFile,
  ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
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
    "bench@example.com",
    "--password",
    "bench password 1",
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
// BENCH_PROFILE=<dir>: the server writes a .cpuprofile there (summarise with bench/profile-summary.ts).
const profile = process.env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_PROFILE] : [];
const server = await startChild({ name: "snip", script: join(BENCH_DIR, "snip-server.ts"), env, nodeFlags: profile });
const api = new ApiClient(server.url);
if ((await api.login("bench@example.com", "bench password 1")).status !== 200) throw new Error("login failed");
const link = (await api.post("/api/links", { url: "https://example.com/hot", alias: "hotlink" })).body.link as { alias: string };
const hooks: string[] = [];
for (const p of receivers.ports) {
  const r = await api.post("/api/webhooks", { name: `bench ${p}`, url: `https://127.0.0.1:${p}/hook` });
  if (r.status !== 201) throw new Error(`webhook create failed: ${r.text}`);
  hooks.push(r.body.webhook.id);
}
const setActive = async (active: boolean) => {
  for (const id of hooks) await api.patch(`/api/webhooks/${id}`, { active });
};

interface Phase {
  load: LoadResult;
  cpuUsPerReq: number;
  peakRss: number;
}
async function phase(): Promise<Phase> {
  const before = cpuTimeUs(server.pid);
  const load = await autocannonRun({ url: server.url, paths: [`/${link.alias}`], connections: CONNECTIONS, amount: REQUESTS, maxSeconds: 300 });
  const after = cpuTimeUs(server.pid);
  if ((load.statuses[302] ?? 0) !== load.completed) throw new Error(`not every answer was a 302: ${JSON.stringify(load.statuses)}`);
  return { load, cpuUsPerReq: before && after ? (after.all - before.all) / load.completed : NaN, peakRss: peakRssBytes(server.pid) ?? 0 };
}

// Warm-up (JIT, link cache), then alternating rounds: webhooks inactive / active on slow receivers.
await setActive(false);
await phase();
const off: Phase[] = [];
const slow: Phase[] = [];
const rssAfterWarmup = peakRssBytes(server.pid) ?? 0;
for (let r = 0; r < ROUNDS; r++) {
  await setActive(false);
  off.push(await phase());
  await setActive(true);
  slow.push(await phase());
}
await setActive(false);
await new Promise((r) => setTimeout(r, 2_500)); // the last slow deliveries time out
const dropped = ((await api.get("/api/webhooks")).body.webhooks as { dropped: number }[]).reduce((s, w) => s + w.dropped, 0);

// Fast receivers: how many deliveries per second the service sustains while serving redirects.
await receivers.ask({ type: "mode", mode: "fast" }, "mode");
await setActive(true);
const r0 = await received();
const t0 = performance.now();
const cpu0 = cpuTimeUs(server.pid);
const fastLoad = await phase();
// Until the queues have drained: no new delivery for 1.5 s.
let last = await received();
let lastAt = performance.now();
while (performance.now() - lastAt < 1_500) {
  await new Promise((r) => setTimeout(r, 100));
  const now = await received();
  if (now !== last) {
    last = now;
    lastAt = performance.now();
  }
}
const delivered = last - r0;
const deliverySeconds = (lastAt - t0) / 1000;
const cpu1 = cpuTimeUs(server.pid);

const mOff = { rps: median(off.map((p) => p.load.rps)), p99: median(off.map((p) => p.load.p99)), cpu: median(off.map((p) => p.cpuUsPerReq)) };
const mSlow = { rps: median(slow.map((p) => p.load.rps)), p99: median(slow.map((p) => p.load.p99)), cpu: median(slow.map((p) => p.cpuUsPerReq)) };
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
console.log(
  `\nwebhooks bench: ${REQUESTS} requests x ${ROUNDS} rounds per case, ${CONNECTIONS} connections, ${HOOKS} webhooks, ${env.DATABASE_URL ? "PostgreSQL" : "SQLite"}\n`,
);
console.log("| case | rate (req/s, median) | p99 (ms) | server CPU per request (µs) | peak RSS after |");
console.log("|---|---|---|---|---|");
console.log(`| webhooks inactive | ${mOff.rps.toFixed(0)} | ${mOff.p99.toFixed(2)} | ${mOff.cpu.toFixed(1)} | ${mb(Math.max(...off.map((p) => p.peakRss)))} |`);
console.log(
  `| 5 active, slow receivers (3 s) | ${mSlow.rps.toFixed(0)} | ${mSlow.p99.toFixed(2)} | ${mSlow.cpu.toFixed(1)} | ${mb(Math.max(...slow.map((p) => p.peakRss)))} |`,
);
console.log(
  `\nrate ratio ${(mSlow.rps / mOff.rps).toFixed(3)} (goal >= 0.9), p99 ratio ${(mSlow.p99 / mOff.p99).toFixed(2)} (goal <= 2), peak RSS after warm-up ${mb(rssAfterWarmup)}, at the end ${mb(peakRssBytes(server.pid) ?? 0)}`,
);
console.log(`slow receivers: ${dropped} events dropped (queues full), as expected: ${ROUNDS * REQUESTS * HOOKS} offered`);
// Server CPU of the fast phase beyond what its redirects cost without webhooks, per delivery made.
const cpuPerDelivery = cpu0 && cpu1 ? (cpu1.all - cpu0.all - mOff.cpu * fastLoad.load.completed) / delivered : NaN;
console.log(
  `fast receivers: ${delivered} deliveries in ${deliverySeconds.toFixed(1)} s = ${(delivered / deliverySeconds).toFixed(0)} deliveries/s while serving ${fastLoad.load.rps.toFixed(0)} redirects/s; server CPU per delivery ≈ ${cpuPerDelivery.toFixed(0)} µs`,
);
const ok = mSlow.rps >= 0.9 * mOff.rps && mSlow.p99 <= 2 * mOff.p99;
console.log(ok ? "goals met" : "GOALS NOT MET");

await server.stop();
receivers.child.kill("SIGTERM");
process.exit(ok ? 0 : 1);
