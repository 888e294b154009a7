// Prints one plain closing line ("N passed, N failed, N skipped"), says which suites were skipped and why,
// names every failed test again at the very end (a CI log's tail is what is kept) and lists the slowest files.
// While the run goes on, a file still running after SNIP_STUCK_MINUTES (5) is named, and again at each multiple: a run
// that never ends (CI killed at its limit) then says in its tail which files it was waiting for.
import { existsSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

const STUCK_MS = Number(process.env.SNIP_STUCK_MINUTES ?? 5) * 60_000;
const WATCH_MS = STUCK_MS / 5;

export default class SummaryReporter implements Reporter {
  private readonly running = new Map<string, number>();
  private watchdog: NodeJS.Timeout | undefined;

  onTestRunStart(): void {
    this.watchdog = setInterval(() => {
      const now = Date.now();
      for (const [file, since] of this.running) {
        const ms = now - since;
        if (ms >= STUCK_MS && ms % STUCK_MS < WATCH_MS) process.stdout.write(`\nSTILL RUNNING after ${(ms / 60_000).toFixed(1)} min: ${file}\n`);
      }
    }, WATCH_MS);
    this.watchdog.unref();
  }

  onTestModuleStart(mod: TestModule): void {
    this.running.set(relative(mod.moduleId), Date.now());
  }

  onTestModuleEnd(mod: TestModule): void {
    this.running.delete(relative(mod.moduleId));
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    clearInterval(this.watchdog);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") {
          failed++;
          failures.push(`FAILED ${mod.moduleId.replace(process.cwd() + "/", "")} > ${test.fullName}: ${firstLine(test.result().errors?.[0]?.message)}`);
        } else skipped++;
      }
      // A file that failed with no failed test: an import, or a beforeAll/afterAll hook (its tests then show as skipped).
      if (mod.state() === "failed" && ![...mod.children.allTests()].some((t) => t.result().state === "failed")) {
        failed++;
        const error = [mod, ...mod.children.allSuites()].flatMap((s) => s.errors())[0];
        failures.push(`FAILED ${mod.moduleId.replace(process.cwd() + "/", "")} (outside a test: an import or a hook): ${firstLine(error?.message)}`);
      }
    }
    const slowest = [...testModules]
      .sort((a, b) => b.diagnostic().duration - a.diagnostic().duration)
      .slice(0, 30)
      .map((m) => `  ${(m.diagnostic().duration / 1000).toFixed(1).padStart(6)} s  ${m.moduleId.replace(process.cwd() + "/", "")}`);
    process.stdout.write(`\nSlowest files:\n${slowest.join("\n")}\n`);
    process.stdout.write(`\nTime per folder (files' own durations, summed over the workers):\n${perFolder(testModules).join("\n")}\n`);
    if (failures.length > 0) process.stdout.write(`\n${failures.join("\n")}\n`);
    const notes: string[] = [];
    if (!process.env.TEST_DATABASE_URL) notes.push("PostgreSQL tests SKIPPED: TEST_DATABASE_URL is not set (SQLite ran)");
    else notes.push(`PostgreSQL tests ran against ${process.env.TEST_DATABASE_URL.replace(/\/\/[^@]*@/, "//")}`);
    if (!existsSync(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"))
      notes.push("browser tests SKIPPED: /usr/bin/chromium not found (apt-get install chromium)");
    const brokerSkips = testModules
      .filter((m) => m.moduleId.includes("/test/streams/"))
      .flatMap((m) => [...m.children.allTests()])
      .filter((t) => t.result().state === "skipped");
    if (brokerSkips.length > 0)
      notes.push(
        `click-stream broker tests SKIPPED (${brokerSkips.length}): RabbitMQ, Redis, NATS, Mosquitto or ClickHouse not listening on 127.0.0.1 (.ci/run starts them)`,
      );
    process.stdout.write(`\n${notes.join("\n")}\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

function relative(moduleId: string): string {
  return moduleId.replace(process.cwd() + "/", "");
}

function firstLine(message: string | undefined): string {
  return (message ?? "").split("\n")[0]!.slice(0, 300);
}

/** Each test folder's files' durations summed: where a run's time goes (test/e2e/, test/db/, ...). */
function perFolder(testModules: ReadonlyArray<TestModule>): string[] {
  const sums = new Map<string, number>();
  for (const m of testModules) {
    const folder = m.moduleId.replace(process.cwd() + "/", "").replace(/\/[^/]+$/, "/");
    sums.set(folder, (sums.get(folder) ?? 0) + m.diagnostic().duration);
  }
  return [...sums.entries()].sort((a, b) => b[1] - a[1]).map(([folder, ms]) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${folder}`);
}
