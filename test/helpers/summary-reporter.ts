// Prints one plain closing line ("N passed, N failed, N skipped"), says which suites were skipped and why,
// names every failed test again at the very end (a CI log's tail is what is kept) and lists the slowest files.
// While the run goes on, a file still running after SNIP_STUCK_MINUTES (5) is named, and again at each multiple: a
// run that never ends (CI killed at its limit) then says in its tail which files it was waiting for.
// Once every file has ended, vitest has SNIP_HANG_SECONDS (180) to end too (it stops its workers): a CI run once
// printed every file's end and then nothing until it was killed at 90 minutes. Past that, this reporter prints the
// processes vitest is waiting on and the summary of the files it has, and exits with their verdict, saying so (also
// in SNIP_HANG_NOTE's file, which .ci/run prints last).
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import type { Reporter, TestModule, TestSpecification } from "vitest/node";

const STUCK_MS = Number(process.env.SNIP_STUCK_MINUTES ?? 5) * 60_000;
const WATCH_MS = STUCK_MS / 5;
const ENDED_MS = Number(process.env.SNIP_HANG_SECONDS ?? 180) * 1000;

export default class SummaryReporter implements Reporter {
  private readonly running = new Map<string, number>();
  private readonly ended: TestModule[] = [];
  private expected = Infinity;
  private watchdog: NodeJS.Timeout | undefined;
  private hang: NodeJS.Timeout | undefined;

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.expected = specifications.length;
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
    this.ended.push(mod);
    if (this.ended.length < this.expected) return;
    this.hang = setTimeout(() => this.endHungRun(), ENDED_MS);
    this.hang.unref();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    clearInterval(this.watchdog);
    clearTimeout(this.hang);
    this.summarize(testModules);
  }

  /** Every file ended ENDED_MS ago and vitest has not: what it waits on, the files' summary, and their verdict as the exit code. */
  private endHungRun(): void {
    const note = `vitest did not end ${ENDED_MS / 1000} s after its last file ended (all ${this.ended.length} ended); ended by test/helpers/summary-reporter.ts with the files' verdict`;
    process.stdout.write(`\n${note}. vitest's processes:\n${descendants(process.pid)}\n`);
    if (process.env.SNIP_HANG_NOTE) writeFileSync(process.env.SNIP_HANG_NOTE, `${note}\n`);
    const failed = this.summarize(this.ended);
    process.exit(failed > 0 ? 1 : 0);
  }

  /** Prints the summary; returns the number of failures. */
  private summarize(testModules: ReadonlyArray<TestModule>): number {
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
    if (brokerSkips.length > 0) {
      // Named, as a skip has two causes: a broker down, or (the tests that need it) no PostgreSQL.
      const names = [...new Set(brokerSkips.map((t) => t.fullName.split(" > ")[0]))];
      notes.push(
        `click-stream tests SKIPPED (${brokerSkips.length}: ${names.join("; ")}): RabbitMQ, Redis, NATS, Mosquitto or ClickHouse not listening on 127.0.0.1 (.ci/run starts them), or PostgreSQL's without TEST_DATABASE_URL`,
      );
    }
    process.stdout.write(`\n${notes.join("\n")}\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    return failed;
  }
}

/** The processes under `pid` (ps: pid, parent, seconds alive, state, command), indented by depth. */
function descendants(pid: number): string {
  let ps: string;
  try {
    ps = execFileSync("ps", ["-eo", "pid=,ppid=,etimes=,stat=,args="], { encoding: "utf8" });
  } catch {
    return "  (ps failed)";
  }
  const rows = ps
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 5)
    .map(([p, pp, age, stat, ...args]) => ({ pid: Number(p), ppid: Number(pp), line: `${p} ${age}s ${stat} ${args.join(" ").slice(0, 200)}` }));
  const out: string[] = [];
  const walk = (parent: number, depth: number) => {
    for (const r of rows.filter((row) => row.ppid === parent)) {
      out.push(`${"  ".repeat(depth + 1)}${r.line}`);
      walk(r.pid, depth + 1);
    }
  };
  walk(pid, 0);
  return out.join("\n") || "  (none)";
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
