// One owner's links (the caller's, or a team owner's) as the list shows them (docs/api.md, Links list):
// filters by tags (all of them), folder, domain, state, password and health, a search over alias, destination, title,
// note and tag names; sorted by creation, stored click count or last click, either way, paged by keyset
// (the sort key and id, in an opaque cursor); and the count of every link matching, the cursor aside.
// The queries are shaped for 100,000 links per account (bench/list.ts, bench/README.md).
import { type RawBuilder, sql } from "kysely";
import type { LinkListOrder, LinkListParams, LinkListSort } from "../contract/links.js";
import { MAX_PAGE } from "../contract/links.js";
import { invalid } from "../shared/errors.js";
import { containsPattern } from "../shared/like.js";
import type { Db } from "../storage/db.js";
import type { LinkDeps } from "./deps.js";
import { type LinkView, type LinksFrom, selectLinkViews } from "./link-access.js";
import { type ListPosition, decodeListCursor, encodeListCursor } from "./list-cursor.js";
import { hasTag, ownerTags } from "./list-tags.js";
import { folderFilter } from "../teams/folders.js";
import { healthCondition } from "./link-health.js";

export const DEFAULT_PAGE = 20;

/**
 * Up to this many matches, a list filtered by tags starts from one tag's links (on SQLite the rarest tag;
 * PostgreSQL orders the join itself) and sorts them; past it, it walks the sort's index and keeps the
 * links carrying the tags (a page is then found after about limit x links / matches rows).
 */
export const FROM_TAG_MAX = 2_000;

/**
 * The list's parameters, `folder_in`: an API key limited to folders reads only their links (none: nothing), and
 * `hidden`: the SQL keeping the links of folders hidden from a member out (teams/access.ts visibleFolderCondition).
 */
export type ListQuery = LinkListParams & { folder_in?: readonly string[]; hidden?: RawBuilder<boolean> | null };

export interface LinkPage {
  links: LinkView[];
  next_cursor: string | null;
  /** Links matching the filters, on every page. */
  total: number;
}

type Condition = RawBuilder<boolean>;

/** A query's filters: conditions on `links`, and the tags every link must carry (rarest first on SQLite). */
interface Filters {
  conds: Condition[];
  tags: string[];
  /** Only tags (and the default of leaving archived links out): the total then needs no link row. */
  tagsOnly: boolean;
  /** No filter at all (archived links left out, as by default): the total is the account's count less its archived links. */
  none: boolean;
}

/** A sort's key and the link id after it, as the sort's index holds them. */
interface SortKey {
  sql: RawBuilder<number>;
  id: RawBuilder<string>;
  of: (row: LinkView) => number;
  /** The key is link_click_order's, joined as `o` (PostgreSQL's clicks and last click). */
  joined: boolean;
}

/**
 * Each sort's key: creation along links_owner_created; clicks and last click along links' own indexes on SQLite
 * (links_owner_clicks, links_owner_last_click_key), on PostgreSQL along link_click_order's (migration 061: links
 * has none there, so that the click writer's updates of links are HOT), joined as `o`. A link never clicked has
 * last click 0, the oldest of all (last in desc, first in asc).
 */
function sortKey(sort: LinkListSort, engine: ListEngine): SortKey {
  const of: SortKey["of"] =
    sort === "created" ? (r) => Number(r.created_at) : sort === "clicks" ? (r) => Number(r.click_count) : (r) => Number(r.last_click_at ?? 0);
  if (sort === "created") return { sql: sql<number>`links.created_at`, id: sql<string>`links.id`, of, joined: false };
  if (engine === "postgres")
    return { sql: sort === "clicks" ? sql<number>`o.click_count` : sql<number>`o.last_click_key`, id: sql<string>`o.link_id`, of, joined: true };
  return {
    sql: sort === "clicks" ? sql<number>`links.click_count` : sql<number>`coalesce(links.last_click_at, 0)`,
    id: sql<string>`links.id`,
    of,
    joined: false,
  };
}

const and = (conds: Condition[]): Condition => (conds.length === 0 ? sql<boolean>`1 = 1` : sql<boolean>`(${sql.join(conds, sql` and `)})`);

/** The SQL of a state, exclusive in the order visitors meet them: disabled, else expired, else limit_reached, else active. */
function stateConditions(state: LinkListParams["state"], now: number): Condition[] {
  if (state === "archived") return [sql<boolean>`links.archived_at is not null`];
  const conds = [sql<boolean>`links.archived_at is null`];
  if (state === undefined) return conds;
  if (state === "disabled") return [...conds, sql<boolean>`links.disabled_at is not null`];
  conds.push(sql<boolean>`links.disabled_at is null`);
  const expired = sql<boolean>`(links.expires_at is not null and links.expires_at <= ${now})`;
  // Click-limited links count their clicks into links.click_count as they are served: this is exact.
  const exhausted = sql<boolean>`(links.max_clicks is not null and links.click_count >= links.max_clicks)`;
  if (state === "expired") return [...conds, expired];
  if (state === "limit_reached") return [...conds, sql<boolean>`not ${expired}`, exhausted];
  return [...conds, sql<boolean>`not ${expired}`, sql<boolean>`not ${exhausted}`];
}

