// The composition root's lifecycle (src/context.ts): building a context opens and migrates the database
// and starts nothing; start() starts the timers, close() stops them all; parts stop in the reverse of
// the order they started in.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createContext, type AppContext } from "../../src/context.js";
import { lifecycleOf, type LifecyclePart } from "../../src/lifecycle.js";
import { testConfig } from "../helpers/server.js";

/**
 * The timers set and neither cleared nor fired yet. Counted by wrapping the globals: the services' timers
 * are unref'd, which process.getActiveResourcesInfo() leaves out.
 */
const live = new Set<unknown>();
const intervals = new Set<unknown>();
const real = { setTimeout, setInterval, clearTimeout, clearInterval };
function watchTimers(): void {
  const clear = (t: unknown) => {
    live.delete(t);
    intervals.delete(t);
    real.clearTimeout(t as NodeJS.Timeout);
  };
  globalThis.setInterval = ((fn: () => void, ms?: number) => {
    const t = real.setInterval(fn, ms);
    live.add(t);
    intervals.add(t);
    return t;
  }) as typeof setInterval;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    const t: NodeJS.Timeout = real.setTimeout(() => {
      live.delete(t);
      fn();
    }, ms);
    live.add(t);
    return t;
  }) as typeof setTimeout;
  globalThis.clearTimeout = clear as typeof clearTimeout;
  globalThis.clearInterval = clear as typeof clearInterval;
}
const timers = (): number => live.size;

describe("createContext builds without side effects; start() and close() drive the lifecycle list", () => {
  let dir = "";
  let ctx: AppContext | null = null;

  beforeEach(watchTimers);

  afterEach(async () => {
    await ctx?.close();
    ctx = null;
    Object.assign(globalThis, real);
    live.clear();
    intervals.clear();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("starts no timer until start(), and close() leaves none", async () => {
    dir = mkdtempSync(join(tmpdir(), "snip-lifecycle-"));
    // Orphan visits counted (their flush timer is one of the parts), link checks on; the click writer inline (no worker thread).
    const config = testConfig({ DATA_DIR: dir, CLICK_WRITER: "inline", ORPHAN_VISITS: "on", LINK_CHECKS: "on" });
    ctx = await createContext(config);
    expect(ctx.config.details.orphanVisits).toBe(true);
    expect(timers()).toBe(0);

    await ctx.start();
    // Intervals: orphan visits' flush, the webhook directory's, custom hosts', app associations' and the blocklist's
    // reloads, the live feed's heartbeat, housekeeping. Timeouts (each rescheduling the next): click roll-ups, the
    // stream publisher's outbox reads.
    expect(intervals.size).toBe(7);
    expect(timers()).toBeGreaterThanOrEqual(7);
    // run(): domain and SSO domain re-checks, mail retries, the import runner's poll, split decisions, link health's checks.
    ctx.run();
    expect(intervals.size).toBe(13);

    await ctx.close();
    expect(timers()).toBe(0);
  });

  it("start() is once only, and a context never started closes cleanly", async () => {
    dir = mkdtempSync(join(tmpdir(), "snip-lifecycle-"));
    ctx = await createContext(testConfig({ DATA_DIR: dir, CLICK_WRITER: "inline" }));
    await ctx.close();
    expect(timers()).toBe(0);
    const again = await createContext(testConfig({ DATA_DIR: dir, CLICK_WRITER: "inline" }));
    ctx = again;
    expect(again.start()).toBe(again.start());
    await again.start();
  });

  it("a context built without migrations refuses to start", async () => {
    dir = mkdtempSync(join(tmpdir(), "snip-lifecycle-"));
    const bare = await createContext(testConfig({ DATA_DIR: dir, CLICK_WRITER: "inline" }), { migrate: false });
    await expect(bare.start()).rejects.toThrow("a context built without migrations cannot start: its tables may not exist");
    expect(timers()).toBe(0);
    // Not closed through close(): the click writer would write its roll-ups into tables that do not exist.
    await bare.storage.close();
  });

  it("parts start and run in the list's order and stop in its reverse, each stop awaited", async () => {
    const seen: string[] = [];
    const part = (name: string, withRun: boolean): LifecyclePart => ({
      name,
      start: async () => {
        await new Promise((r) => setTimeout(r, 5));
        seen.push(`start ${name}`);
      },
      run: withRun ? () => seen.push(`run ${name}`) : undefined,
      stop: async () => {
        await new Promise((r) => setTimeout(r, name === "a" ? 1 : 10));
        seen.push(`stop ${name}`);
      },
    });
    const life = lifecycleOf([part("a", true), part("b", false), part("c", true)]);
    await life.start();
    life.run();
    await Promise.all([life.close(), life.close()]);
    expect(seen).toEqual(["start a", "start b", "start c", "run a", "run c", "stop c", "stop b", "stop a"]);
  });
});
