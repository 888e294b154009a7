// The CSV writer (RFC 4180 quoting, CRLF, BOM, formula neutralisation), the export filename and the date range rules.
import { describe, expect, it } from "vitest";
import { csvFilename, toCsv } from "../../src/clicks/csv.js";
import { splitByMonth } from "../../src/clicks/range.js";
import { resolvePeriod } from "../../src/clicks/period.js";

async function text(records: Array<Array<string | number>>): Promise<string> {
  let out = "";
  for await (const chunk of toCsv(records)) out += String(chunk);
  return out;
}

describe("CSV writer", () => {
  it("quotes fields with quote, comma, CR or LF, doubles inner quotes, ends lines with CRLF, starts with a BOM", async () => {
    const out = await text([["plain", 'say "hi"', "a,b", "line\nbreak", "carriage\rreturn", "tab\tinside", "", 42]]);
    expect(out).toBe('\uFEFFplain,"say ""hi""","a,b","line\nbreak","carriage\rreturn",tab\tinside,,42\r\n');
  });

  it("neutralises cells a spreadsheet would run as a formula, but not numbers", async () => {
    const out = await text([['=HYPERLINK("http://x")', "+1", "-1", "@SUM(A1)", "\tcmd", "\rcmd", "ok=1", -3, 0]]);
    expect(out).toBe('\uFEFF"\'=HYPERLINK(""http://x"")",\'+1,\'-1,\'@SUM(A1),\'\tcmd,"\'\rcmd",ok=1,-3,0\r\n');
  });

  it("an empty record is an empty line (the section separator)", async () => {
    expect(await text([["a"], [], ["b"]])).toBe("\uFEFFa\r\n\r\nb\r\n");
  });

  it("filename: only safe characters from the alias", () => {
    expect(csvFilename("launch-2026", { from: "2026-01-01", to: "2026-01-31" })).toBe("snip-launch-2026-2026-01-01-2026-01-31.csv");
    expect(csvFilename('a"b\r\nc;d/é', { from: "2026-01-01", to: "2026-01-02" })).toBe("snip-a_b__c_d__-2026-01-01-2026-01-02.csv");
  });
});

/** The UTC days of a custom range (the day-keyed roll-ups' range). */
const resolveRange = (q: { from?: string; to?: string }, now: number) => resolvePeriod(q, now, 0).days;

describe("date range", () => {
  const now = Date.UTC(2026, 1, 28, 23, 59); // 2026-02-28, late in the UTC day
  it("defaults to the 30 days ending today (UTC)", () => {
    expect(resolveRange({}, now)).toMatchObject({ from: "2026-01-30", to: "2026-02-28", days: 30 });
  });
  it("counts both ends and accepts 366 days (and more, by month), tomorrow and 2000-01-01", () => {
    expect(resolveRange({ from: "2025-03-01", to: "2026-03-01" }, now).days).toBe(366);
    expect(resolvePeriod({ from: "2025-03-01", to: "2026-03-01" }, now, 0).granularity).toBe("day");
    expect(resolvePeriod({ from: "2025-02-28", to: "2026-03-01" }, now, 0).granularity).toBe("month");
    expect(resolveRange({ from: "2000-01-01", to: "2000-01-01" }, now).days).toBe(1);
  });
  it("names the field in errors", () => {
    const field = (q: { from?: string; to?: string }) => {
      try {
        resolveRange(q, now);
        return null;
      } catch (e) {
        return (e as { details: Array<{ field: string }> }).details[0]?.field;
      }
    };
    expect(field({ from: "2026-02-29" })).toBe("from"); // not a leap year
    expect(field({ to: "2026-03-02" })).toBe("to");
    expect(field({ from: "2016-01-01", to: "2026-03-01" })).toBe("from"); // past 3,660 days
    expect(field({ from: "2026-02-10", to: "2026-02-09" })).toBe("from");
    expect(field({ from: "1999-12-31", to: "2000-01-01" })).toBe("from");
  });
});

describe("splitting a range into whole months and edge days", () => {
  const split = (from: string, to: string, monthsThrough = "9999-12") => splitByMonth(resolveRange({ from, to }, Date.UTC(2026, 11, 31)), monthsThrough);
  it("uses whole months inside and days around them", () => {
    expect(split("2025-11-22", "2026-11-21")).toEqual({
      months: { from: "2025-12", to: "2026-10" },
      days: [
        { from: "2025-11-22", to: "2025-11-30" },
        { from: "2026-11-01", to: "2026-11-21" },
      ],
    });
    expect(split("2026-01-01", "2026-12-31")).toEqual({ months: { from: "2026-01", to: "2026-12" }, days: [] });
    expect(split("2024-02-01", "2024-02-29")).toEqual({ months: { from: "2024-02", to: "2024-02" }, days: [] });
    expect(split("2026-01-31", "2026-03-01")).toEqual({
      months: { from: "2026-02", to: "2026-02" },
      days: [
        { from: "2026-01-31", to: "2026-01-31" },
        { from: "2026-03-01", to: "2026-03-01" },
      ],
    });
  });
  it("reads months after the last complete one of the monthly roll-up day by day", () => {
    expect(split("2025-11-22", "2026-11-21", "2026-05")).toEqual({
      months: { from: "2025-12", to: "2026-05" },
      days: [
        { from: "2025-11-22", to: "2025-11-30" },
        { from: "2026-06-01", to: "2026-11-21" },
      ],
    });
    expect(split("2025-12-01", "2026-02-28", "2025-12")).toEqual({
      months: { from: "2025-12", to: "2025-12" },
      days: [{ from: "2026-01-01", to: "2026-02-28" }],
    });
    expect(split("2026-01-01", "2026-12-31", "2025-12")).toEqual({ months: null, days: [{ from: "2026-01-01", to: "2026-12-31" }] });
    expect(split("2026-01-01", "2026-12-31", "")).toEqual({ months: null, days: [{ from: "2026-01-01", to: "2026-12-31" }] });
  });
  it("keeps days only when no whole month fits", () => {
    expect(split("2026-10-30", "2026-11-02")).toEqual({ months: null, days: [{ from: "2026-10-30", to: "2026-11-02" }] });
    expect(split("2026-02-01", "2026-02-27")).toEqual({ months: null, days: [{ from: "2026-02-01", to: "2026-02-27" }] });
    expect(split("2026-05-15", "2026-05-15")).toEqual({ months: null, days: [{ from: "2026-05-15", to: "2026-05-15" }] });
  });
});
