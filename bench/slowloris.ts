// Slow clients (issue 24): the redirect rate of one hot link while 1,000 sockets trickle their headers
// (bench/slowloris-attacker.ts), as a ratio to the same server idle, in alternating rounds of one run.
// Two attacks: all sockets from one address (CONNECTIONS_PER_ADDRESS closes most at accept) and from
// 1,000 addresses (each under the cap: HEADERS_TIMEOUT_MS closes them). The server runs as `snip serve`
// does, with its defaults (bench/snip-server.ts); see bench/README.md.
//
//   npm run bench:slowloris                    1,000 sockets, 10 s rounds, 3 rounds per case
//   npm run bench:slowloris -- --smoke         100 sockets, 1 s rounds, one round
//   options: --sockets N --duration S --rounds N --connections N --cases one,many
import { type ChildProcess, fork } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { killAll, startChild } from "./lib/children.js";
import { autocannonRun, type LoadResult } from "./lib/load.js";
import { plainAlias } from "./lib/dataset.js";
import { sqliteSeed, sqliteTotals } from "./lib/db.js";

const BENCH_DIR = import.meta.dirname;
const { values: args } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    sockets: { type: "string" },
    duration: { type: "string" },
    rounds: { type: "string" },
    connections: { type: "string", default: "50" },
    cases: { type: "string", default: "one,many" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (args.help) {
  console.log("usage: npm run bench:slowloris -- [--smoke] [--sockets 1000] [--duration 10] [--rounds 3] [--connections 50] [--cases one,many]");
  process.exit(0);
}
const smoke = args.smoke;
const SOCKETS = Number(args.sockets ?? (smoke ? 100 : 1_000));
// 10 s rounds: each attacked round spans a whole HEADERS_TIMEOUT_MS cycle (closes and reopens included).
const DURATION = Number(args.duration ?? (smoke ? 1 : 10));
const ROUNDS = Number(args.rounds ?? (smoke ? 1 : 3));
const CONNECTIONS = Number(args.connections);
const CASES = args.cases.split(",").filter((c) => c === "one" || c === "many") as ("one" | "many")[];
const LINKS = 1_000;

const log = (s: string) => process.stderr.write(`[slowloris] ${s}\n`);
process.on("exit", killAll);

interface AttackCounts {
  open: number;
  opened: number;
  answered: number;
  refused: number;
}

function attacker(port: number, addresses: number): Promise<{ child: ChildProcess; ask(type: string): Promise<AttackCounts> }> {
  const child = fork(join(BENCH_DIR, "slowloris-attacker.ts"), [String(port), String(SOCKETS), String(addresses)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ask = (type: string) =>
    new Promise<AttackCounts>((resolve) => {
      const on = (m: AttackCounts & { type?: string }) => {
        if (m.type !== type) return;
        child.off("message", on);
        resolve(m);
      };
      child.on("message", on);
      child.send({ type });
    });
  return new Promise((resolve) => child.once("message", () => resolve({ child, ask })));
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const seed = await sqliteSeed(LINKS, log);
const dataDir = mkdtempSync(join(tmpdir(), "snip-slowloris-"));
const dbFile = join(dataDir, "snip.db");
copyFileSync(seed, dbFile);
const server = await startChild({
  name: "snip",
  script: join(BENCH_DIR, "snip-server.ts"),
  env: { DATA_DIR: dataDir, DATABASE_URL: `sqlite:${dbFile}`, PORT: "0", HOST: "127.0.0.1", BASE_URL: "http://127.0.0.1", LOG_LEVEL: "error" },
  // Start-up through tsx takes minutes on a machine busy with other work.
  timeoutMs: 300_000,
});
const port = Number(new URL(server.url).port);
const paths = [`/${plainAlias(0)}`];
let rate = 0;
let sent302 = 0;
let errors = 0;

async function round(): Promise<LoadResult> {
  const r = await autocannonRun({
    url: server.url,
    paths,
    connections: CONNECTIONS,
    amount: Math.max(CONNECTIONS * 20, rate * DURATION),
    maxSeconds: DURATION * 4 + 15,
  });
  sent302 += r.statuses[302] ?? 0;
  errors += r.completed - (r.statuses[302] ?? 0) + r.socketErrors;
  if (r.rps > 0) rate = r.rps;
  return r;
}

/** Until the attack holds what it can: every socket opened once and the count open steady for a second. */
async function attackSettled(a: { ask(type: string): Promise<AttackCounts> }): Promise<AttackCounts> {
  let last = await a.ask("count");
  for (;;) {
    await new Promise((r) => setTimeout(r, 1_000));
    const now = await a.ask("count");
    if (now.opened >= SOCKETS && now.open === last.open) return now;
    last = now;
  }
}

// Warm-up: JIT, the link cached, the rate measured for the fixed-amount rounds.
for (let i = 0; i < (smoke ? 1 : 3); i++) await round();

interface CaseResult {
  name: string;
  idle: LoadResult[];
  attacked: LoadResult[];
  held: number[];
  counts: AttackCounts[];
}
const results: CaseResult[] = [];
for (const c of CASES) {
  const addresses = c === "one" ? 1 : SOCKETS;
  const a = await attacker(port, addresses);
  const res: CaseResult = {
    name: c === "one" ? `${SOCKETS} sockets from one address` : `${SOCKETS} sockets from ${addresses} addresses`,
    idle: [],
    attacked: [],
    held: [],
    counts: [],
  };
  log(res.name);
  for (let r = 0; r < ROUNDS; r++) {
    res.idle.push(await round());
    await a.ask("start");
    const before = await attackSettled(a);
    res.held.push(before.open);
    res.attacked.push(await round());
    res.counts.push(await a.ask("count"));
    await a.ask("stop");
  }
  a.child.kill("SIGTERM");
  results.push(res);
}
const exit = await server.stop();
const totals = sqliteTotals(dbFile);
rmSync(dataDir, { recursive: true, force: true });

console.log(
  `\nslowloris bench: one hot link, ${CONNECTIONS} connections (autocannon), ${DURATION} s rounds x ${ROUNDS} per case, attack sockets trickle a header line a second and reopen a second after being closed; server defaults (HEADERS_TIMEOUT_MS 10 s, CONNECTIONS_PER_ADDRESS 256); node ${process.version}\n`,
);
console.log(
  "| case | idle req/s (median) | under attack req/s (median) | ratio | attack sockets held by the server | closed by a timeout (400) | refused at accept |",
);
console.log("|---|---|---|---|---|---|---|");
let ok = true;
for (const r of results) {
  const idle = median(r.idle.map((x) => x.rps));
  const attacked = median(r.attacked.map((x) => x.rps));
  const ratio = attacked / idle;
  ok &&= ratio >= 0.9;
  const sum = (k: keyof AttackCounts) => r.counts.reduce((n, c) => n + c[k], 0);
  console.log(
    `| ${r.name} | ${idle.toFixed(0)} | ${attacked.toFixed(0)} | ${ratio.toFixed(2)} (rounds ${r.attacked.map((x, i) => (x.rps / (r.idle[i] as LoadResult).rps).toFixed(2)).join(" / ")}) | ${r.held.join(" / ")} | ${sum("answered")} | ${sum("refused")} |`,
  );
}
const clicksOk = totals.clickCount === sent302 && totals.clickRows === sent302;
console.log(
  `\nclicks stored = 302s sent: ${totals.clickCount} / ${totals.clickRows} of ${sent302} ${clicksOk ? "MATCH" : "MISMATCH"}; errors ${errors}; server exit ${exit}`,
);
console.log(ok ? "goal met: redirects under attack >= 0.9 of idle in every case" : "BELOW GOAL: redirects under attack < 0.9 of idle");
// A smoke run's one 1 s round per case says nothing about rates (CI saw the idle rate alone swing 19k-52k
// req/s between cases): it proves the attack is held with no error and no click lost; the rate goal is the
// full run's.
if (smoke && !ok) console.log("(smoke run: the rate goal is reported, not enforced; run without --smoke to judge it)");
process.exit((ok || smoke) && clicksOk && errors === 0 && exit === 0 ? 0 : 1);
