import { describe, expect, it } from "vitest";
import { covers, parseSnapshot } from "../../src/storage/pg-snapshot.js";

const snap = (t: string) => {
  const s = parseSnapshot(t);
  if (!s) throw new Error(`bad ${t}`);
  return s;
};

describe("PostgreSQL snapshots as change stamps", () => {
  it("parses what pg_current_snapshot() prints and refuses anything else", () => {
    expect(parseSnapshot("727:727:")).toEqual({ xmin: 727, xmax: 727, xip: new Set() });
    expect(parseSnapshot("10:20:10,14,19")).toEqual({ xmin: 10, xmax: 20, xip: new Set([10, 14, 19]) });
    for (const bad of ["", "1:2", "2:1:", "a:b:", "1:2:3,", "1:2:,3", "-1:2:", "1:2:3 ", `1:${"9".repeat(16)}:`, "1:2:3;DROP"]) {
      expect(parseSnapshot(bad)).toBeNull();
    }
  });

  it("a later snapshot covers an earlier one; an earlier never covers a later", () => {
    expect(covers(snap("100:100:"), snap("100:100:"))).toBe(true);
    expect(covers(snap("105:110:107"), snap("100:104:100,102"))).toBe(true);
    expect(covers(snap("100:104:100,102"), snap("105:110:107"))).toBe(false);
  });

  it("a transaction in progress for the row but committed for the change: not covered", () => {
    // 102 was running when the row was read, finished when the change was stamped.
    expect(covers(snap("100:110:102"), snap("103:108:"))).toBe(false);
    // Still running at the stamp too, or begun after it: covered.
    expect(covers(snap("100:110:102"), snap("100:108:102"))).toBe(true);
    expect(covers(snap("100:110:109"), snap("100:108:"))).toBe(true);
    // Begun after the row's read may have committed before the stamp.
    expect(covers(snap("100:108:"), snap("100:109:"))).toBe(false);
  });
});