/**
 * What q matches: alias, destination, title, note, or the name of one of the link's tags (found first:
 * a few tags at most, rather than a join for every link). SQLite's LIKE already ignores the case of ASCII
 * letters, as far as its lower() goes: lower() is left to PostgreSQL.
 */
async function searchCondition(db: Db, ownerId: string, q: string, engine: ListEngine): Promise<Condition> {
  const p = containsPattern(q);
  const like = (col: string) =>
    engine === "sqlite" ? sql<boolean>`${sql.ref(col)} like ${p} escape '\\'` : sql<boolean>`lower(${sql.ref(col)}) like ${p} escape '\\'`;
  const matches = [like("links.alias"), like("links.url"), like("links.title"), like("links.note")];
  const tags = await db
    .selectFrom("tags")
    .select("id")
    .where("owner_id", "=", ownerId)
    .where(sql<boolean>`name_key like ${p} escape '\\'`)
    .execute();
  if (tags.length > 0) {
    const ids = tags.map((t) => t.id);
    matches.push(sql<boolean>`links.id in (select lt.link_id from link_tags lt where lt.tag_id in (${sql.join(ids)}))`);
  }
  return sql<boolean>`(${sql.join(matches, sql` or `)})`;
}

/** A query's filters; null when they can match nothing (a tag the owner does not have). */
async function filters(db: Db, deps: LinkDeps, ownerId: string, query: ListQuery, engine: ListEngine): Promise<Filters | null> {
  const tags = query.tag !== undefined && query.tag.length > 0 ? await ownerTags(db, ownerId, query.tag, engine === "sqlite") : [];
  if (tags === null) return null;
  const conds = [sql<boolean>`links.owner_id = ${ownerId}`, ...stateConditions(query.state, deps.clock.now())];
  const more: Condition[] = [];
  if (query.domain !== undefined) {
    const domain = query.domain.trim().toLowerCase().replace(/\.$/, "");
    more.push(sql<boolean>`links.domain = ${domain === deps.ownHost ? "" : domain}`);
  }
  const folder = folderFilter(query.folder_id);
  if (folder) more.push("id" in folder ? sql<boolean>`links.folder_id = ${folder.id}` : sql<boolean>`links.folder_id is null`);
  if (query.folder_in !== undefined) {
    if (query.folder_in.length === 0) return null;
    more.push(sql<boolean>`links.folder_id in (${sql.join([...query.folder_in])})`);
  }
  if (query.hidden) more.push(query.hidden);
  if (query.has_password !== undefined)
    more.push(query.has_password ? sql<boolean>`links.password_hash is not null` : sql<boolean>`links.password_hash is null`);
  const health = query.health === undefined ? null : healthCondition(query.health, deps.linkChecks);
  if (health) more.push(health);
  const q = query.q?.trim();
  if (q) more.push(await searchCondition(db, ownerId, q, engine));
  const defaults = more.length === 0 && query.state === undefined;
  return { conds: [...conds, ...more], tags, tagsOnly: tags.length > 0 && defaults, none: tags.length === 0 && defaults };
}

/**
 * The links table, or with a tag given, that tag's links joined to it. CROSS JOIN keeps that order on
 * SQLite (which has no statistics to choose it by); PostgreSQL plans the join as it sees fit.
 */
function linksFrom(db: Db, tag: string | null): LinksFrom {
  if (tag === null) return db.selectFrom("links");
  return db.selectFrom("link_tags as lt0").crossJoin("links").where("lt0.tag_id", "=", tag).whereRef("links.id", "=", "lt0.link_id") as unknown as LinksFrom;
}

/** How many links match: with tags, counted from the first tag's links; with no filter, from the account's link count. */
async function countMatching(db: Db, ownerId: string, f: Filters): Promise<number> {
  const count = sql<number>`count(*)`.as("n");
  if (f.none) {
    // link_counts holds every link of the account (kept by triggers, migration 024): less the archived ones (few,
    // through links_owner_archived), rather than a count of a million index entries (bench:big, issue 60).
    const archived = db.selectFrom("links").select(count).where("links.owner_id", "=", ownerId).where("links.archived_at", "is not", null);
    const row = await db
      .selectFrom("link_counts")
      .select((eb) => eb("link_counts.links", "-", archived).as("n"))
      .where("link_counts.owner_id", "=", ownerId)
      .executeTakeFirst();
    if (row !== undefined) return Number(row.n);
  }
  if (f.tagsOnly) {
    // A tag's links are all its owner's: those not archived are the links carrying every tag (counted
    // in link_tags alone), less the archived ones carrying them (few, through links_owner_archived).
    const [first, ...others] = f.tags as [string, ...string[]];
    const carrying = db
      .selectFrom("link_tags as lt0")
      .select(count)
      .where("lt0.tag_id", "=", first)
      .where(and(others.map((t) => hasTag(t, "lt0.link_id"))));
    const archived = db
      .selectFrom("links")
      .select(count)
      .where(and([sql<boolean>`links.owner_id = ${ownerId}`, sql<boolean>`links.archived_at is not null`, ...f.tags.map((t) => hasTag(t, "links.id"))]));
    const row = await db.selectNoFrom((eb) => eb(carrying, "-", archived).as("n")).executeTakeFirstOrThrow();
    return Number(row.n);
  }
  const [first = null, ...others] = f.tags;
  const row = await linksFrom(db, first)
    .select(count)
    .where(and([...f.conds, ...others.map((t) => hasTag(t, "links.id"))]))
    .executeTakeFirstOrThrow();
  return Number((row as { n: number | string }).n);
}

