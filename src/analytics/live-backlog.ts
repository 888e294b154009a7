// What the live feed may show and what it sends first: the owner a caller may watch (owner or active
// member, plan with account_analytics), and that owner's latest stored clicks.
import type { Db, Dialect } from "../storage/db.js";
import { type Selectable, sql } from "kysely";
import type { ClicksTable, UserRow } from "../storage/schema.js";
import type { LiveClick } from "../contract/live.js";
import { can, requireCapability } from "../accounts/plans.js";
import { managedOwner, ownerAccessOrNone } from "../teams/access.js";
import { DomainError } from "../shared/errors.js";

/** Clicks sent when a stream opens, at most. */
export const BACKLOG = 20;

/**
 * The feed streams every click of the owner's links as it happens: a member with a folder hidden from it (folder access
 * none, docs/folders.md) is refused it rather than shown a hidden folder's clicks; a stream open when that access is
 * set ends at its next recheck.
 */
const hiddenFoldersRefusal = () =>
  new DomainError("forbidden", "The live feed shows every link's clicks, and some of this team's folders are hidden from you", undefined, {
    folder_access: "none",
  });

/** The account whose clicks `actor` asks to watch (its own by default): not_found for strangers, plan_required below Business. */
export async function liveOwner(db: Db, actor: UserRow, ownerId: string | undefined): Promise<UserRow> {
  const { owner, access } = await managedOwner(db, actor, ownerId, "stats.view");
  requireCapability(owner.plan, "account_analytics", "The live feed");
  if (access.folders.hidden.size > 0) throw hiddenFoldersRefusal();
  return owner;
}

/**
 * Whether `actor` (read again: null once signed out) may still watch `ownerId`'s clicks: membership, plans,
 * statuses and the owner's two-factor policy change (a refusal ends the stream; thrown, it would keep it open).
 */
export async function mayStillWatch(db: Db, actor: UserRow | null, ownerId: string): Promise<boolean> {
  if (!actor) return false;
  const access = await ownerAccessOrNone(db, actor, ownerId);
  return access.owner !== null && access.may("stats.view") && can(access.owner.plan, "account_analytics") && access.folders.hidden.size === 0;
}

const COLUMNS = ["id", "link_num", "at", "country", "device", "os", "browser", "referrer", "is_bot", "destination", "qr"] as const;

type StoredClick = Pick<Selectable<ClicksTable>, (typeof COLUMNS)[number]>;

/**
 * The owner's latest `limit` stored clicks, oldest first. The latest clicks belong to the links clicked
 * last (links.last_click_at, indexed by owner), so those links are read through the (link_num, at)
 * index, a few rows each, however many links and clicks the owner has. On SQLite, rows still in
 * click_staging are added, and last_click_at moves with each roll-up (CLICK_ROLLUP_MS): a link clicked
 * for the first time since then may be missed.
 */
export async function recentClicks(db: Db, dialect: Dialect, ownerId: string, ownHost: string, limit = BACKLOG): Promise<LiveClick[]> {
  // Along the index of the last click's key (0: never clicked): links_owner_last_click_key on SQLite,
  // link_click_order's on PostgreSQL (migration 061).
  const links =
    dialect === "sqlite"
      ? await db
          .selectFrom("links")
          .select(["id", "num", "alias", "domain"])
          .where("owner_id", "=", ownerId)
          .where(sql<number>`coalesce(last_click_at, 0)`, ">", 0)
          .orderBy(sql`coalesce(last_click_at, 0)`, "desc")
          .limit(limit)
          .execute()
      : await db
          .selectFrom("link_click_order as o")
          .innerJoin("links", "links.id", "o.link_id")
          .select(["links.id", "links.num", "links.alias", "links.domain"])
          .where("o.owner_id", "=", ownerId)
          .where("o.last_click_key", ">", 0)
          .orderBy("o.last_click_key", "desc")
          .limit(limit)
          .execute();
  const byNum = new Map(links.map((l) => [Number(l.num), l]));
  const rows: StoredClick[] = [];
  if (links.length > 0) {
    const latest = (num: number) =>
      db.selectFrom("clicks").select(COLUMNS).where("link_num", "=", num).orderBy("at", "desc").orderBy("id", "desc").limit(limit);
    const [first, ...rest] = links.map((l, i) => db.selectFrom(latest(Number(l.num)).as(`c${i}`)).selectAll());
    rows.push(...((await rest.reduce((q, next) => q.unionAll(next), first!).execute()) as StoredClick[]));
  }
  if (dialect === "sqlite") {
    const staged = await db
      .selectFrom("click_staging as s")
      .innerJoin("links as l", "l.num", "s.link_num")
      .select(COLUMNS.map((c) => `s.${c}` as const))
      .select(["l.id as link_id", "l.alias", "l.domain"])
      .where("l.owner_id", "=", ownerId)
      .orderBy("s.at", "desc")
      .limit(limit)
      .execute();
    for (const s of staged) {
      byNum.set(Number(s.link_num), { id: s.link_id, num: s.link_num, alias: s.alias, domain: s.domain });
      rows.push(s);
    }
  }
  rows.sort((a, b) => Number(b.at) - Number(a.at) || Number(b.id) - Number(a.id));
  return rows
    .slice(0, limit)
    .reverse()
    .flatMap((r) => {
      const link = byNum.get(Number(r.link_num));
      return link ? [storedEvent(r, link, ownHost)] : [];
    });
}

function storedEvent(r: StoredClick, link: { id: string; alias: string; domain: string }, ownHost: string): LiveClick {
  return {
    at: new Date(Number(r.at)).toISOString(),
    link_id: link.id,
    alias: link.alias,
    domain: link.domain === "" ? ownHost : link.domain,
    country: r.country === "unknown" ? "" : r.country,
    device: r.device,
    browser: r.browser,
    os: r.os,
    referrer: r.referrer === "direct" || r.referrer === "unknown" ? "" : r.referrer,
    source: Number(r.qr) === 1 ? "qr" : "link",
    destination: r.destination ?? "default",
    bot: Number(r.is_bot) === 1,
  };
}
