// Prints one plain closing line ("N passed, N failed, N skipped") and says which suites were skipped and why.
import { existsSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      if (mod.state() === "failed" && [...mod.children.allTests()].length === 0) failed++;
    }
    const notes: string[] = [];
    if (!process.env.TEST_DATABASE_URL) notes.push("PostgreSQL tests SKIPPED: TEST_DATABASE_URL is not set (SQLite ran)");
    else notes.push(`PostgreSQL tests ran against ${process.env.TEST_DATABASE_URL.replace(/\/\/[^@]*@/, "//")}`);
    if (!existsSync(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium")) notes.push("browser tests SKIPPED: /usr/bin/chromium not found (apt-get install chromium)");
    process.stdout.write(`\n${notes.join("\n")}\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
