// The click journal's cost on the redirect path: two snip servers on SQLite, CLICK_JOURNAL
// on and off, both running at once and loaded in turn with the hot link, in short interleaved bursts,
// so that a busy machine's noise falls on both alike. Reports CPU per answer (the event loop, and all
// threads) and the rate, burst by burst, and the ratio on/off of each pair; checks clicks stored = 302s.
//
//   npm run bench:journal -- [--pairs 12] [--requests 60000] [--connections 50] [--links 20000] [--first on|off]
// (--first: which server starts first; a run's two servers can differ by more than the journal costs,
// so compare runs started both ways.)
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { plainAlias } from "./lib/dataset.js";
import { cpuTimeUs, killAll, type ServerChild, startChild } from "./lib/children.js";
import { sqliteSeed, sqliteTotals } from "./lib/db.js";
import { autocannonRun } from "./lib/load.js";

const { values: args } = parseArgs({
  options: {
    pairs: { type: "string", default: "12" },
    requests: { type: "string", default: "60000" },
    connections: { type: "string", default: "50" },
    links: { type: "string", default: "20000" },
    first: { type: "string", default: "on" },
  },
});
const pairs = Number(args.pairs);
const requests = Number(args.requests);
const connections = Number(args.connections);
const log = (s: string) => process.stderr.write(`[journal-ab] ${s}\n`);
process.on("exit", killAll);

const seed = await sqliteSeed(Number(args.links), log);
const work = mkdtempSync(join(tmpdir(), "journal-ab-"));
const paths = ["/" + plainAlias(0)];

interface Side {
  journal: "on" | "off";
  child: ServerChild;
  file: string;
  main: number[];
  all: number[];
  rps: number[];
  p99: number[];
  sent302: number;
}

async function side(journal: "on" | "off"): Promise<Side> {
  const dataDir = join(work, journal);
  mkdirSync(dataDir);
  const file = join(dataDir, "snip.db");
  copyFileSync(seed, file);
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${file}`,
    PORT: "0",
    HOST: "127.0.0.1",
    BASE_URL: "http://127.0.0.1",
    LOG_LEVEL: "warn",
    CLICK_JOURNAL: journal,
  };
  const child = await startChild({ name: `snip-journal-${journal}`, script: join(import.meta.dirname, "snip-server.ts"), env });
  return { journal, child, file, main: [], all: [], rps: [], p99: [], sent302: 0 };
}

async function burst(s: Side, amount: number, measure: boolean): Promise<void> {
  const before = cpuTimeUs(s.child.pid);
  const r = await autocannonRun({ url: s.child.url, paths, connections, amount, maxSeconds: 120 });
  const after = cpuTimeUs(s.child.pid);
  s.sent302 += r.statuses[302] ?? 0;
  if (!measure || before === null || after === null) return;
  s.main.push((after.main - before.main) / r.completed);
  s.all.push((after.all - before.all) / r.completed);
  s.rps.push(r.rps);
  s.p99.push(r.p99);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const firstOff = args.first === "off" ? await side("off") : null;
const on = await side("on");
const off = firstOff ?? (await side("off"));
for (const s of [on, off]) await burst(s, requests, false);
for (let p = 0; p < pairs; p++) {
  const order = p % 2 === 0 ? [on, off] : [off, on];
  for (const s of order) await burst(s, requests, true);
  log(
    `pair ${String(p + 1).padStart(2)}: ` +
      [on, off]
        .map(
          (s) => `${s.journal.padEnd(3)} ${s.rps.at(-1)!.toFixed(0).padStart(6)} req/s main ${s.main.at(-1)!.toFixed(1)} µs all ${s.all.at(-1)!.toFixed(1)} µs`,
        )
        .join("  |  ") +
      `  main on/off ${(on.main.at(-1)! / off.main.at(-1)!).toFixed(3)}`,
  );
}
for (const s of [on, off]) await s.child.stop();

const ratios = (k: "main" | "all" | "rps") => on[k].map((v, i) => v / (off[k][i] as number));
console.log(`\nclick journal A/B, hot link on SQLite, ${pairs} interleaved pairs of ${requests.toLocaleString("en")} requests, ${connections} connections`);
for (const s of [on, off]) {
  const t = sqliteTotals(s.file);
  console.log(
    `journal ${s.journal.padEnd(3)}: main thread ${median(s.main).toFixed(2)} µs/answer (${Math.min(...s.main).toFixed(1)}-${Math.max(...s.main).toFixed(1)}), ` +
      `all threads ${median(s.all).toFixed(2)} µs, ${median(s.rps).toFixed(0)} req/s, p99 ${median(s.p99).toFixed(2)} ms; ` +
      `302s ${s.sent302.toLocaleString("en")}, clicks stored ${t.clickRows.toLocaleString("en")} ${t.clickRows === s.sent302 ? "MATCH" : "MISMATCH"}`,
  );
}
for (const k of ["main", "all", "rps"] as const) {
  const r = ratios(k).sort((a, b) => a - b);
  console.log(
    `on/off ${k.padEnd(4)}: median ${median(r).toFixed(3)}, pairs ${r[0]!.toFixed(3)}-${r.at(-1)!.toFixed(3)} (middle half ${r[Math.floor(r.length / 4)]!.toFixed(3)}-${r[Math.ceil((3 * r.length) / 4) - 1]!.toFixed(3)})`,
  );
}
