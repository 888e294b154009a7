// `snip import <source>` (docs/import.md, Command line): starts an import job for an account (or resumes
// one) and runs it in this process, with a progress bar on stderr while it goes and the counts on stdout
// at the end. Ctrl-C lets the job go after the page in hand: `--resume ID` continues it, here or on a
// running server (which claims it by itself).
import { createWriteStream, readFileSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import type { AppContext } from "./context.js";
import type { ImportFields, ImportJob } from "./contract/imports.js";
import { IMPORT_SOURCE_NAMES } from "./contract/imports.js";
import { DomainError } from "./shared/errors.js";

export interface ImportOptions {
  email: string;
  baseUrl?: string;
  token?: string;
  group?: string;
  file?: string;
  onTaken: string;
  resume?: string;
  report?: string;
}

/** A file's text, refused when it is not UTF-8 (a spreadsheet's "CSV" in a legacy code page). */
function readText(path: string): string {
  const bytes = readFileSync(path);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError("invalid_request", `${path} is not UTF-8 text (save it as CSV UTF-8)`);
  }
}

const WIDTH = 30;
/** Failed lines printed after the counts. */
const MAX_FAILURES_SHOWN = 50;

/** One line: bar, counts, rate, time left. */
export function progressLine(j: ImportJob): string {
  const { read, created, skipped, failed, visits } = j.counts;
  const share = j.total ? Math.min(1, read / j.total) : null;
  const filled = share === null ? 0 : Math.round(share * WIDTH);
  const bar = share === null ? "" : `[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${Math.floor(share * 100)}% `;
  const left = j.eta_seconds === null ? "" : `, ${j.eta_seconds} s left`;
  return `${bar}${read}${j.total ? `/${j.total}` : ""} read: ${created} created, ${skipped} skipped, ${failed} failed${visits ? `, ${visits} visits` : ""} (${j.rate}/s${left})`;
}

export async function runImport(ctx: Pick<AppContext, "accounts" | "imports">, source: string, o: ImportOptions): Promise<number> {
  if (!(IMPORT_SOURCE_NAMES as readonly string[]).includes(source))
    throw new DomainError("invalid_request", `source must be one of ${IMPORT_SOURCE_NAMES.join(", ")}`);
  const user = await ctx.accounts.requireByEmail(o.email);
  const jobs = ctx.imports.jobs;
  const started = o.resume
    ? await jobs.resume(user, o.resume)
    : await jobs.start(user, {
        source: source as ImportFields["source"],
        base_url: o.baseUrl ?? null,
        token: o.token ?? null,
        group: o.group ?? null,
        file: o.file ? readText(o.file) : null,
        on_taken: o.onTaken === "generate" ? "generate" : "skip",
      });
  const tty = process.stderr.isTTY === true;
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
    void ctx.imports.runner.stop();
  };
  process.once("SIGINT", onSigint);
  ctx.imports.runner.start();
  let job = started;
  let lastLine = 0;
  try {
    while (job.state === "queued" || job.state === "running") {
      if (interrupted) break;
      await new Promise((r) => setTimeout(r, 250));
      job = await jobs.get(user, started.id);
      const now = Date.now();
      if (tty) process.stderr.write(`\r\u001b[2K${progressLine(job)}`);
      else if (now - lastLine > 5_000) {
        process.stderr.write(`${progressLine(job)}\n`);
        lastLine = now;
      }
    }
    await ctx.imports.runner.stop();
    job = await jobs.get(user, started.id);
  } finally {
    process.off("SIGINT", onSigint);
  }
  if (tty) process.stderr.write("\n");
  if (o.report) await pipeline(await jobs.report(user, job.id), createWriteStream(o.report));
  const c = job.counts;
  process.stdout.write(`import ${job.id} ${job.state}: ${c.read} read, ${c.created} created, ${c.skipped} skipped, ${c.failed} failed, ${c.visits} visits\n`);
  if (job.error) process.stdout.write(`error: ${job.error}\n`);
  // Each failing line with its code and words (the report has them all).
  const failed = await jobs.failures(user, job.id, MAX_FAILURES_SHOWN);
  for (const f of failed) process.stdout.write(`failed line ${f.line} (${f.source_id}): ${f.code}${f.notes ? `: ${f.notes}` : ""}\n`);
  if (c.failed > failed.length) process.stdout.write(`... and ${c.failed - failed.length} more failed lines (--report PATH writes them all)\n`);
  if (interrupted || job.state === "queued" || job.state === "running") {
    process.stdout.write(`stopped: resume with snip import ${source} ${o.email} --resume ${job.id}\n`);
    return 130;
  }
  return job.state === "done" ? 0 : 1;
}
