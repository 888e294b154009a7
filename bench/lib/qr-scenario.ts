// bench/redirect.ts's `qr` scenario: one hot link's p99 on snip SQLite, quiet and while
// GET /api/qr/<alias> is hammered in parallel (bench/qr-hammer.ts), rounds alternating; the goal is the
// loaded p99 within 2x of the quiet one. Clicks stored must equal the 302s sent, as in every scenario.
import { type ChildProcess, fork } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type ChildStats, startChild } from "./children.js";
import { type ClickTotals, sqliteTotals } from "./db.js";
import { plainAlias } from "./dataset.js";
import { waitQuiet } from "./cpu.js";
import { autocannonRun, type LoadResult, mergeStatuses, wrkRun } from "./load.js";
import type { HammerReport } from "../qr-hammer.js";

const BENCH_DIR = new URL("../", import.meta.url).pathname;

export interface QrScenarioOptions {
  seedFile: string;
  workDir: string;
  links: number;
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
  loadTool: "autocannon" | "wrk";
  /** Parallel QR loops: three quarters ask for new images, a quarter for cached ones. */
  qrLoops: number;
  /** Before each quiet round, wait up to this many seconds for the machine to be idle (0: not). */
  quietWait: number;
  log: (s: string) => void;
}

export interface QrScenarioResult {
  quiet: LoadResult[];
  loaded: LoadResult[];
  hammer: HammerReport[];
  statuses: Record<number, number>;
  socketErrors: number;
  inFlightBound: number;
  stats?: ChildStats;
  exitCode: number | null;
  before: ClickTotals;
  totals: ClickTotals;
  drawLoops: number;
  cachedLoops: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

function startHammer(): Promise<ChildProcess> {
  const child = fork(join(BENCH_DIR, "qr-hammer.ts"), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("spawn", () => resolve(child));
    child.once("error", reject);
  });
}

function ask<T>(child: ChildProcess, msg: object, reply: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`qr-hammer: no ${reply}`)), 60_000);
    const on = (m: { type?: string }) => {
      if (m.type !== reply) return;
      clearTimeout(timer);
      child.off("message", on);
      resolve(m as T);
    };
    child.on("message", on);
    child.send(msg);
  });
}

export async function runQrScenario(o: QrScenarioOptions): Promise<QrScenarioResult> {
  const dir = join(o.workDir, "qr", "sqlite");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "snip.db");
  copyFileSync(o.seedFile, file);
  const before = sqliteTotals(file);
  // TRUST_PROXY: the hammer speaks for many addresses (X-Forwarded-For), as a crowd or a botnet would.
  const child = await startChild({
    name: "snip-sqlite-qr",
    script: join(BENCH_DIR, "snip-server.ts"),
    env: {
      DATA_DIR: dir,
      DATABASE_URL: `sqlite:${file}`,
      PORT: "0",
      HOST: "127.0.0.1",
      BASE_URL: "http://127.0.0.1",
      LOG_LEVEL: "warn",
      TRUST_PROXY: "127.0.0.1",
    },
  });
  const hot = ["/" + plainAlias(0)];
  const aliases = Array.from({ length: Math.min(o.links - 1, 5_000) }, (_, i) => plainAlias(i + 1));
  const drawLoops = Math.max(1, Math.round(o.qrLoops * 0.75));
  const cachedLoops = Math.max(0, o.qrLoops - drawLoops);
  const res: QrScenarioResult = {
    quiet: [],
    loaded: [],
    hammer: [],
    statuses: {},
    socketErrors: 0,
    inFlightBound: 0,
    exitCode: null,
    before,
    totals: before,
    drawLoops,
    cachedLoops,
  };
  let rate = 0;
  const run = async (seconds: number): Promise<LoadResult> => {
    const r =
      o.loadTool === "wrk"
        ? await wrkRun({ url: child.url, paths: hot, connections: o.connections, seconds, workDir: join(o.workDir, "qr") })
        : await autocannonRun({
            url: child.url,
            paths: hot,
            connections: o.connections,
            amount: Math.max(o.connections * 20, rate * seconds),
            maxSeconds: Math.max(seconds * 4, seconds + 15),
          });
    mergeStatuses(res.statuses, r.statuses);
    res.socketErrors += r.socketErrors;
    res.inFlightBound += r.inFlightBound;
    if (r.rps > 0) rate = r.rps;
    return r;
  };
  try {
    // The cached loops' images, drawn once before anything is measured.
    for (const a of aliases.slice(0, 8)) await (await fetch(`${child.url}/api/qr/${a}?format=png&size=512`)).arrayBuffer();
    await run(Math.max(1, o.warmup));
    for (let r = 0; r < o.rounds; r++) {
      if (o.quietWait > 0) await waitQuiet(o.quietWait);
      const quiet = await run(o.duration);
      res.quiet.push(quiet);
      const hammer = await startHammer();
      await ask(hammer, { type: "start", url: child.url, aliases, drawLoops, cachedLoops }, "started");
      await new Promise((ok) => setTimeout(ok, 1000)); // the drawing threads and their queue full before measuring
      const loaded = await run(o.duration);
      const report = await ask<HammerReport>(hammer, { type: "stop" }, "report");
      res.loaded.push(loaded);
      res.hammer.push(report);
      o.log(
        `  qr round ${r + 1}: quiet p99 ${quiet.p99.toFixed(2)} ms (${quiet.rps.toFixed(0)} req/s), with QR load p99 ${loaded.p99.toFixed(2)} ms (${loaded.rps.toFixed(0)} req/s); ` +
          `QR: ${report.drawn} drawn (mean ${report.drawMeanMs.toFixed(0)} ms, max ${report.drawMaxMs.toFixed(0)} ms), ${report.refused} refused 429, ${report.cached} cached, ${report.other} other`,
      );
    }
    res.stats = await child.stats();
  } finally {
    res.exitCode = await child.stop();
  }
  res.totals = sqliteTotals(file);
  return res;
}

