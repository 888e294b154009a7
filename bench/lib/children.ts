// Servers under test run in child processes (`node --import tsx`), so the load generator in the
// parent never shares their event loop; they report readiness and memory over IPC.
import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import type { FreshnessProbe } from "./freshness.js";

export interface ChildStats {
  rss: number;
  heapUsed?: number;
  vmHwm?: number | null;
  cachedLinks?: number;
  pendingClicks?: number;
  /** Open handles and requests (process.getActiveResourcesInfo), in all and by type. */
  handles?: number;
  handlesByType?: Record<string, number>;
  /** V8's young generation (new space) as reserved now, in bytes. */
  youngBytes?: number;
  /** The main thread's garbage collections since the previous stats: scavenges, the others, and their time in ms. */
  gc?: { minor: number; minorMs: number; major: number; majorMs: number };
  /** The event loop's delay since the previous stats, in ms. */
  loopDelay?: { p50: number; p99: number; max: number };
}

export interface ServerChild {
  name: string;
  url: string;
  pid: number;
  /** process.hrtime of the child when it was ready, in µs (the clock of .cpuprofile timestamps). */
  readyAtUs: number | null;
  /** Memory and cache figures reported by the child (plus VmHWM read from /proc). */
  stats(): Promise<ChildStats>;
  /** A session and a link for the freshness probe (snip children only). */
  probe(): Promise<FreshnessProbe>;
  /** SIGTERM, then wait for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

const live = new Set<ChildProcess>();

/** Kills every child still running (used on an unexpected exit of the harness). */
export function killAll(): void {
  for (const c of live) c.kill("SIGKILL");
}

/** CPU time (user + system) used so far, in µs, from a /proc stat file; null once it is gone. */
function statCpuUs(file: string): number | null {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in ticks of 1/100 s.
    const stat = readFileSync(file, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10_000;
  } catch {
    return null;
  }
}

/** CPU time the process has used so far, in µs: all threads, and its main thread (the event loop) alone; null once it is gone. */
export function cpuTimeUs(pid: number): { all: number; main: number } | null {
  const all = statCpuUs(`/proc/${pid}/stat`);
  const main = statCpuUs(`/proc/${pid}/task/${pid}/stat`);
  return all === null || main === null ? null : { all, main };
}

/** CPU time (µs) used so far by each of these processes (the PostgreSQL backends of a database); gone ones are left out. */
export function processesCpuUs(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const us = statCpuUs(`/proc/${pid}/stat`);
    if (us !== null) out.set(pid, us);
  }
  return out;
}

export function peakRssBytes(pid: number): number | null {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export interface StartOptions {
  name: string;
  script: string;
  args?: string[];
  env?: Record<string, string>;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  timeoutMs?: number;
}

export async function startChild(o: StartOptions): Promise<ServerChild> {
  const child = fork(o.script, o.args ?? [], {
    execArgv: ["--import", "tsx", ...(o.nodeFlags ?? [])],
    env: { ...process.env, ...o.env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  live.add(child);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      live.delete(child);
      resolve(code);
    });
  });

  let readyAtUs: number | null = null;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${o.name}: not ready after ${o.timeoutMs ?? 60_000} ms`)), o.timeoutMs ?? 60_000);
    const onMessage = (msg: { type?: string; url?: string; readyAtUs?: number }) => {
      if (msg.type === "ready" && msg.url) {
        readyAtUs = msg.readyAtUs ?? null;
        clearTimeout(timer);
        child.off("message", onMessage);
        resolve(msg.url);
      }
    };
    child.on("message", onMessage);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${o.name}: exited with code ${code} before it was ready`));
    });
  });

  return {
    name: o.name,
    url,
    pid: child.pid as number,
    readyAtUs,
    async stats() {
      const reply = new Promise<ChildStats>((resolve) => {
        const timer = setTimeout(() => resolve({ rss: 0 }), 5_000);
        const onMessage = (msg: ChildStats & { type?: string }) => {
          if (msg.type === "stats") {
            clearTimeout(timer);
            child.off("message", onMessage);
            resolve(msg);
          }
        };
        child.on("message", onMessage);
      });
      child.send({ type: "stats" });
      const s = await reply;
      return { ...s, vmHwm: s.vmHwm ?? peakRssBytes(child.pid as number) };
    },
    probe() {
      return new Promise<FreshnessProbe>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${o.name}: no freshness probe`)), 30_000);
        const onMessage = (msg: FreshnessProbe & { type?: string }) => {
          if (msg.type !== "probe") return;
          clearTimeout(timer);
          child.off("message", onMessage);
          resolve({ cookie: msg.cookie, linkId: msg.linkId, path: msg.path });
        };
        child.on("message", onMessage);
        child.send({ type: "probe" });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
