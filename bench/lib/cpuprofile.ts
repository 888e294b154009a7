// Aggregates a V8 .cpuprofile (node --cpu-prof): self and inclusive time per function, and self time
// per area (a package under node_modules, a folder of src/, node internals, GC, idle).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface FnTime {
  key: string;
  area: string;
  selfMs: number;
  totalMs: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  functions: FnTime[];
  areas: { area: string; selfMs: number }[];
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Generated column -> original line (1-based) of a one-line generated file, from its source map. */
function decodeLine0(mappings: string): [number, number][] {
  const out: [number, number][] = [];
  const first = mappings.split(";")[0] ?? "";
  let col = 0;
  let srcLine = 0;
  for (const seg of first.split(",")) {
    const vals: number[] = [];
    let shift = 0;
    let value = 0;
    for (const ch of seg) {
      const d = B64.indexOf(ch);
      value += (d & 31) << shift;
      if (d & 32) shift += 5;
      else {
        vals.push(value & 1 ? -(value >>> 1) : value >>> 1);
        value = 0;
        shift = 0;
      }
    }
    if (vals.length === 0) continue;
    col += vals[0] as number;
    if (vals.length >= 4) {
      srcLine += vals[2] as number;
      out.push([col, srcLine + 1]);
    }
  }
  return out;
}

/**
 * tsx compiles TypeScript to one minified line, so profiles say "file.ts:1"; its cache (tmpdir/tsx-<uid>)
 * keeps each compiled file's source map, which gives the real line back.
 */
class TsxLines {
  private index: Map<string, [number, number][]> | null = null;

  private load(): Map<string, [number, number][]> {
    const index = new Map<string, [number, number][]>();
    const newest = new Map<string, number>();
    let dir: string;
    try {
      dir = join(tmpdir(), `tsx-${userInfo().uid}`);
      for (const f of readdirSync(dir)) {
        try {
          const file = join(dir, f);
          const entry = JSON.parse(readFileSync(file, "utf8")) as { map?: { sources?: string[]; mappings?: string } };
          const src = entry.map?.sources?.[0];
          if (!src || !entry.map?.mappings) continue;
          const mtime = statSync(file).mtimeMs;
          if ((newest.get(src) ?? -1) > mtime) continue;
          newest.set(src, mtime);
          index.set(src, decodeLine0(entry.map.mappings));
        } catch {
          // not a cache entry we understand
        }
      }
    } catch {
      // no cache
    }
    return index;
  }

  line(url: string, column: number): number | null {
    this.index ??= this.load();
    const segs = this.index.get(url.replace(/^file:\/\//, ""));
    if (!segs) return null;
    let best: number | null = null;
    for (const [col, line] of segs) {
      if (col > column) break;
      best = line;
    }
    return best;
  }
}

const tsxLines = new TsxLines();

function shortUrl(url: string): string {
  const u = url.replace(/^file:\/\//, "");
  const nm = u.lastIndexOf("/node_modules/");
  if (nm >= 0) return u.slice(nm + "/node_modules/".length);
  const src = u.search(/\/(src|bench)\//);
  if (src >= 0) return u.slice(src + 1);
  return u;
}

export function areaOf(url: string, name: string): string {
  if (!url) {
    if (name === "(idle)") return "(idle)";
    if (name === "(garbage collector)") return "(garbage collector)";
    if (name === "(program)") return "(program: native, not attributed)";
    return "(native / V8 builtins)";
  }
  if (url.startsWith("node:")) return "node: " + url.slice(5).split("/")[0];
  const u = shortUrl(url);
  if (u !== url.replace(/^file:\/\//, "") && !/^(src|bench)\//.test(u)) {
    const parts = u.split("/");
    return (parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? u)) + " (npm)";
  }
  if (u.startsWith("src/")) return u.split("/").slice(0, 2).join("/").replace(/\.ts$/, "");
  return u;
}

/** Summary of a profile; with fromUs / toUs, only the samples taken in between (steady state, not start-up or a later phase). */
export function summarise(file: string, fromUs?: number | null, toUs?: number | null): ProfileSummary {
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map<number, ProfileNode>();
  for (const n of p.nodes) byId.set(n.id, n);
  const selfUs = new Map<number, number>();
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const id = p.samples[i] as number;
    at += p.timeDeltas[i] ?? 0;
    if ((fromUs && at < fromUs) || (toUs && at > toUs)) continue;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const keyOf = (n: ProfileNode) => {
    const cf = n.callFrame;
    const name = cf.functionName || "(anonymous)";
    if (!cf.url) return name;
    const line = cf.lineNumber === 0 && cf.url.endsWith(".ts") ? (tsxLines.line(cf.url, cf.columnNumber) ?? 1) : cf.lineNumber + 1;
    return `${name}  ${shortUrl(cf.url)}:${line}`;
  };
  const fns = new Map<string, FnTime>();
  const areas = new Map<string, number>();
  // Depth-first walk; inclusive time counts a function once per stack (recursion is not double counted).
  const root = p.nodes[0] as ProfileNode;
  const onStack = new Map<string, number>();
  const walk = (node: ProfileNode): number => {
    const key = keyOf(node);
    const self = selfUs.get(node.id) ?? 0;
    let total = self;
    onStack.set(key, (onStack.get(key) ?? 0) + 1);
    for (const c of node.children ?? []) total += walk(byId.get(c) as ProfileNode);
    onStack.set(key, (onStack.get(key) ?? 1) - 1);
    const f = fns.get(key) ?? { key, area: areaOf(node.callFrame.url, node.callFrame.functionName), selfMs: 0, totalMs: 0 };
    f.selfMs += self / 1000;
    if ((onStack.get(key) ?? 0) === 0) f.totalMs += total / 1000;
    fns.set(key, f);
    areas.set(f.area, (areas.get(f.area) ?? 0) + self / 1000);
    return total;
  };
  walk(root);
  const totalMs = [...fns.values()].reduce((s, f) => s + f.selfMs, 0);
  const idleMs = areas.get("(idle)") ?? 0;
  return {
    totalMs,
    idleMs,
    functions: [...fns.values()].sort((a, b) => b.selfMs - a.selfMs),
    areas: [...areas.entries()].map(([area, selfMs]) => ({ area, selfMs })).sort((a, b) => b.selfMs - a.selfMs),
  };
}

/** Text report: top functions by self time, areas, and inclusive time of src/ functions. */
export function formatSummary(s: ProfileSummary, top = 30): string {
  const busy = s.totalMs - s.idleMs;
  const pct = (ms: number) => ((100 * ms) / busy).toFixed(1).padStart(5) + "%";
  const lines: string[] = [];
  lines.push(`profile: ${(s.totalMs / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy (percentages are of busy time)`);
  lines.push("", `top ${top} functions by self time:`);
  for (const f of s.functions.filter((f) => f.area !== "(idle)").slice(0, top)) {
    lines.push(`  ${pct(f.selfMs)}  ${f.selfMs.toFixed(0).padStart(7)} ms  ${f.key}`);
  }
  lines.push("", "self time by area:");
  for (const a of s.areas.filter((a) => a.area !== "(idle)").slice(0, 20)) lines.push(`  ${pct(a.selfMs)}  ${a.area}`);
  lines.push("", "inclusive time of src/ functions (self + callees):");
  for (const f of s.functions
    .filter((f) => f.area.startsWith("src/"))
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, 15)) {
    lines.push(`  ${pct(f.totalMs)}  ${f.key}`);
  }
  return lines.join("\n");
}