/** The scenario's table and the goal's verdict (the exit status is left to clicksOk and errors). */
export function qrSummary(r: QrScenarioResult): { text: string; ok: boolean; goal: string; clicksOk: boolean; errors: number } {
  const quiet = median(r.quiet.map((x) => x.p99));
  const loaded = median(r.loaded.map((x) => x.p99));
  const ratio = loaded / quiet;
  const sent302 = r.statuses[302] ?? 0;
  const count = r.totals.clickCount - r.before.clickCount;
  const rows = r.totals.clickRows - r.before.clickRows;
  const slack = r.inFlightBound;
  const clicksOk = r.exitCode === 0 && count >= sent302 && count <= sent302 + slack && rows >= sent302 && rows <= sent302 + slack;
  const errors = Object.entries(r.statuses).reduce((n, [code, k]) => n + (code === "302" ? 0 : k), 0) + r.socketErrors;
  const h = r.hammer.reduce(
    (a, x) => ({
      drawn: a.drawn + x.drawn,
      refused: a.refused + x.refused,
      cached: a.cached + x.cached,
      other: a.other + x.other,
      seconds: a.seconds + x.seconds,
      max: Math.max(a.max, x.drawMaxMs),
    }),
    { drawn: 0, refused: 0, cached: 0, other: 0, seconds: 0, max: 0 },
  );
  const fmt = (n: number) => Math.round(n).toLocaleString("en");
  const text = [
    `hot link, snip SQLite      req/s  p50 ms  p99 ms`,
    `  quiet                 ${fmt(median(r.quiet.map((x) => x.rps))).padStart(8)}  ${median(r.quiet.map((x) => x.p50))
      .toFixed(2)
      .padStart(6)}  ${quiet.toFixed(2).padStart(6)}`,
    `  with QR load          ${fmt(median(r.loaded.map((x) => x.rps))).padStart(8)}  ${median(r.loaded.map((x) => x.p50))
      .toFixed(2)
      .padStart(6)}  ${loaded.toFixed(2).padStart(6)}`,
    `  p99 ratio (with QR load / quiet): ${ratio.toFixed(2)}  (rounds: quiet ${r.quiet.map((x) => x.p99.toFixed(2)).join(" / ")}, loaded ${r.loaded.map((x) => x.p99.toFixed(2)).join(" / ")} ms)`,
    `  QR load: ${r.drawLoops} loops asking for new 1024-2048 px PNGs (distinct alias, size, address), ${r.cachedLoops} for cached 512 px PNGs every 20 ms; ` +
      `over ${h.seconds.toFixed(1)} s: ${fmt(h.drawn)} drawn (slowest ${fmt(h.max)} ms), ${fmt(h.refused)} refused 429, ${fmt(h.cached)} cached, ${fmt(h.other)} other`,
    `  302s sent ${fmt(sent302)}, clicks stored ${fmt(count)} / ${fmt(rows)} ${clicksOk ? "MATCH" : "MISMATCH"}${slack ? ` (±${slack} cut off by wrk)` : ""}; ` +
      `peak RSS ${r.stats?.vmHwm ? `${(r.stats.vmHwm / 1048576).toFixed(0)} MB` : "?"}, exit ${r.exitCode}`,
  ].join("\n");
  return {
    text,
    ok: ratio <= 2,
    goal: `QR hammered, one hot link, SQLite: p99 ${loaded.toFixed(2)} ms = ${ratio.toFixed(2)}x its quiet ${quiet.toFixed(2)} ms (goal <= 2)`,
    clicksOk,
    errors,
  };
}
