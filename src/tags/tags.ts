// An owner's tags (docs/api.md, Tags): listed with their link counts, created, renamed or recoloured,
// deleted (which takes them off their links). Members of an owner's team use the owner's tags: they
// list them and create new ones (as they tag the owner's links); only the owner renames or deletes.
import { MAX_TAG_NAME, TAG_COLORS, type CreateTagInput, type Tag, type TagColor, type TagListItem, type UpdateTagInput } from "../contract/tags.js";
import { DomainError, invalid } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { Clock } from "../shared/clock.js";
import type { Db } from "../storage/db.js";
import { type OwnerCaps, type Trx, countOf } from "../storage/owner-caps.js";
import type { TagsTable, UserRow } from "../storage/schema.js";
import { isUniqueViolation } from "../storage/unique-violation.js";
import { managedOwner, ownerAccess, requireMay } from "../teams/access.js";

/** Tags one account may hold (docs/api.md, Limits). */
export const MAX_TAGS_PER_OWNER = 300;

export interface TagDeps {
  db: Db;
  caps: OwnerCaps;
  clock: Clock;
}

/** A name as stored: trimmed, inner runs of spaces made one; refused when empty, too long or with control characters. */
export function tagName(raw: string): string {
  const name = raw.trim().replace(/\s+/g, " ");
  if (name === "") throw invalid("name", "Enter a name for the tag");
  if ([...name].length > MAX_TAG_NAME) throw invalid("name", `A tag name has at most ${MAX_TAG_NAME} characters`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalid("name", "A tag name cannot hold control characters");
  return name;
}

/** The colour a new tag gets when none is given: the same for the same name, spread over the palette. */
export function defaultColor(name: string): TagColor {
  let h = 0;
  for (const ch of name.toLowerCase()) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  return TAG_COLORS[h % TAG_COLORS.length]!;
}

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });
const byName = (a: { name: string }, b: { name: string }) => collator.compare(a.name, b.name);

const toTag = (row: Pick<TagsTable, "id" | "name" | "color">): Tag => ({ id: row.id, name: row.name, color: row.color as TagColor });

const taken = (name: string) =>
  new DomainError("conflict", `You already have a tag named "${name}"`, [{ field: "name", message: "This name is taken by another of your tags" }]);

const tooManyTags = () => new DomainError("limit_reached", `An account has at most ${MAX_TAGS_PER_OWNER} tags; delete some first`);

/**
 * The ids of the owner's tags of these (checked) names, creating the unknown ones, in `trx`, which must
 * hold the owner's lock (OwnerCaps.hold) so that concurrent creations neither duplicate a name nor pass the cap.
 */
export async function ensureTags(trx: Trx, ownerId: string, names: string[], now: number): Promise<string[]> {
  if (names.length === 0) return [];
  const keys = names.map((n) => n.toLowerCase());
  const found = await trx.selectFrom("tags").select(["id", "name_key"]).where("owner_id", "=", ownerId).where("name_key", "in", keys).execute();
  const byKey = new Map(found.map((r) => [r.name_key, r.id]));
  const missing = names.filter((n) => !byKey.has(n.toLowerCase()));
  if (missing.length > 0) {
    const held = await countOf(
      trx
        .selectFrom("tags")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("owner_id", "=", ownerId),
    );
    if (held + missing.length > MAX_TAGS_PER_OWNER) throw tooManyTags();
    const rows = missing.map((name) => ({ id: newId(), owner_id: ownerId, name, name_key: name.toLowerCase(), color: defaultColor(name), created_at: now }));
    await trx.insertInto("tags").values(rows).execute();
    for (const r of rows) byKey.set(r.name_key, r.id);
  }
  return keys.map((k) => byKey.get(k)!);
}

/** The tags of these links, by link id, each list in name order (one query). */
export async function tagsOfLinks(db: Db, linkIds: string[]): Promise<Map<string, Tag[]>> {
  const out = new Map<string, Tag[]>();
  if (linkIds.length === 0) return out;
  const rows = await db
    .selectFrom("link_tags")
    .innerJoin("tags", "tags.id", "link_tags.tag_id")
    .select(["link_tags.link_id", "tags.id", "tags.name", "tags.color"])
    .where("link_tags.link_id", "in", linkIds)
    .execute();
  for (const r of rows) {
    const list = out.get(r.link_id) ?? [];
    list.push(toTag(r));
    out.set(r.link_id, list);
  }
  for (const list of out.values()) list.sort(byName);
  return out;
}

export class TagService {
  constructor(private readonly deps: TagDeps) {}

  /** A tag the actor may change: labels.manage (owner, admin; members and viewers get forbidden, anyone else not_found). */
  private async ownTag(actor: UserRow, id: string): Promise<TagsTable> {
    const row = await this.deps.db.selectFrom("tags").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) throw new DomainError("not_found", "No such tag");
    requireMay(await ownerAccess(this.deps.db, actor, row.owner_id), "labels.manage", "No such tag");
    return row;
  }

  async list(actor: UserRow, ownerId?: string): Promise<TagListItem[]> {
    const { owner } = await managedOwner(this.deps.db, actor, ownerId);
    const rows = await this.deps.db
      .selectFrom("tags")
      .select(["tags.id", "tags.name", "tags.color"])
      .select((eb) => eb.selectFrom("link_tags").select(eb.fn.countAll<number>().as("n")).whereRef("link_tags.tag_id", "=", "tags.id").as("link_count"))
      .where("tags.owner_id", "=", owner.id)
      .execute();
    // In the reader's alphabetical order on either engine (the databases' collations differ); at most MAX_TAGS_PER_OWNER.
    return rows.map((r) => ({ ...toTag(r), link_count: Number(r.link_count ?? 0) })).sort(byName);
  }

  async create(actor: UserRow, input: CreateTagInput, ownerId?: string): Promise<Tag> {
    const { owner } = await managedOwner(this.deps.db, actor, ownerId, "links.edit");
    const name = tagName(input.name);
    const row = {
      id: newId(),
      owner_id: owner.id,
      name,
      name_key: name.toLowerCase(),
      color: input.color ?? defaultColor(name),
      created_at: this.deps.clock.now(),
    };
    const cap = {
      limit: MAX_TAGS_PER_OWNER,
      count: (trx: Trx) =>
        countOf(
          trx
            .selectFrom("tags")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("owner_id", "=", owner.id),
        ),
      refuse: tooManyTags,
    };
    try {
      await this.deps.caps.add(owner.id, cap, (trx) => trx.insertInto("tags").values(row).execute());
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(name);
      throw err;
    }
    return toTag(row);
  }

  async update(actor: UserRow, id: string, input: UpdateTagInput): Promise<Tag> {
    const row = await this.ownTag(actor, id);
    const name = input.name === undefined ? row.name : tagName(input.name);
    const next = { name, name_key: name.toLowerCase(), color: input.color ?? (row.color as TagColor) };
    try {
      await this.deps.db.updateTable("tags").set(next).where("id", "=", id).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(name);
      throw err;
    }
    return toTag({ id, ...next });
  }

  /** Deletes the tag; its links lose it (link_tags rows go with it). */
  async delete(actor: UserRow, id: string): Promise<void> {
    await this.ownTag(actor, id);
    await this.deps.db.deleteFrom("tags").where("id", "=", id).execute();
  }
}
