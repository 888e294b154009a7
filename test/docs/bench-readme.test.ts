// bench/README.md against bench/ and package.json: it says how to run every `bench:*` script and names every
// benchmark file, its current results come first, and it stays a reference (under 400 lines), not a log.
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url);
const readme = readFileSync(new URL("bench/README.md", ROOT), "utf8");
const scripts = Object.keys((JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8")) as { scripts: Record<string, string> }).scripts);

describe("bench/README.md", () => {
  it("says how to run every bench:* script of package.json", () => {
    const bench = scripts.filter((s) => s.startsWith("bench:"));
    expect(bench.length).toBeGreaterThan(0);
    expect(bench.filter((s) => !readme.includes(`npm run ${s}`))).toEqual([]);
  });

  it("names every file of bench/", () => {
    const files = readdirSync(new URL("bench/", ROOT)).filter((f) => /\.(ts|sh)$/.test(f));
    expect(files.filter((f) => !readme.includes(f))).toEqual([]);
  });

  it("opens with the current results, and stays under 400 lines", () => {
    expect(/^## (.*)$/m.exec(readme)?.[1]).toBe("Current results");
    expect(readme.split("\n").length).toBeLessThan(400);
  });
});
