// Load generators: autocannon in this process (exact request counts: each run sends a fixed number of
// requests and waits for every answer), or wrk when it is on PATH (fixed duration).
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import autocannon, { type RequestSpec } from "autocannon";

/** A Chrome desktop user agent, as a browser would send it. */
export const BROWSER_HEADERS: Record<string, string> = {
  "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
  "accept-language": "en-US,en;q=0.9",
};

export interface LoadResult {
  /** Completed responses. */
  completed: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
  /** Socket errors and timeouts. */
  socketErrors: number;
  /** True when answers may have been cut off (duration mode): the server may have served a few more than counted. */
  inexact: boolean;
  /** Upper bound of the requests the server may have answered without the load generator counting them. */
  inFlightBound: number;
  /** 302 answers by Location, when asked for (autocannon only). */
  locations?: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  paths: string[];
  connections: number;
}

/** Latency histogram with 10 µs buckets up to 10 s. */
class LatencyHist {
  private readonly bins = new Uint32Array(1_000_001);
  private n = 0;
  add(ms: number): void {
    const i = Math.round(ms * 100);
    this.bins[i < 1_000_000 ? i : 1_000_000]!++;
    this.n++;
  }
  percentile(p: number): number {
    const want = Math.ceil((p / 100) * this.n);
    let seen = 0;
    for (let i = 0; i < this.bins.length; i++) {
      seen += this.bins[i]!;
      if (seen >= want && seen > 0) return i / 100;
    }
    return 0;
  }
}

export function mergeStatuses(into: Record<number, number>, from: Record<number, number>): void {
  for (const [k, v] of Object.entries(from)) into[Number(k)] = (into[Number(k)] ?? 0) + v;
}

/** What a run of one path can add: user agents to cycle through, and a tally of the 302s' Locations. */
export interface VisitorOptions {
  userAgents?: string[];
  tallyLocations?: boolean;
  /** What the tally counts a Location as, given the index of the request's user agent (default: the Location). */
  locationKey?: (location: string, agent: number) => string;
}

/**
 * One request per user agent, each built once before the run (autocannon rebuilds only requests with a
 * setupRequest); the tally reads the Location of every 302.
 */
function visitorRequests(path: string, v: VisitorOptions, tally: Record<string, number>): RequestSpec[] {
  const onResponse = (agent: number) =>
    v.tallyLocations
      ? (status: number, _body: unknown, _ctx: unknown, headers: Record<string, string | string[]>) => {
          const loc = headers.location ?? headers.Location;
          if (status !== 302 || typeof loc !== "string") return;
          const key = v.locationKey ? v.locationKey(loc, agent) : loc;
          tally[key] = (tally[key] ?? 0) + 1;
        }
      : undefined;
  return (v.userAgents ?? [BROWSER_HEADERS["user-agent"] as string]).map((ua, i) => ({
    path,
    headers: { ...BROWSER_HEADERS, "user-agent": ua },
    onResponse: onResponse(i),
  }));
}

/** One autocannon run of exactly `amount` requests (every one answered or errored before it returns). */
export async function autocannonRun(o: LoadOptions & VisitorOptions & { amount: number; maxSeconds: number }): Promise<LoadResult> {
  const hist = new LatencyHist();
  const paths = o.paths;
  let next = 0;
  const visitors = o.userAgents !== undefined || o.tallyLocations === true;
  if (visitors && paths.length !== 1) throw new Error("user agents and the Location tally take one path");
  const tally: Record<string, number> = {};
  const requests: RequestSpec[] = visitors
    ? visitorRequests(paths[0] as string, o, tally)
    : paths.length === 1
      ? [{ path: paths[0] as string }]
      : [
          {
            setupRequest: (req: { path: string }) => {
              req.path = paths[next++ % paths.length] as string;
              return req;
            },
          },
        ];
  const amount = Math.max(o.connections, Math.round(o.amount / o.connections) * o.connections);
  const t0 = performance.now();
  let last = t0;
  const inst = autocannon({ url: o.url, connections: o.connections, amount, timeout: 10, sampleInt: 100, headers: BROWSER_HEADERS, requests });
  inst.on("response", (_client: unknown, _status: number, _bytes: number, ms: number) => {
    hist.add(ms);
    last = performance.now();
  });
  let cut = false;
  const guard = setTimeout(() => {
    cut = true;
    inst.stop();
  }, o.maxSeconds * 1000);
  const r = await inst;
  clearTimeout(guard);
  const statuses: Record<number, number> = {};
  let completed = 0;
  for (const [code, s] of Object.entries(r.statusCodeStats)) {
    statuses[Number(code)] = Number(s.count);
    completed += Number(s.count);
  }
  const seconds = Math.max(0.001, (last - t0) / 1000);
  return {
    completed,
    seconds,
    rps: completed / seconds,
    p50: hist.percentile(50),
    p99: hist.percentile(99),
    statuses,
    socketErrors: r.errors,
    inexact: cut,
    inFlightBound: cut ? o.connections : 0,
    ...(o.tallyLocations ? { locations: tally } : {}),
  };
}

