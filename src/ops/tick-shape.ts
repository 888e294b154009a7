// Keeps the shape of Node's process.nextTick objects alive (issue 42). Every answer schedules several
// nextTicks inside node:http and its streams, each an object literal with two symbol keys. V8 holds
// the hidden classes (maps) of that literal's transition chain weakly: when the server is idle and no
// tick is queued, a garbage collection can drop them, and the next tick builds new ones. After four
// such rebuilds (a busy start-up does it in about one start of two) the literal's inline caches turn
// megamorphic for good: every nextTick then goes through V8's runtime and costs about 2 µs more per
// redirect (seen as Runtime_DefineKeyedOwnPropertyInLiteral in `perf`; bench/README.md, issue 42).
// Holding one tick object of each form (with and without arguments) holds its maps, so they stay
// the ones the caches know. Costs two small objects and an async hook enabled for two calls.
import { createHook } from "node:async_hooks";

const kept: object[] = [];

/** Captures a tick object of each form (called at start-up and once serving; at most four kept). */
export function keepTickShape(): void {
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === "TickObject") kept.push(resource);
    },
  });
  hook.enable();
  process.nextTick(noop);
  process.nextTick(noop, 0);
  hook.disable();
  kept.splice(0, Math.max(0, kept.length - 4));
}

/** How many tick objects are held (a test's view). */
export function keptTickShapes(): number {
  return kept.length;
}

function noop(): void {}
