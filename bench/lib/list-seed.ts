// The link list benchmark's data (bench/list.ts), deterministic, straight into the database: one account's
// links and tags (each link 0-3 tags, tag j picked with weight 1/(j+1)) among other accounts' links.
import { sql } from "kysely";
import type { Storage } from "../../src/storage/db.js";
import type { NewLink } from "../../src/storage/schema.js";
import { prng } from "./dataset.js";

const DAY = 86_400_000;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const idOf = (r: () => number) => Array.from({ length: 16 }, () => BASE62[Math.floor(r() * 62)]).join("");

/** Tag j is picked with weight 1/(j+1): tag 0 on about a third of the links, the last ones on a few hundred each. */
function pickTags(r: () => number, count: number, tagCount: number): number[] {
  const weights = Array.from({ length: tagCount }, (_, j) => 1 / (j + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const picked = new Set<number>();
  while (picked.size < count) {
    let x = r() * sum;
    let j = 0;
    while (x > weights[j]! && j < tagCount - 1) x -= weights[j++]!;
    picked.add(j);
  }
  return [...picked];
}

export interface ListSeed {
  /** The measured account's links and tags. */
  links: number;
  tags: number;
  /** Other accounts and their links (untagged), created in between the measured account's, as on a shared instance. */
  others: number;
  otherLinks: number;
}

function otherLink(r: () => number, n: number, ownerId: string, created: number): NewLink {
  return {
    id: idOf(r),
    domain: "",
    alias: `o${n.toString(36)}`,
    url: `https://example.net/${n}`,
    click_count: Math.floor(50 * r() ** 4),
    owner_id: ownerId,
    created_at: created,
    updated_at: created,
  };
}

/**
 * The measured account's links (with tags, titles, notes, every state) and the other accounts', inserted
 * in creation order; then PostgreSQL's statistics and visibility map, as autovacuum keeps them after
 * such an insert (the service never runs ANALYZE on SQLite).
 */
export async function seedLinkList(storage: Storage, ownerId: string, seed: ListSeed): Promise<void> {
  const db = storage.db;
  const r = prng(27);
  const now = Date.now();
  const others = Array.from({ length: seed.others }, (_, i) => `other${i}`);
  await db
    .insertInto("users")
    .values(
      others.map((id) => ({ id, email: `${id}@example.com`, password_hash: "!", name: "", plan: "pro", status: "active", created_at: now, updated_at: now })),
    )
    .execute();
  const tagIds = Array.from({ length: seed.tags }, () => idOf(r));
  await db
    .insertInto("tags")
    .values(tagIds.map((id, j) => ({ id, owner_id: ownerId, name: `Tag ${j}`, name_key: `tag ${j}`, color: "gray", created_at: now })))
    .execute();
  const links: NewLink[] = [];
  const linkTags: { link_id: string; tag_id: string }[] = [];
  const perLink = seed.otherLinks / seed.links;
  for (let i = 0; i < seed.links; i++) {
    const id = idOf(r);
    const created = now - (seed.links - i) * 300_000;
    for (let k = Math.floor(i * perLink); k < Math.floor((i + 1) * perLink); k++) links.push(otherLink(r, k, others[k % others.length]!, created - 1));
    // Most links have few clicks, some many, and many share a count (the sort's ties go by id).
    const clicks = Math.floor(2000 * r() ** 6);
    links.push({
      id,
      domain: i % 10 === 0 ? "go.example.org" : "",
      alias: `l${i.toString(36)}`,
      url: `https://shop.example.com/p/${i}?ref=${i % 97}`,
      expires_at: i % 20 === 0 ? created + 30 * DAY : null,
      max_clicks: i % 100 === 0 ? 500 : null,
      click_count: clicks,
      last_click_at: clicks > 0 ? now - Math.floor(r() * 90 * DAY) : null,
      title: i % 3 === 0 ? `Spring campaign ${i}` : null,
      note: i % 7 === 0 ? `For the newsletter of week ${i % 52}` : null,
      archived_at: i % 50 === 0 ? now : null,
      owner_id: ownerId,
      created_at: created,
      updated_at: created,
    });
    for (const t of pickTags(r, Math.floor(r() * 4), seed.tags)) linkTags.push({ link_id: id, tag_id: tagIds[t]! });
  }
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < links.length; i += 1000)
      await trx
        .insertInto("links")
        .values(links.slice(i, i + 1000))
        .execute();
    for (let i = 0; i < linkTags.length; i += 5000)
      await trx
        .insertInto("link_tags")
        .values(linkTags.slice(i, i + 5000))
        .execute();
  });
  if (storage.dialect === "postgres") await sql`VACUUM ANALYZE`.execute(db);
}
