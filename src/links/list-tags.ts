// The links list's `tag` filter: the owner's tags named by the query (by name ignoring case, or by id),
// rarest first where the list starts from the rarest one's links, and the condition that a link carries one.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../storage/db.js";

/** Tag names are compared as tags.name_key holds them: trimmed, inner runs of spaces made one, lower case. */
const tagKey = (name: string) => name.trim().replace(/\s+/g, " ").toLowerCase();

/**
 * The ids of the owner's tags that `values` name, without repeats; null when a value names none of the
 * owner's tags (no link can then match). `byRarity`: the tag on fewest links first (SQLite, which has no
 * statistics to find it, starts from it; PostgreSQL's planner knows the tags' sizes itself).
 */
export async function ownerTags(db: Db, ownerId: string, values: string[], byRarity: boolean): Promise<string[] | null> {
  const keys = values.map(tagKey);
  let qb = db
    .selectFrom("tags")
    .select(["tags.id", "tags.name_key"])
    .where("tags.owner_id", "=", ownerId)
    .where((eb) => eb.or([eb("tags.name_key", "in", keys), eb("tags.id", "in", values)]));
  if (byRarity)
    qb = qb.select((eb) => eb.selectFrom("link_tags").select(eb.fn.countAll<number>().as("n")).whereRef("link_tags.tag_id", "=", "tags.id").as("links"));
  const rows = (await qb.execute()) as Array<{ id: string; name_key: string; links?: number | string | null }>;
  const named = new Map<string, number>();
  for (const [i, value] of values.entries()) {
    const tag = rows.find((r) => r.name_key === keys[i]) ?? rows.find((r) => r.id === value);
    if (!tag) return null;
    named.set(tag.id, Number(tag.links ?? 0));
  }
  return [...named].sort((a, b) => a[1] - b[1]).map(([id]) => id);
}

/** The link whose id is in `linkId` (a column) carries the tag. */
export function hasTag(tagId: string, linkId: string): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from link_tags lt where lt.link_id = ${sql.ref(linkId)} and lt.tag_id = ${tagId})`;
}
