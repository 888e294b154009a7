// Many links of one owner in a transaction the caller holds (imports: a page's lines, its report and its
// cursor committed together). Each line gets exactly what createLink would give it one after the other,
// in order: the owner's lock taken once, the plan's count read once, one multi-row INSERT ... ON CONFLICT
// DO NOTHING RETURNING, the alias reservations of the lot in one query. A line whose alias turns out to
// be taken or reserved undoes the round (a savepoint), gets its fate (refused, adopted, or a generated
// alias) and the round is made again, so the plan's allowance still goes to the first lines in order.
import { sql } from "kysely";
import { DomainError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import type { Trx } from "../storage/owner-caps.js";
import { GENERATE_ATTEMPTS, aliasTaken, generateAlias } from "./aliases.js";
import type { LinkDeps } from "./deps.js";
import { type PreparedLink, linkAllowance } from "./create-link.js";
import { setLinkTags } from "./link-details.js";

/** What the caller does with a line whose alias is taken: refuse it, create it with a generated alias, or nothing more (it adopted the taker). */
export type TakenChoice = "refuse" | "generate" | "adopted";

export type ManyOutcome =
  { link: LinkRow; /** Its alias was taken: this link has a generated one. */ replaced: DomainError | null } | { error: DomainError } | { adopted: true };

interface Line {
  prepared: PreparedLink;
  alias: string;
  generated: boolean;
  attempts: number;
  replaced: DomainError | null;
  out: ManyOutcome | null;
}

/** Columns a row may leave out, with the value the table would give them (a multi-row insert names the same columns in every row). */
const DEFAULTS: Record<string, unknown> = { imported_clicks: 0 };

function sameColumns<T extends Record<string, unknown>>(rows: T[]): T[] {
  const keys = new Set(rows.flatMap((r) => Object.keys(r)));
  return rows.map((r) => {
    const full: Record<string, unknown> = { ...r };
    for (const k of keys) if (full[k] === undefined) full[k] = k in DEFAULTS ? DEFAULTS[k] : null;
    return full as T;
  });
}

/**
 * Creates `prepared` (prepareLink's rows, in order) for `actor` inside `trx`, which ends up holding the
 * owner's lock. `onTaken(trx, i)` is asked for line i whose asked-for alias is taken or reserved.
 */
export async function insertMany(
  deps: LinkDeps,
  trx: Trx,
  actor: UserRow,
  prepared: PreparedLink[],
  onTaken: (trx: Trx, index: number) => Promise<TakenChoice>,
): Promise<ManyOutcome[]> {
  const lines: Line[] = prepared.map((p) => ({
    prepared: p,
    alias: p.wanted ?? generateAlias(),
    generated: p.wanted === null,
    attempts: 0,
    replaced: null,
    out: null,
  }));
  const cap = linkAllowance(actor);
  await deps.caps.hold(trx, actor.id);
  const count = await cap.count(trx);
  const domainRefusal = new Map<string, DomainError | null>();
  for (const d of new Set(prepared.map((p) => p.domain).filter((d) => d !== ""))) {
    try {
      await deps.holdDomain(trx, actor.id, d);
      domainRefusal.set(d, null);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      domainRefusal.set(d, err);
    }
  }
  for (let round = 0; ; round++) {
    // One after the other: a line finds room while fewer than the limit were created before it.
    let room = cap.limit - count;
    const batch: Line[] = [];
    const refused = new Map<Line, DomainError>();
    for (const l of lines) {
      if (l.out) continue;
      const domainErr = domainRefusal.get(l.prepared.domain) ?? null;
      if (room <= 0) refused.set(l, cap.refuse() as DomainError);
      else if (domainErr) refused.set(l, domainErr);
      else {
        batch.push(l);
        room--;
      }
    }
    await sql`savepoint ${sql.raw(`snip_many_${round}`)}`.execute(trx);
    const clashes = await tryRound(deps, trx, actor, batch);
    if (clashes.length > 0) {
      await sql`rollback to savepoint ${sql.raw(`snip_many_${round}`)}`.execute(trx);
      for (const l of clashes) await settleClash(trx, l, lines.indexOf(l), onTaken);
      continue;
    }
    await sql`release savepoint snip_many_0`.execute(trx);
    for (const [l, err] of refused) l.out = { error: err };
    return lines.map((l) => l.out!);
  }
}

/** Inserts the batch; the lines whose alias was taken or reserved (the round is then undone), else none and each line has its link. */
async function tryRound(deps: LinkDeps, trx: Trx, actor: UserRow, batch: Line[]): Promise<Line[]> {
  if (batch.length === 0) return [];
  const rows = sameColumns(batch.map((l) => ({ ...l.prepared.base, id: newId(), alias: l.alias })));
  const inserted = await trx
    .insertInto("links")
    .values(rows)
    .onConflict((oc) => oc.doNothing())
    .returning(["id", "num"])
    .execute();
  const nums = new Map(inserted.map((r) => [r.id, Number(r.num)]));
  const clashes = batch.filter((_, k) => !nums.has(rows[k]!.id));
  // After the write, as claimAlias: the addresses' locks, then the reservations of the aliases just taken and the
  // bio pages' slugs (src/links/alias-reservations.ts).
  await deps.caps.holdNames(
    trx,
    batch.map((l) => ({ domain: l.prepared.domain, name: l.alias })),
  );
  const held = await trx
    .selectFrom("alias_reservations")
    .select(["domain", "alias", "owner_id"])
    .where("alias", "in", [...new Set(batch.map((l) => l.alias))])
    .execute();
  // Bio pages' slugs hold their addresses too (docs/bio-pages.md).
  const pages = await trx
    .selectFrom("bio_pages")
    .select(["domain", "slug"])
    .where("slug", "in", [...new Set(batch.map((l) => l.alias))])
    .execute();
  for (const p of pages)
    for (const [k, l] of batch.entries())
      if (l.alias === p.slug && l.prepared.domain === p.domain && nums.has(rows[k]!.id) && !clashes.includes(l)) clashes.push(l);
  const own: Line[] = [];
  for (const h of held) {
    for (const [k, l] of batch.entries()) {
      if (l.alias !== h.alias || l.prepared.domain !== h.domain || !nums.has(rows[k]!.id)) continue;
      if (l.generated || h.owner_id !== actor.id) clashes.push(l);
      else own.push(l);
    }
  }
  if (clashes.length > 0) return clashes;
  for (const l of own) await trx.deleteFrom("alias_reservations").where("domain", "=", l.prepared.domain).where("alias", "=", l.alias).execute();
  for (const [k, l] of batch.entries()) {
    const row = rows[k]!;
    if (l.prepared.tags?.length) await setLinkTags(trx, actor.id, row.id, l.prepared.tags, row.created_at);
    l.out = { link: { ...row, num: nums.get(row.id)!, click_count: 0, imported_clicks: row.imported_clicks ?? 0 } as LinkRow, replaced: l.replaced };
  }
  return [];
}

async function settleClash(trx: Trx, l: Line, index: number, onTaken: (trx: Trx, index: number) => Promise<TakenChoice>): Promise<void> {
  if (l.generated) {
    if (++l.attempts >= GENERATE_ATTEMPTS) l.out = { error: new DomainError("internal_error", "Could not generate a free short code") };
    else l.alias = generateAlias();
    return;
  }
  const taken = aliasTaken(l.alias);
  const choice = await onTaken(trx, index);
  if (choice === "adopted") l.out = { adopted: true };
  else if (choice === "refuse") l.out = { error: taken };
  else Object.assign(l, { replaced: taken, generated: true, alias: generateAlias() });
}
