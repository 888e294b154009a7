// A page's lines written in the transaction that also saves its report and the job's cursor (the runner),
// so a page is in the database whole or not at all: a job killed in the middle of a page starts that page
// over and creates nothing twice. Runs of up to RUN lines go through LinkService.createMany (one lock,
// one count, one multi-row insert); a run that throws something other than a refusal is undone (a
// savepoint) and made again one line at a time, each in a savepoint of its own, so that line alone fails
// with `internal`. Each line gets what it would get one after the other (create-many.ts).
import { sql } from "kysely";
import type { Trx } from "../storage/owner-caps.js";
import { isDatabaseUnavailable } from "../storage/unavailable.js";
import type { ManyOutcome, TakenChoice } from "../links/create-many.js";
import type { ImportTarget } from "./mapping.js";
import { type ImportLinkDeps, type ImportedBefore, type ItemOutcome, type PreparedLine, adoptInterrupted, internalFailure, reason } from "./import-link.js";

/** Lines per multi-row insert (about 30 columns each: far below either engine's bound on parameters). */
const RUN = 100;

interface PageJob {
  sourceKey: string;
  onTaken: string;
}

/**
 * The page's outcomes, in its order (prepareLine's lines: those of earlier runs already skipped). A source
 * id met twice in the page is skipped the second time once the first was created.
 */
export async function writePage(deps: ImportLinkDeps, trx: Trx, target: ImportTarget, job: PageJob, lines: PreparedLine[]): Promise<ItemOutcome[]> {
  const items: Array<ItemOutcome | null> = lines.map(() => null);
  const here: ImportedBefore = new Map();
  let run: number[] = [];
  let keys = new Set<string>();
  const flush = async () => {
    if (run.length > 0) await writeRun(deps, trx, target, job, lines, run, items, here);
    run = [];
    keys = new Set();
  };
  for (const [i, l] of lines.entries()) {
    // Two lines that could meet (a repeated source id, the same alias) are never in one run.
    const own = [`id:${l.src.source_id}`, ...(l.prepared?.wanted ? [`alias:${l.prepared.wanted.toLowerCase()}`] : [])];
    if (run.length >= RUN || own.some((k) => keys.has(k))) await flush();
    const earlier = here.get(l.src.source_id);
    if (earlier) {
      items[i] = {
        source_id: l.src.source_id,
        url: l.src.url.slice(0, 2048),
        alias: earlier.alias,
        domain: earlier.domain,
        status: "skipped",
        code: "already_imported",
        notes: ["imported by an earlier run"],
      };
    } else if (l.item) items[i] = l.item;
    else {
      run.push(i);
      for (const k of own) keys.add(k);
    }
  }
  await flush();
  return items.map((it) => it!);
}

/** One run: all at once, else (an internal error) one line at a time. */
async function writeRun(
  deps: ImportLinkDeps,
  trx: Trx,
  target: ImportTarget,
  job: PageJob,
  lines: PreparedLine[],
  run: number[],
  items: Array<ItemOutcome | null>,
  here: ImportedBefore,
): Promise<void> {
  await sql`savepoint snip_run`.execute(trx);
  try {
    await createRun(deps, trx, target, job, lines, run, items, here);
    await sql`release savepoint snip_run`.execute(trx);
    return;
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw err;
    await sql`rollback to savepoint snip_run`.execute(trx);
    deps.log?.error({ err }, "import: a run of lines failed on an internal error; its lines are made one at a time");
  }
  for (const i of run) {
    await sql`savepoint snip_line`.execute(trx);
    try {
      await createRun(deps, trx, target, job, lines, [i], items, here);
      await sql`release savepoint snip_line`.execute(trx);
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw err;
      await sql`rollback to savepoint snip_line`.execute(trx);
      items[i] = internalFailure(deps, lines[i]!.src, err);
    }
  }
}

async function createRun(
  deps: ImportLinkDeps,
  trx: Trx,
  target: ImportTarget,
  job: PageJob,
  lines: PreparedLine[],
  run: number[],
  items: Array<ItemOutcome | null>,
  here: ImportedBefore,
): Promise<void> {
  const adopted = new Map<number, { alias: string; domain: string }>();
  const onTaken = async (t: Trx, k: number): Promise<TakenChoice> => {
    const l = lines[run[k]!]!;
    const link = await adoptInterrupted(t, target, job.sourceKey, l.src, l.mapped!.domain);
    if (link) adopted.set(k, { alias: link.alias, domain: link.domain });
    return link ? "adopted" : job.onTaken === "generate" ? "generate" : "refuse";
  };
  const outcomes = await deps.links.createMany(
    trx,
    target.owner,
    run.map((i) => lines[i]!.prepared!),
    onTaken,
  );
  const made: Array<{ source_id: string; link_id: string }> = [];
  const counted: Array<{ link_id: string; leads: number; sales: number; revenue: string }> = [];
  for (const [k, out] of outcomes.entries()) {
    const i = run[k]!;
    items[i] = itemOf(lines[i]!, out, adopted.get(k));
    const link = items[i]!.link;
    if (link) {
      made.push({ source_id: lines[i]!.src.source_id, link_id: link.id });
      const conv = lines[i]!.src.conversions_total;
      if (conv) counted.push({ link_id: link.id, leads: conv.leads, sales: conv.sales, revenue: JSON.stringify(conv.revenue) });
      here.set(lines[i]!.src.source_id, { alias: link.alias, domain: link.domain });
    }
  }
  if (made.length > 0)
    await trx
      .insertInto("imported_links")
      .values(made.map((m) => ({ owner_id: target.owner.id, source_key: job.sourceKey, ...m })))
      .execute();
  // The source's conversion totals, shown beside the link's own (docs/import.md).
  if (counted.length > 0) await trx.insertInto("link_imported_conversions").values(counted).execute();
}

function itemOf(l: PreparedLine, out: ManyOutcome, adopted: { alias: string; domain: string } | undefined): ItemOutcome {
  const m = l.mapped!;
  const base = { source_id: l.src.source_id, url: l.src.url.slice(0, 2048), alias: l.src.alias ?? null };
  if ("adopted" in out)
    return {
      ...base,
      alias: adopted!.alias,
      domain: adopted!.domain,
      status: "skipped",
      code: "already_imported",
      notes: ["already in this account with this alias and destination (an interrupted run, or made by hand)"],
    };
  if ("error" in out) {
    const err = out.error;
    // A taken alias is someone's link: skipped.
    return {
      ...base,
      domain: m.domain,
      status: err.code === "alias_taken" && m.input.alias ? "skipped" : "failed",
      code: err.code,
      notes: [...m.notes, reason(err)],
    };
  }
  const { link } = out;
  const why = out.replaced ?? l.aliasRefused;
  const notes = why ? [...m.notes, `alias "${m.input.alias}" ${why.code === "alias_taken" ? "taken" : "refused"}: given "${link.alias}"`] : [...m.notes];
  return { ...base, alias: link.alias, domain: link.domain, status: "created", code: null, notes, link };
}
