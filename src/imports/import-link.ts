// One source link into the owner's account (docs/import.md): skipped when an earlier run imported it,
// checked as LinkService.create would (prepareLine, nothing written; the page's transaction creates it:
// import-page.ts), a taken alias skipped or replaced by a generated one as the job says, then the
// source's visits recorded as clicks (Shlink).
import { importFolder } from "../teams/folders.js";
import { can } from "../accounts/plans.js";
import type { Logger } from "pino";
import { DomainError } from "../shared/errors.js";
import { storable } from "../shared/bad-text.js";
import type { Db } from "../storage/db.js";
import { isDatabaseUnavailable } from "../storage/unavailable.js";
import type { LinkRow } from "../storage/schema.js";
import type { LinkService } from "../links/links.js";
import type { ClickInput } from "../clicks/click-buffer.js";
import type { PreparedLink } from "../links/create-link.js";
import type { Trx } from "../storage/owner-caps.js";
import { type ImportTarget, type MappedLink, mapLink } from "./mapping.js";
import { checkLinkShape } from "./link-gate.js";
import type { SourceLink } from "./source.js";

/** A report line (import_items). */
export interface ItemOutcome {
  source_id: string;
  url: string;
  alias: string | null;
  domain: string | null;
  status: "created" | "skipped" | "failed";
  code: string | null;
  notes: string[];
  /** The link created (visits are recorded against it). */
  link?: LinkRow;
}

export interface ImportLinkDeps {
  db: Db;
  links: Pick<LinkService, "prepare" | "createMany" | "announceCreated">;
  clicks: { record(input: ClickInput): void; readonly pending: number; flush(): Promise<void>; writeBuffered(): Promise<void> };
  now: () => number;
  /** Where a line's internal failure is logged (the line itself fails with `internal`). */
  log?: Pick<Logger, "error">;
}

/** Clicks waiting for the writer past which an import waits for a flush (memory stays flat). */
const MAX_PENDING_CLICKS = 10_000;

export function isAliasRefusal(err: DomainError): boolean {
  return err.code === "alias_taken" || (err.code === "invalid_request" && (err.details ?? []).some((d) => d.field === "alias"));
}

/** What earlier runs imported from this source: alias and domain by source id. */
export type ImportedBefore = Map<string, { alias: string; domain: string }>;

/** The links of `sourceIds` earlier runs imported, in one query (a page's worth of ids). */
export async function importedBefore(db: Db, ownerId: string, sourceKey: string, sourceIds: string[]): Promise<ImportedBefore> {
  const found: ImportedBefore = new Map();
  if (sourceIds.length === 0) return found;
  const rows = await db
    .selectFrom("imported_links")
    .innerJoin("links", "links.id", "imported_links.link_id")
    .select(["imported_links.source_id", "links.alias", "links.domain"])
    .where("imported_links.owner_id", "=", ownerId)
    .where("imported_links.source_key", "=", sourceKey)
    .where("imported_links.source_id", "in", [...new Set(sourceIds)])
    .execute();
  for (const r of rows) found.set(r.source_id, { alias: r.alias, domain: r.domain });
  return found;
}

/** A line of a page before its transaction: its outcome when it is already known, else its checked row. */
export interface PreparedLine {
  src: SourceLink;
  /** The outcome known before any write (skipped from an earlier run, refused by a check), or null. */
  item: ItemOutcome | null;
  mapped: MappedLink | null;
  prepared: PreparedLink | null;
  /** The asked-for alias refused by its syntax: the row carries a generated one (on_taken "generate"). */
  aliasRefused: DomainError | null;
}

/**
 * Every check of a line that writes nothing (LinkService.prepare), so that the page's transaction only
 * inserts. `before`: importedBefore() of the page's ids. Whatever one line throws fails that line
 * (`internal` when it is not a refusal); only a database that cannot serve is thrown (the page is retried).
 */
export async function prepareLine(
  deps: ImportLinkDeps,
  target: ImportTarget,
  onTaken: string,
  given: SourceLink,
  before: ImportedBefore,
): Promise<PreparedLine> {
  // The source id is stored (re-runs, the report): one with a character no engine holds is stored replaced.
  const src = { ...given, source_id: storable(given.source_id) };
  const none = { src, mapped: null, prepared: null, aliasRefused: null };
  try {
    return await prepareOne(deps, target, onTaken, src, before);
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw err;
    return { ...none, item: internalFailure(deps, src, err) };
  }
}

/** The report line of a line that threw: its refusal, or `internal` (logged) for anything else. */
export function internalFailure(deps: Pick<ImportLinkDeps, "log">, src: SourceLink, err: unknown): ItemOutcome {
  const base = {
    source_id: src.source_id,
    url: String(src.url).slice(0, 2048),
    alias: typeof src.alias === "string" ? src.alias : null,
    domain: null,
    status: "failed" as const,
  };
  if (err instanceof DomainError) return { ...base, code: err.code, notes: [reason(err)] };
  deps.log?.error({ err, source_id: src.source_id }, "import: a line failed on an internal error");
  return { ...base, code: "internal", notes: ["an internal error on this line (logged); the other lines went on"] };
}

