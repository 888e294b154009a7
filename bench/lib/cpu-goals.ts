// Issue 42's goal lines for bench/redirect.ts: CPU per answer and the tail of every scenario against
// the bare node:http server, PostgreSQL's rates, and what metrics and tracing (1 % sampling) cost on the
// hot link. Printed, never failing the run (a loaded machine moves them; correctness fails it).
import { createServer } from "node:http";
import { createServer as createTcpServer } from "node:net";
import type { ScenarioName } from "./dataset.js";

/** The bench's targets: the bare server, snip on each engine, and snip on SQLite with metrics or tracing on. */
export type TargetKind = "baseline" | "sqlite" | "postgres" | "sqlite-metrics" | "sqlite-tracing" | "sqlite-dead-broker" | "sqlite-feed";

interface Figures {
  /** Median CPU time per answer (µs), null when not measured. */
  cpu: number | null;
  rps: number;
  p99: number;
}

interface Verdict {
  line: string;
  ok: boolean | null;
}

/** Metrics on, as an operator turns them on (the token only guards the endpoint). */
export const METRICS_ENV = { METRICS_TOKEN: "bench-metrics-token-0123456789" };

let sink: Promise<string> | null = null;

/** Tracing on at 1 %: the sampler and the fast path's share, spans sent to a collector that accepts and drops them. */
export async function tracingEnv(): Promise<Record<string, string>> {
  sink ??= new Promise((resolve) => {
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
    });
    server.listen(0, "127.0.0.1", () => {
      const a = server.address();
      resolve(`http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`);
    });
    server.unref();
  });
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: await sink,
    OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
    OTEL_TRACES_SAMPLER_ARG: "0.01",
    OTEL_REDIRECT_SAMPLE_RATIO: "0.01",
  };
}

let silent: Promise<number> | null = null;

/**
 * A click stream to a RabbitMQ that never answers (issue 39): a TCP listener that accepts and says nothing. The
 * events wait in the outbox; the redirects must not notice.
 */
export async function deadBrokerEnv(): Promise<Record<string, string>> {
  silent ??= new Promise((resolve) => {
    const server = createTcpServer(() => {});
    server.listen(0, "127.0.0.1", () => {
      const a = server.address();
      resolve(typeof a === "object" && a ? a.port : 0);
    });
    server.unref();
  });
  return { STREAM_AMQP_URL: `amqp://guest:guest@127.0.0.1:${await silent}`, STREAM_TIMEOUT_MS: "2000" };
}

/** A scenario's CPU per answer may be this many times the bare server's (a Zipf miss reads the database). */
const cpuGoal = (name: ScenarioName) => (name === "zipf" ? 1.3 : 1.15);
const P99_GOAL = { sqlite: 1.5, postgres: 2 } as const;
const PG_RPS_GOAL: Partial<Record<ScenarioName, number>> = { hot: 0.85, zipf: 0.75 };

