// How busy the machine is (all cores, from /proc/stat): other processes' load skews a benchmark on
// two cores, so each round reports it, and --quiet-wait can wait for a calm machine first.
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

function snapshot(): { busy: number; total: number } | null {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    const total = v.reduce((s, x) => s + x, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** Share of all CPU time used by anything during the next `ms` milliseconds (0..1), or null off Linux. */
export async function busyShare(ms: number): Promise<number | null> {
  const a = snapshot();
  await sleep(ms);
  const b = snapshot();
  if (!a || !b || b.total === a.total) return null;
  return (b.busy - a.busy) / (b.total - a.total);
}

/** Waits (up to maxSeconds) until the machine is below `threshold` busy; returns the last reading. */
export async function waitQuiet(maxSeconds: number, threshold = 0.15, sampleMs = 500): Promise<number | null> {
  const until = performance.now() + maxSeconds * 1000;
  let share = await busyShare(sampleMs);
  while (share !== null && share > threshold && performance.now() < until) share = await busyShare(sampleMs);
  return share;
}
