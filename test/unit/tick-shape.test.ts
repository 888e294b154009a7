// ops/tick-shape.ts: the tick objects whose hidden classes must outlive an idle garbage collection are held.
import { describe, expect, it } from "vitest";
import { createHook } from "node:async_hooks";
import { keepTickShape, keptTickShapes } from "../../src/ops/tick-shape.js";

describe("keepTickShape", () => {
  it("holds a tick object of each form, four at most, and leaves no hook on", async () => {
    // Test files share their worker's modules: a server another file started may have kept some already.
    const before = keptTickShapes();
    expect(before).toBeLessThanOrEqual(4);
    keepTickShape();
    expect(keptTickShapes()).toBe(Math.min(4, before + 2));
    keepTickShape();
    keepTickShape();
    expect(keptTickShapes()).toBe(4);
    // The hook saw only its own two ticks: a tick scheduled afterwards reaches no hook of its.
    const seen: string[] = [];
    const probe = createHook({ init: (_id, type) => seen.push(type) }).enable();
    process.nextTick(() => undefined);
    probe.disable();
    expect(seen).toEqual(["TickObject"]);
    expect(keptTickShapes()).toBe(4);
    await new Promise((resolve) => setImmediate(resolve));
  });
});
