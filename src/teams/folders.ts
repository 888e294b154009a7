// An account's folders (docs/folders.md): listed with their link counts, created, renamed, deleted (their links
// then in no folder). Business and up create and rename them and put links in them; any plan lists, deletes and
// takes links out (an account that moved to a lower plan keeps what it had). Members of an owner's team use the
// owner's folders as they use the owner's links and tags: they list them, create them and file links in them;
// only the owner renames or deletes one.
import { MAX_FOLDER_NAME, MAX_FOLDERS_PER_OWNER, NO_FOLDER, type Folder, type FolderListItem } from "../contract/folders.js";
import { requireCapability } from "../accounts/plans.js";
import { DomainError, invalid } from "../shared/errors.js";
import { iso, type Clock } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
import type { Db } from "../storage/db.js";
import { type OwnerCaps, type Trx, countOf } from "../storage/owner-caps.js";
import type { FolderRow, UserRow } from "../storage/schema.js";
import { isUniqueViolation } from "../storage/unique-violation.js";
import { managedOwner, ownerAccess, requireMay } from "./access.js";
import type { Logger } from "pino";

export { MAX_FOLDERS_PER_OWNER };

export interface FolderDeps {
  db: Db;
  caps: OwnerCaps;
  clock: Clock;
  /** The links' change notices: the redirect caches (whose clicks' events name the folder) drop the moved links. */
  changes: { publish(keys: { domain: string; alias: string }[]): Promise<void> };
  log: Pick<Logger, "warn">;
}

/** Links of a deleted folder whose cached copies are dropped at once; past this, their events name the old folder until the cache's expiry (5 minutes). */
const ANNOUNCED_MOVES = 1_000;

/** A name as stored: trimmed, inner runs of white space made one; refused when empty, too long or with control characters. */
export function folderName(raw: string): string {
  const trimmed = raw.trim();
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(trimmed)) throw invalid("name", "A folder name cannot hold control characters");
  const name = trimmed.replace(/\s+/g, " ");
  if (name === "") throw invalid("name", "Enter a name for the folder");
  if ([...name].length > MAX_FOLDER_NAME) throw invalid("name", `A folder name has at most ${MAX_FOLDER_NAME} characters`);
  return name;
}

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

export function toFolder(row: Pick<FolderRow, "id" | "name" | "created_at" | "updated_at">): Folder {
  return { id: row.id, name: row.name, created_at: iso(Number(row.created_at)), updated_at: iso(Number(row.updated_at)) };
}

const taken = (name: string) =>
  new DomainError("conflict", `You already have a folder named "${name}"`, [{ field: "name", message: "This name is taken by another of your folders" }]);

const tooMany = () => new DomainError("limit_reached", `An account has at most ${MAX_FOLDERS_PER_OWNER} folders; delete some first`);

/** The folder a link field names, refused as one that does not exist when it is not the owner's (another account's is not revealed). */
const noSuchFolder = (field: string) => invalid(field, "No such folder");

/** A folder deleted between its check and the write that files a link in it. */
export const folderGone = (field = "folder_id") => noSuchFolder(field);

/**
 * The folder_id a link takes: null for none (any plan), else a folder of `owner` (Business and up, the owner's plan
 * whoever files the link); `field` names it in errors. Read inside `trx` when given: a creation checks it where it writes.
 */
export async function checkFolderId(db: Db | Trx, owner: Pick<UserRow, "id" | "plan">, raw: string | null, field = "folder_id"): Promise<string | null> {
  if (raw === null || raw === "") return null;
  const row = await db.selectFrom("folders").select("id").where("id", "=", raw).where("owner_id", "=", owner.id).executeTakeFirst();
  if (!row) throw noSuchFolder(field);
  requireCapability(owner.plan, "folders", "Folders");
  return row.id;
}

/** `folder_id` as a filter: a folder id, or `none` (links in no folder); null when absent. */
export function folderFilter(raw: string | undefined): { none: true } | { id: string } | null {
  if (raw === undefined) return null;
  return raw === NO_FOLDER ? { none: true } : { id: raw };
}

/**
 * The id of the owner's folder of this name (an import's folder or group), created when the owner has none of it;
 * null when the name cannot be a folder's or the account holds its most folders (`notes` says why).
 */
export async function importFolder(db: Db, ownerId: string, raw: string, now: number, notes: string[]): Promise<string | null> {
  let name: string;
  try {
    name = folderName(raw);
  } catch {
    notes.push("the source's folder name cannot be a folder's (empty, too long or with control characters); the link is in no folder");
    return null;
  }
  const find = () => db.selectFrom("folders").select("id").where("owner_id", "=", ownerId).where("name_key", "=", name.toLowerCase()).executeTakeFirst();
  const found = await find();
  if (found) return found.id;
  const held = await countOf(
    db
      .selectFrom("folders")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("owner_id", "=", ownerId),
  );
  if (held >= MAX_FOLDERS_PER_OWNER) {
    notes.push(`folder “${name}” not created: an account has at most ${MAX_FOLDERS_PER_OWNER} folders`);
    return null;
  }
  const id = newId();
  try {
    await db.insertInto("folders").values({ id, owner_id: ownerId, name, name_key: name.toLowerCase(), created_at: now, updated_at: now }).execute();
    return id;
  } catch (err) {
    // Another line of the same import created it meanwhile.
    if (isUniqueViolation(err)) return (await find())?.id ?? null;
    throw err;
  }
}