async function prepareOne(deps: ImportLinkDeps, target: ImportTarget, onTaken: string, src: SourceLink, before: ImportedBefore): Promise<PreparedLine> {
  const line = { src, mapped: null, prepared: null, aliasRefused: null };
  const base = { source_id: src.source_id, url: src.url.slice(0, 2048), alias: src.alias ?? null };
  const earlier = before.get(src.source_id);
  if (earlier)
    return {
      ...line,
      item: { ...base, alias: earlier.alias, domain: earlier.domain, status: "skipped", code: "already_imported", notes: ["imported by an earlier run"] },
    };
  const m = mapLink(src, target, deps.now());
  if (src.folder) {
    if (can(target.owner.plan, "folders")) {
      const folder = await importFolder(deps.db, target.owner.id, src.folder, deps.now(), m.notes);
      if (folder) m.input.folder_id = folder;
    } else m.notes.push(`folder “${src.folder.slice(0, 100)}” not carried: folders need the Business plan`);
  }
  const refused = refusalOf(src, m.input);
  if (refused)
    return {
      ...line,
      item: {
        ...base,
        domain: null,
        status: "failed",
        code: refused.code,
        notes: !src.url && !src.refused ? (m.notes.length ? m.notes : ["no destination URL"]) : [...m.notes, reason(refused)],
      },
    };
  const failed = (err: DomainError, status: "skipped" | "failed" = "failed"): PreparedLine => ({
    ...line,
    mapped: m,
    item: { ...base, domain: m.domain, status, code: err.code, notes: [...m.notes, reason(err)] },
  });
  try {
    return { ...line, item: null, mapped: m, prepared: await deps.links.prepare(target.owner, m.input, { via: "api", imported: m.imported }) };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    // An alias snip cannot hold (its syntax, a reserved word): a generated one as the job says, else the line fails.
    if (!(m.input.alias && isAliasRefusal(err)) || onTaken !== "generate") return failed(err);
    try {
      return {
        ...line,
        item: null,
        mapped: m,
        aliasRefused: err,
        prepared: await deps.links.prepare(target.owner, { ...m.input, alias: null }, { via: "api", imported: m.imported }),
      };
    } catch (again) {
      if (!(again instanceof DomainError)) throw again;
      return failed(again);
    }
  }
}

/** What a line will meet before its creation is tried: the source's own refusal, the schema, the characters. */
export function refusalOf(src: SourceLink, input: Parameters<typeof checkLinkShape>[0]): DomainError | null {
  const r = src.refused;
  if (r) return r.field ? new DomainError(r.code, `${r.field}: ${r.message}`, [{ field: r.field, message: r.message }]) : new DomainError(r.code, r.message);
  if (!src.url) return new DomainError("invalid_request", "url: no destination URL", [{ field: "url", message: "no destination URL" }]);
  try {
    checkLinkShape(input);
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  return null;
}

/**
 * The owner's own link at this alias with this destination that no run recorded: a run stopped between
 * creating it and remembering it (a kill, a crash). It is remembered now rather than created twice.
 */
export async function adoptInterrupted(trx: Trx, target: ImportTarget, sourceKey: string, src: SourceLink, domain: string): Promise<LinkRow | null> {
  const link = await trx
    .selectFrom("links")
    .selectAll()
    .where("domain", "=", domain)
    .where("alias", "=", src.alias ?? "")
    .where("owner_id", "=", target.owner.id)
    .where("url", "=", src.url.trim())
    .where((eb) => eb.not(eb.exists(eb.selectFrom("imported_links").select("link_id").whereRef("imported_links.link_id", "=", "links.id"))))
    .executeTakeFirst();
  if (!link) return null;
  await trx.insertInto("imported_links").values({ owner_id: target.owner.id, source_key: sourceKey, source_id: src.source_id, link_id: link.id }).execute();
  return link;
}

export function reason(err: DomainError): string {
  const detail = err.details?.[0];
  return detail ? `${detail.field}: ${detail.message}` : err.message;
}

/** The source's visits of a created link, recorded as its clicks (snip's own bot test applies); how many. */
export async function importVisits(deps: ImportLinkDeps, link: LinkRow, src: SourceLink): Promise<number> {
  if (!src.visits) return 0;
  let n = 0;
  for await (const page of src.visits()) {
    for (const v of page) {
      deps.clicks.record({
        linkId: link.id,
        linkNum: Number(link.num),
        at: v.at,
        userAgent: v.user_agent ?? "",
        referer: v.referrer ?? "",
        // No address comes from a source: visitors are told apart by user agent within a day.
        ip: "",
        country: v.country ? v.country.toUpperCase() : null,
        counted: false,
        destination: null,
      });
    }
    n += page.length;
    if (deps.clicks.pending > MAX_PENDING_CLICKS) await deps.clicks.writeBuffered();
  }
  return n;
}