export function wrkAvailable(): boolean {
  return spawnSync("wrk", ["--version"], { stdio: "ignore" }).error === undefined;
}

const WRK_LUA = `
local paths = {}
for line in io.lines(os.getenv("BENCH_PATHS")) do paths[#paths + 1] = line end
local i = 0
counts = {}
local threads = {}
function setup(thread) table.insert(threads, thread) end
if #paths > 1 then
  -- Every request is formatted once, in init (after wrk has set the Host header, before it starts its
  -- clock): the timed loop only picks the next one, so a path list costs the load generator about
  -- what one fixed path does.
  local requests = {}
  function init(args)
    for k = 1, #paths do requests[k] = wrk.format(nil, paths[k]) end
  end
  function request()
    i = i + 1
    if i > #requests then i = 1 end
    return requests[i]
  end
else
  wrk.path = paths[1]
end
function response(status, headers, body)
  counts[status] = (counts[status] or 0) + 1
end
function done(summary, latency, requests)
  local agg = {}
  for _, t in ipairs(threads) do
    local c = t:get("counts")
    for k, v in pairs(c) do agg[k] = (agg[k] or 0) + v end
  end
  local parts = {}
  for k, v in pairs(agg) do parts[#parts + 1] = string.format('"%d":%d', k, v) end
  local e = summary.errors
  io.write(string.format('BENCH_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"errors":%d,"statuses":{%s}}\\n',
    summary.requests, summary.duration, math.floor(latency:percentile(50)), math.floor(latency:percentile(99)),
    e.connect + e.read + e.write + e.timeout, table.concat(parts, ",")))
end
`;

/** One wrk run of `seconds` (wrk stops mid-flight: up to one answer per connection may go uncounted). */
export async function wrkRun(o: LoadOptions & { seconds: number; workDir: string }): Promise<LoadResult> {
  const script = join(o.workDir, "paths.lua");
  const list = join(o.workDir, "paths.txt");
  writeFileSync(script, WRK_LUA);
  writeFileSync(list, o.paths.join("\n") + "\n");
  const headerArgs = Object.entries(BROWSER_HEADERS).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
  const args = ["-t2", `-c${o.connections}`, `-d${Math.max(1, Math.round(o.seconds))}s`, "--timeout", "10s", "--latency", ...headerArgs, "-s", script, o.url];
  const out = await new Promise<string>((resolve, reject) => {
    const p = spawn("wrk", args, { env: { ...process.env, BENCH_PATHS: list }, stdio: ["ignore", "pipe", "inherit"] });
    let buf = "";
    p.stdout.on("data", (d: Buffer) => (buf += d.toString()));
    p.on("error", reject);
    p.on("exit", (code) => (code === 0 ? resolve(buf) : reject(new Error(`wrk exited with ${code}: ${buf}`))));
  });
  const line = out.split("\n").find((l) => l.startsWith("BENCH_JSON "));
  if (!line) throw new Error(`wrk printed no result: ${out}`);
  const j = JSON.parse(line.slice("BENCH_JSON ".length)) as {
    requests: number;
    duration_us: number;
    p50_us: number;
    p99_us: number;
    errors: number;
    statuses: Record<string, number>;
  };
  const statuses: Record<number, number> = {};
  let completed = 0;
  for (const [k, v] of Object.entries(j.statuses)) {
    statuses[Number(k)] = v;
    completed += v;
  }
  const seconds = j.duration_us / 1e6;
  return {
    completed,
    seconds,
    rps: completed / seconds,
    p50: j.p50_us / 1000,
    p99: j.p99_us / 1000,
    statuses,
    socketErrors: j.errors,
    inexact: true,
    inFlightBound: o.connections,
  };
}
