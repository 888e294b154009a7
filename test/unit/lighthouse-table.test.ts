// scripts/lighthouse-table.ts: the thresholds `npm run lighthouse` holds the dashboard to (issue 55) and its table.
import { describe, expect, it } from "vitest";
import { bestPerformance, failures, type Measured, table, THRESHOLDS } from "../../scripts/lighthouse-table.js";

const run = (page: string, formFactor: "desktop" | "mobile", performance: number, accessibility = 100, bp = 100, performanceRuns = 1): Measured => ({
  page,
  formFactor,
  scores: { performance, accessibility, "best-practices": bp },
  performanceRuns,
});

describe("lighthouse thresholds", () => {
  it("are the issue's: accessibility and best practices 95 everywhere, performance 95 desktop and 90 mobile", () => {
    expect(THRESHOLDS).toEqual({
      desktop: { performance: 95, accessibility: 95, "best-practices": 95 },
      mobile: { performance: 90, accessibility: 95, "best-practices": 95 },
    });
  });

  it("passes scores at the thresholds and fails each category one point below", () => {
    expect(failures([run("/", "desktop", 95, 95, 95), run("/", "mobile", 90, 95, 95)])).toEqual([]);
    expect(failures([run("/", "desktop", 94)])).toEqual([{ page: "/", formFactor: "desktop", category: "performance", score: 94, threshold: 95 }]);
    expect(failures([run("/app", "mobile", 89)])).toEqual([{ page: "/app", formFactor: "mobile", category: "performance", score: 89, threshold: 90 }]);
    expect(failures([run("/app", "mobile", 100, 94, 100)]).map((f) => f.category)).toEqual(["accessibility"]);
    expect(failures([run("/app", "desktop", 100, 100, 94)]).map((f) => f.category)).toEqual(["best-practices"]);
  });

  it("leaves performance out when only the other categories are enforced (CI), and still fails them", () => {
    const enforced = ["accessibility", "best-practices"] as const;
    expect(failures([run("/app", "mobile", 60)], enforced)).toEqual([]);
    expect(failures([run("/app", "mobile", 60, 94)], enforced)).toEqual([
      { page: "/app", formFactor: "mobile", category: "accessibility", score: 94, threshold: 95 },
    ]);
  });

  it("fails a missing score (NaN) rather than letting it pass", () => {
    expect(failures([run("/", "desktop", Number.NaN)])).toHaveLength(1);
  });

  it("takes the better of two performance runs", () => {
    expect(bestPerformance(88, 93)).toBe(93);
    expect(bestPerformance(97, 91)).toBe(97);
  });

  it("prints one line per page and form factor, marking a score below its threshold and a best of two", () => {
    expect(table([run("/", "desktop", 99), run("/app", "mobile", 85, 100, 96, 2)])).toBe(
      [
        "| page | form factor | performance | accessibility | best-practices |",
        "|---|---|---:|---:|---:|",
        "| `/` | desktop | 99 | 100 | 100 |",
        "| `/app` | mobile | 85 (best of 2) **below 90** | 100 | 96 |",
      ].join("\n"),
    );
  });
});