/** After the cursor's row in the list's order: the key's bound first, so that an index range starts there. */
function after(key: SortKey, order: LinkListOrder, at: ListPosition): Condition {
  return order === "desc"
    ? sql<boolean>`(${key.sql} <= ${at.key} and (${key.sql} < ${at.key} or ${key.id} < ${at.id}))`
    : sql<boolean>`(${key.sql} >= ${at.key} and (${key.sql} > ${at.key} or ${key.id} > ${at.id}))`;
}

/** How long a list ordered by clicks waits for the counts at most (a writer far behind, or failing, answers the stored order). */
const SETTLE_WAIT_MS = 1500;

async function settled(deps: LinkDeps): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, SETTLE_WAIT_MS)));
  const done = deps.settleClicks().catch((err: unknown) => deps.log.warn({ err }, "links list: click counts not brought up to date"));
  await Promise.race([done, waited]);
  clearTimeout(timer);
}

/** The database the service runs on: PostgreSQL reads the list in one transaction with its own settings. */
export type ListEngine = "sqlite" | "postgres";

export async function listLinks(deps: LinkDeps, ownerId: string, query: ListQuery, engine: ListEngine): Promise<LinkPage> {
  const limit = query.limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw invalid("limit", `must be from 1 to ${MAX_PAGE}`);
  const sort = query.sort ?? "created";
  const order = query.order ?? "desc";
  const start = query.cursor ? decodeListCursor(query.cursor, sort, order) : null;
  // The order by clicks or last click reads the stored counts: every click served so far is in them first.
  if (sort !== "created") await settled(deps);
  const read = (db: Db) => readPage(db, deps, ownerId, query, { limit, sort, order, start, engine });
  if (engine === "sqlite") return read(deps.db);
  return deps.db.transaction().execute(async (trx) => {
    // A page is a short walk of one index: parallel workers would cost more to start than the walk (its
    // estimate is far off, as the planner cannot know that an account's tags are all on its own links).
    await sql`set local max_parallel_workers_per_gather = 0`.execute(trx);
    return read(trx);
  });
}

interface PageSpec {
  engine: ListEngine;
  limit: number;
  sort: LinkListSort;
  order: LinkListOrder;
  start: ListPosition | null;
}

async function readPage(db: Db, deps: LinkDeps, ownerId: string, query: ListQuery, p: PageSpec): Promise<LinkPage> {
  const f = await filters(db, deps, ownerId, query, p.engine);
  if (f === null) return { links: [], next_cursor: null, total: 0 };
  const total = await countMatching(db, ownerId, f);
  if (total === 0) return { links: [], next_cursor: null, total };
  // Few matches: from the first tag's links; many: along the sort's index (see FROM_TAG_MAX).
  const from = f.tags.length > 0 && total <= FROM_TAG_MAX ? (f.tags[0] as string) : null;
  const key = sortKey(p.sort, p.engine);
  const dir = sql.raw(p.order);
  const conds = [...f.conds, ...f.tags.filter((t) => t !== from).map((t) => hasTag(t, "links.id"))];
  let rowsFrom = linksFrom(db, from);
  if (key.joined) {
    rowsFrom = rowsFrom.innerJoin("link_click_order as o", "o.link_id", "links.id") as unknown as LinksFrom;
    conds.push(sql<boolean>`o.owner_id = ${ownerId}`);
  }
  if (p.start) conds.push(after(key, p.order, p.start));
  const rows = await selectLinkViews(db, rowsFrom)
    .where(and(conds))
    .orderBy(sql`${key.sql} ${dir}`)
    .orderBy(sql`${key.id} ${dir}`)
    .limit(p.limit + 1)
    .execute();
  const links = rows.slice(0, p.limit);
  const last = links[links.length - 1];
  const next = rows.length > p.limit && last ? encodeListCursor(p.sort, p.order, { key: key.of(last), id: last.id }) : null;
  return { links, next_cursor: next, total };
}
