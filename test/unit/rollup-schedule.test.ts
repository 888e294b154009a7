// The periodic roll-up's interval: CLICK_ROLLUP_MS, stretched under load so roll-ups take at most 5% of the time.
import { describe, expect, it } from "vitest";
import { nextRollupMs } from "../../src/clicks/recorder.js";

describe("nextRollupMs", () => {
  it("keeps CLICK_ROLLUP_MS while roll-ups are quick", () => {
    expect(nextRollupMs(5000, 0)).toBe(5000);
    expect(nextRollupMs(5000, 250)).toBe(5000);
  });
  it("waits twenty times a slow roll-up's duration", () => {
    expect(nextRollupMs(5000, 600)).toBe(12_000);
    expect(nextRollupMs(100, 40)).toBe(800);
  });
  it("never waits more than a minute", () => {
    expect(nextRollupMs(5000, 10_000)).toBe(60_000);
  });
});