export class FolderService {
  constructor(private readonly deps: FolderDeps) {}

  /** A folder the actor may rename or delete: labels.manage, as tags (the owner and admins; a member or viewer gets forbidden, anyone else not_found). */
  private async ownFolder(actor: UserRow, id: string): Promise<{ row: FolderRow; owner: UserRow }> {
    const row = await this.deps.db.selectFrom("folders").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) throw new DomainError("not_found", "No such folder");
    const access = await ownerAccess(this.deps.db, actor, row.owner_id);
    if (access.folders.hidden.has(row.id)) throw new DomainError("not_found", "No such folder");
    requireMay(access, "labels.manage", "No such folder");
    return { row, owner: access.owner };
  }

  /** The owner's folders in name order, each with its links (archived ones aside). */
  async list(actor: UserRow, ownerId?: string): Promise<FolderListItem[]> {
    const { owner, access } = await managedOwner(this.deps.db, actor, ownerId);
    const hidden = [...access.folders.hidden];
    let query = this.deps.db
      .selectFrom("folders")
      .select(["folders.id", "folders.name", "folders.created_at", "folders.updated_at"])
      .select((eb) =>
        eb
          .selectFrom("links")
          .select(eb.fn.countAll<number>().as("n"))
          .whereRef("links.folder_id", "=", "folders.id")
          .where("links.archived_at", "is", null)
          .as("link_count"),
      )
      .where("folders.owner_id", "=", owner.id);
    // Folders hidden from a member (access none) are not listed: for it they do not exist.
    if (hidden.length > 0) query = query.where("folders.id", "not in", hidden);
    const rows = await query.execute();
    // In the reader's alphabetical order on either engine (the databases' collations differ); at most MAX_FOLDERS_PER_OWNER.
    return rows.map((r) => ({ ...toFolder(r), link_count: Number(r.link_count ?? 0) })).sort((a, b) => collator.compare(a.name, b.name));
  }

  async create(actor: UserRow, name: string, ownerId?: string): Promise<Folder> {
    const { owner } = await managedOwner(this.deps.db, actor, ownerId, "links.edit");
    requireCapability(owner.plan, "folders", "Folders");
    const checked = folderName(name);
    const now = this.deps.clock.now();
    const row = { id: newId(), owner_id: owner.id, name: checked, name_key: checked.toLowerCase(), created_at: now, updated_at: now };
    const cap = {
      limit: MAX_FOLDERS_PER_OWNER,
      count: (trx: Trx) =>
        countOf(
          trx
            .selectFrom("folders")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("owner_id", "=", owner.id),
        ),
      refuse: tooMany,
    };
    try {
      await this.deps.caps.add(owner.id, cap, (trx) => trx.insertInto("folders").values(row).execute());
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(checked);
      throw err;
    }
    return toFolder(row);
  }

  async rename(actor: UserRow, id: string, name: string): Promise<Folder> {
    const { row, owner } = await this.ownFolder(actor, id);
    requireCapability(owner.plan, "folders", "Folders");
    const checked = folderName(name);
    const next = { name: checked, name_key: checked.toLowerCase(), updated_at: this.deps.clock.now() };
    try {
      await this.deps.db.updateTable("folders").set(next).where("id", "=", id).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(checked);
      throw err;
    }
    return toFolder({ ...row, ...next });
  }

  /** Deletes the folder and leaves its links in no folder, in one transaction; how many links it held. */
  async delete(actor: UserRow, id: string): Promise<number> {
    const { row } = await this.ownFolder(actor, id);
    const { moved, keys } = await this.deps.db.transaction().execute(async (trx) => {
      // The owner's lock first, as bulk edits and creations take it: on PostgreSQL a bulk move into the folder
      // (holding its links' rows, then waiting for the folder's row) and this deletion (holding the links moved
      // before, then the folder's row) would otherwise wait on each other. The links go first, the folder last,
      // so a single link's move (its row, then the folder's) never waits on this either.
      await this.deps.caps.hold(trx, row.owner_id);
      const keys = await trx.selectFrom("links").select(["domain", "alias"]).where("folder_id", "=", row.id).limit(ANNOUNCED_MOVES).execute();
      const done = await trx.updateTable("links").set({ folder_id: null }).where("folder_id", "=", row.id).executeTakeFirst();
      await trx.deleteFrom("folders").where("id", "=", row.id).execute();
      return { moved: Number(done.numUpdatedRows), keys };
    });
    if (keys.length > 0)
      await this.deps.changes.publish(keys).catch((err: unknown) => this.deps.log.warn({ err }, "folder deletion: link change notice failed"));
    return moved;
  }
}