export function cpuGoals(names: ScenarioName[], figures: (name: ScenarioName, kind: TargetKind) => Figures | null, links: number): Verdict[] {
  const out: Verdict[] = [];
  for (const name of names) {
    const base = figures(name, "baseline");
    if (!base) continue;
    const what = name === "zipf" ? `${links.toLocaleString("en")} links Zipf` : name;
    for (const kind of ["sqlite", "postgres"] as const) {
      const f = figures(name, kind);
      if (!f) continue;
      const engine = kind === "sqlite" ? "SQLite" : "PostgreSQL";
      if (f.cpu !== null && base.cpu !== null) {
        const ratio = f.cpu / base.cpu;
        const goal = kind === "sqlite" ? cpuGoal(name) : null;
        out.push({
          line:
            `${what}, ${engine}: CPU per answer ${f.cpu.toFixed(1)} / ${base.cpu.toFixed(1)} µs = ${ratio.toFixed(2)}x the bare server's` +
            (goal === null ? " (no goal)" : ` (goal <= ${goal})`),
          ok: goal === null ? null : ratio <= goal,
        });
      }
      const p99 = f.p99 / base.p99;
      out.push({
        line: `${what}, ${engine}: p99 ${f.p99.toFixed(2)} / ${base.p99.toFixed(2)} ms = ${p99.toFixed(2)}x the bare server's (goal <= ${P99_GOAL[kind]})`,
        ok: p99 <= P99_GOAL[kind],
      });
      const rpsGoal = kind === "postgres" ? PG_RPS_GOAL[name] : undefined;
      if (rpsGoal !== undefined)
        out.push({
          line: `${what}, PostgreSQL: ${(f.rps / base.rps).toFixed(2)} of the bare server's req/s (goal >= ${rpsGoal})`,
          ok: f.rps >= rpsGoal * base.rps,
        });
    }
  }
  for (const kind of ["postgres"] as const) {
    for (const name of ["hot", "zipf"] as const) {
      if (!figures(name, kind))
        out.push({ line: `${name}, PostgreSQL: not run (set TEST_DATABASE_URL${name === "zipf" ? ", --pg-scenarios hot,zipf" : ""})`, ok: null });
    }
  }
  const off = figures("hot", "sqlite");
  for (const [kind, what, goal] of [
    ["sqlite-metrics", "metrics on", 1.02],
    ["sqlite-tracing", "tracing on at 1 % sampling", 1.1],
    ["sqlite-dead-broker", "a click stream to a broker that never answers", 1.1],
  ] as const) {
    const on = figures("hot", kind);
    if (off?.cpu == null || on?.cpu == null) {
      out.push({ line: `hot, SQLite, ${what}: not run (the hot scenario, without --no-observability)`, ok: null });
      continue;
    }
    const ratio = on.cpu / off.cpu;
    const tail = kind === "sqlite-dead-broker" ? `; p99 ${on.p99.toFixed(2)} / ${off.p99.toFixed(2)} ms, req/s ${(on.rps / off.rps).toFixed(2)} of off` : "";
    out.push({
      line: `hot, SQLite, ${what}: CPU per answer ${on.cpu.toFixed(1)} / ${off.cpu.toFixed(1)} µs = ${ratio.toFixed(3)}x off (goal <= ${goal})${tail}`,
      ok: ratio <= goal,
    });
  }
  for (const name of ["hot", "zipf"] as const) {
    const without = figures(name, "sqlite");
    const withFeed = figures(name, "sqlite-feed");
    if (without?.cpu == null || withFeed?.cpu == null) {
      out.push({ line: `${name}, SQLite, a threat feed loaded: not run (--threat-feed 1000000)`, ok: null });
      continue;
    }
    const ratio = withFeed.cpu / without.cpu;
    out.push({
      line: `${name}, SQLite, a threat feed loaded: CPU per answer ${withFeed.cpu.toFixed(1)} / ${without.cpu.toFixed(1)} µs = ${ratio.toFixed(3)}x without; req/s ${(withFeed.rps / without.rps).toFixed(3)} of without (goal: CPU <= 1.03)`,
      ok: ratio <= 1.03,
    });
  }
  out.push(...trackedGoal(figures));
  return out;
}

const ENGINE = { sqlite: "SQLite", postgres: "PostgreSQL" } as const;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/**
 * Issue 57: a link with app destinations against the same owner's plain link under the same four user agents, in
 * the same server and rounds (app-hot's twin), goal 1.05; app-hot and the association files against the plain hot
 * link of the hot scenario, each over the bare server of its own rounds (the files "at redirect speed": their ratio
 * to a bare server sending the same bytes within 1.05x of the hot redirect's ratio to its own).
 */
export function appGoals(
  figures: (name: ScenarioName, kind: TargetKind) => Figures | null,
  twin: (kind: "sqlite" | "postgres") => { cpuPerReq: number[]; appCpuPerReq: number[]; rps: number } | null,
): Verdict[] {
  const out: Verdict[] = [];
  const overBare = (name: ScenarioName, kind: "sqlite" | "postgres") => {
    const [snip, bare] = [figures(name, kind)?.cpu, figures(name, "baseline")?.cpu];
    return snip == null || bare == null ? null : snip / bare;
  };
  for (const kind of ["sqlite", "postgres"] as const) {
    const engine = ENGINE[kind];
    const app = figures("app-hot", kind);
    const plain = twin(kind);
    if (app?.cpu == null || plain === null || plain.cpuPerReq.length === 0) {
      out.push({ line: `app-hot against its plain twin, ${engine}: not run`, ok: null });
    } else {
      const p = median(plain.cpuPerReq);
      const rounds = plain.appCpuPerReq.map((a, i) => (a / (plain.cpuPerReq[i] as number)).toFixed(3)).join(" / ");
      out.push({
        line:
          `a link with app destinations, ${engine}: CPU per answer ${app.cpu.toFixed(1)} / ${p.toFixed(1)} µs = ${(app.cpu / p).toFixed(3)}x the same owner's plain link ` +
          `under the same 4 agents (round by round ${rounds}; req/s ${(app.rps / plain.rps).toFixed(2)} of it) (goal <= 1.05)`,
        ok: app.cpu <= 1.05 * p,
      });
    }
    const [appBare, assocBare, hotBare] = [overBare("app-hot", kind), overBare("association", kind), overBare("hot", kind)];
    if (appBare !== null && hotBare !== null)
      out.push({
        line: `app-hot against hot, ${engine}: CPU ratio to the bare server ${appBare.toFixed(2)} = ${(appBare / hotBare).toFixed(3)}x the hot link's ${hotBare.toFixed(2)} (no goal: hot sends one desktop agent; the twin line is the like-for-like one)`,
        ok: null,
      });
    const [assoc, hot] = [figures("association", kind), figures("hot", kind)];
    if (assoc?.cpu == null || hot?.cpu == null || assocBare === null || hotBare === null) {
      out.push({
        line: `association files against hot, ${engine}: not run (run both scenarios${kind === "postgres" ? " with --pg-scenarios" : ""})`,
        ok: null,
      });
      continue;
    }
    out.push({
      line:
        `the association files, ${engine}: CPU ratio to the bare server (the same bytes) ${assocBare.toFixed(2)} = ${(assocBare / hotBare).toFixed(3)}x the hot redirect's ${hotBare.toFixed(2)}; ` +
        `raw ${assoc.cpu.toFixed(1)} / ${hot.cpu.toFixed(1)} µs per answer, req/s ${(assoc.rps / hot.rps).toFixed(2)} of hot's (goal <= 1.05x hot's ratio)`,
      ok: assocBare <= 1.05 * hotBare,
    });
  }
  return out;
}

/**
 * Issue 56: a link tracking conversions against the plain hot link, each as its CPU per answer over the bare
 * server's of the same rounds (the bare server serves both alike), on each engine run.
 */
function trackedGoal(figures: (name: ScenarioName, kind: TargetKind) => Figures | null): Verdict[] {
  const out: Verdict[] = [];
  for (const kind of ["sqlite", "postgres"] as const) {
    const engine = kind === "sqlite" ? "SQLite" : "PostgreSQL";
    const ratio = (name: ScenarioName) => {
      const [snip, bare] = [figures(name, kind)?.cpu, figures(name, "baseline")?.cpu];
      return snip == null || bare == null ? null : snip / bare;
    };
    const [tracked, plain] = [ratio("tracked-hot"), ratio("hot")];
    if (tracked === null || plain === null) {
      out.push({ line: `tracked-hot against hot, ${engine}: not run (run both scenarios${kind === "postgres" ? " with --pg-scenarios" : ""})`, ok: null });
      continue;
    }
    out.push({
      line: `a link tracking conversions, ${engine}: CPU ratio to the bare server ${tracked.toFixed(2)} = ${(tracked / plain).toFixed(3)}x the untracked hot link's ${plain.toFixed(2)} (goal <= 1.05)`,
      ok: tracked <= 1.05 * plain,
    });
  }
  return out;
}
