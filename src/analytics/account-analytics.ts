// Account analytics (docs/api.md, Account analytics): every link of an owner (or those of one link, domain
// tag or folder) over a period: totals against the period before, the series, the top links and the breakdowns,
// read from the roll-ups with the clicks held back from them, as a link's statistics are.
import { type Expression, type RawBuilder, sql } from "kysely";
import type { Db, Dialect } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import type { Analytics, AnalyticsQuery } from "../contract/analytics.js";
import { can, requireCapability } from "../accounts/plans.js";
import { conversionFigures } from "../conversions/conversion-stats.js";
import { linkWithConversions, withConversions } from "../conversions/stats-rows.js";
import { managedOwner, visibleFolderCondition } from "../teams/access.js";
import { anyAppFigure, appCounts } from "../deeplinks/app-stats.js";
import { folderFilter } from "../teams/folders.js";
import { shortUrl } from "../links/public-link.js";
import type { Group } from "../clicks/click-groups.js";
import { type Period } from "../clicks/period.js";
import { type DayRange, splitByMonth } from "../clicks/range.js";
import { type RollupSource, linkRows, ownerRows, seriesOf, storedSeries } from "../clicks/series.js";
import { type StatsService, type Tops, TOP_N, periodStats, withHeldTops } from "../clicks/stats.js";
import { recentFrom } from "../clicks/pg-months.js";

export interface AccountAnalyticsDeps {
  db: Db;
  /** PostgreSQL reads the links by click count through link_click_order (migration 061). */
  dialect: Dialect;
  stats: StatsService;
  origin: string;
  /** The main host's name: `domain` names it as any custom domain is named. */
  ownHost: string;
  /** Links summed first for the top links (default CANDIDATES; tests make it small). */
  candidates?: number;
}

interface LinkKey {
  id: string;
  num: number;
  created_at: number;
}

/** Links whose period totals are summed before the others are ruled out by their all-time counts. */
const CANDIDATES = 200;
/** The same over a year or more, where all-time counts are close to the period's. */
const FEW_CANDIDATES = 2 * TOP_N;
const YEAR_MS = 365 * 86_400_000;

/** The condition leaving out the links of folders hidden from the reader; null: none hidden. */
type Hidden = RawBuilder<boolean> | null;

type LinkTotals = Map<string, { clicks: number; visitors: number }>;

export class AccountAnalytics {
  constructor(private readonly deps: AccountAnalyticsDeps) {}

  /** The period and what the account's (filtered) links did in it; Business and above (the owner's plan). */
  async read(actor: UserRow, query: AnalyticsQuery): Promise<Analytics> {
    const { owner, access } = await managedOwner(this.deps.db, actor, query.owner, "stats.view");
    requireCapability(owner.plan, "account_analytics", "Account analytics");
    // Folders hidden from a member (teams/access.ts): their links are left out as a filter would leave them.
    const hidden = visibleFolderCondition(access);
    const filtered = Boolean(query.link || query.domain || query.tag || query.folder_id || hidden);
    // Filtered, the links kept; unfiltered, none listed (an account may hold a million): the clicks held back
    // or not committed yet are taken for every link and those of the owner's links kept by number.
    const links = filtered ? await this.keys(owner.id, query, hidden) : null;
    const first = links === null ? await this.firstCreated(owner.id) : links.reduce((min, l) => Math.min(min, l.created_at), Number.POSITIVE_INFINITY);
    const p = this.deps.stats.period(query, Number.isFinite(first) ? first : Number(owner.created_at));
    const filter = this.filter(owner.id, query, hidden);
    // Unfiltered, the owner's own roll-ups: a few rows a day whatever the number of links.
    const rows = filtered ? filter : ownerRows(owner.id);
    const keys = links === null ? null : links.map((l) => ({ id: l.id, num: l.num }));
    const conds = this.linkConditions(owner.id, query, hidden);
    const { value } = await this.deps.stats.reads.read(keys, async (db, all) => {
      const held = keys === null ? await groupsOfLinks(db, conds, all) : all;
      return {
        held,
        series: await storedSeries(db, rows, p),
        tops: await this.deps.stats.tops(db, rows, p.days, held),
        links: await this.linkTotals(db, owner.id, filtered ? conds : null, filter, p, held),
      };
    });
    const groups = value.held;
    const inDays = groups.filter((g) => g.day >= p.days.from && g.day <= p.days.to);
    const tops: Tops = withHeldTops(value.tops, inDays);
    const top = topLinks(value.links, inDays);
    const info =
      top.length === 0
        ? []
        : await this.deps.db
            .selectFrom("links")
            .select(["id", "alias", "domain", "url", "title"])
            .where(
              "id",
              "in",
              top.map(([id]) => id),
            )
            .execute();
    const byId = new Map(info.map((l) => [l.id, l]));
    // Conversions of the same links (Business and up, as account analytics are): exact, straight from their tables.
    const apps = await appCounts(this.deps.db, links === null ? { ownerId: owner.id } : { linkIds: links.map((l) => l.id) }, p);
    const answer = {
      owner_id: owner.id,
      ...(anyAppFigure(apps) ? { apps } : {}),
      ...(p.name ? { range: p.name } : {}),
      tz: p.tz,
      from: p.from,
      to: p.to,
      ...periodStats(p, seriesOf(p, value.series, groups), tops),
      links: top.flatMap(([id, t]) => {
        const l = byId.get(id);
        return l
          ? [
              {
                link_id: id,
                alias: l.alias,
                short_url: shortUrl(this.deps.origin, l.domain, l.alias),
                url: l.url,
                title: l.title,
                clicks: t.clicks,
                visitors: t.visitors,
              },
            ]
          : [];
      }),
    };
    if (!can(owner.plan, "conversions")) return answer;
    const figures = await conversionFigures(this.deps.db, links === null ? { ownerId: owner.id } : { linkIds: links.map((l) => l.id) }, p);
    return { ...withConversions(answer, figures), links: answer.links.map((l) => linkWithConversions(l, figures)) };
  }

  /**
   * Clicks and visitors per link over the period (linkTotals). On PostgreSQL, a period from the last compacted month on
   * also rules links out by their clicks since the month before it (recentFrom): of the links with enough all-time
   * clicks to reach the top, a few dozen recent enough are summed where a thousand were (bench:big's 30 days). A
   * compaction that moves on meanwhile (a month's turn) changes what those counts hold: the links are then summed again
   * by their all-time clicks alone.
   */
  private async linkTotals(db: Db, ownerId: string, conds: RawBuilder<boolean> | null, filter: RollupSource, p: Period, held: Group[]): Promise<LinkTotals> {
    const monthsThrough = await this.deps.stats.monthsThrough(db);
    const sum = (recent: boolean) =>
      linkTotals(db, this.deps.dialect, byClicks(db, this.deps.dialect, ownerId, conds, recent), filter, p, held, {
        first: this.deps.candidates ?? (p.days.endMs - p.days.startMs >= YEAR_MS ? FEW_CANDIDATES : CANDIDATES),
        monthsThrough,
      });
    if (this.deps.dialect !== "postgres") return sum(false);
    const from = await recentFrom(db);
    if (p.days.from.slice(0, 7) < from) return sum(false);
    const totals = await sum(true);
    return (await recentFrom(db)) === from ? totals : sum(false);
  }

  /** The links the filters keep (one link, one host, one tag, one folder: all of them must hold): what fresh reads ask the writer about. */
  private keys(ownerId: string, q: AnalyticsQuery, hidden: Hidden): Promise<LinkKey[]> {
    return this.deps.db
      .selectFrom("links")
      .select(["id", "num", "created_at"])
      .where(this.linkConditions(ownerId, q, hidden))
      .execute()
      .then((rows) => rows.map((r) => ({ id: r.id, num: Number(r.num), created_at: Number(r.created_at) })));
  }

  /** When the owner's first link was made (epoch ms; Infinity without links): where range=all starts. */
  private async firstCreated(ownerId: string): Promise<number> {
    const r = await this.deps.db
      .selectFrom("links")
      .select((eb) => eb.fn.min("created_at").as("first"))
      .where("owner_id", "=", ownerId)
      .executeTakeFirst();
    return r?.first === null || r?.first === undefined ? Number.POSITIVE_INFINITY : Number(r.first);
  }

  private linkConditions(ownerId: string, q: AnalyticsQuery, hidden: Hidden) {
    const conds = [sql<boolean>`links.owner_id = ${ownerId}`];
    if (hidden) conds.push(hidden);
    if (q.link) conds.push(sql<boolean>`links.id = ${q.link}`);
    if (q.domain) conds.push(sql<boolean>`links.domain = ${q.domain.toLowerCase() === this.deps.ownHost.toLowerCase() ? "" : q.domain.toLowerCase()}`);
    if (q.tag) conds.push(sql<boolean>`EXISTS (SELECT 1 FROM link_tags lt WHERE lt.link_id = links.id AND lt.tag_id = ${q.tag})`);
    const folder = folderFilter(q.folder_id);
    if (folder) conds.push("id" in folder ? sql<boolean>`links.folder_id = ${folder.id}` : sql<boolean>`links.folder_id IS NULL`);
    return sql<boolean>`(${sql.join(conds, sql` AND `)})`;
  }

  /** The roll-up rows of the filtered links (a roll-up's link_id compared with them). */
  private filter(ownerId: string, q: AnalyticsQuery, hidden: Hidden): RollupSource {
    return linkRows(sql<boolean>`link_id IN (SELECT links.id FROM links WHERE ${this.linkConditions(ownerId, q, hidden)})`);
  }
}

/** Of groups of any link, those of the links `conds` keeps, with their link ids (a group read back from the journal has none). */
async function groupsOfLinks(db: Db, conds: RawBuilder<boolean>, groups: Group[]): Promise<Group[]> {
  if (groups.length === 0) return [];
  const nums = [...new Set(groups.map((g) => g.link_num))];
  const ids = new Map<number, string>();
  for (let i = 0; i < nums.length; i += 5_000) {
    const rows = await sql<{
      id: string;
      num: number;
    }>`SELECT links.id, links.num FROM links WHERE ${conds} AND links.num IN (${sql.join(nums.slice(i, i + 5_000))})`.execute(db);
    for (const r of rows.rows) ids.set(Number(r.num), r.id);
  }
  return groups.flatMap((g) => {
    const id = ids.get(g.link_num);
    return id === undefined ? [] : [g.link_id === id ? g : { ...g, link_id: id }];
  });
}

/** The owner's links by all-time clicks, most first (what the top links are ruled in and out by). */
interface ByClicks {
  first(limit: number): Promise<Array<{ id: string; click_count: number | string }>>;
  /** Those with at least `min` all-time clicks (and recent ones, where byClicks is `recent`), as a subquery of their ids. */
  atLeast(min: number): Expression<unknown>;
}

/**
 * The owner's links (those `conds` keeps; null: all) by all-time clicks, most first, ties by id the other way
 * round: one backward walk of links_owner_clicks on SQLite, of link_click_order's index on PostgreSQL (migration
 * 061), with no sort (an ascending tie order made PostgreSQL sort, in parallel workers whose start alone took
 * 24 ms: bench:big). `recent` (PostgreSQL): `atLeast` also keeps only the links with that many clicks since the
 * month before the last compacted one (click_count - base_count, migration 065), a filter on the same walk. An
 * index of their own would be faster to walk, but every click's update of link_click_order would write to it too
 * (bench:clicks: PostgreSQL's CPU per Zipf click 116-120 µs with it against 92-103 without).
 */
function byClicks(db: Db, dialect: Dialect, ownerId: string, conds: RawBuilder<boolean> | null, recent = false): ByClicks {
  if (dialect === "sqlite") {
    const q = (min: number) =>
      db
        .selectFrom("links")
        .select(["links.id", "links.click_count"])
        .where(conds ?? sql<boolean>`links.owner_id = ${ownerId}`)
        .where("links.click_count", ">=", min)
        .orderBy("links.click_count", "desc")
        .orderBy("links.id", "desc");
    return { first: (limit) => q(0).limit(limit).execute(), atLeast: q };
  }
  const q = (min: number) => {
    const own = db
      .selectFrom("link_click_order as o")
      .select(["o.link_id as id", "o.click_count"])
      .where("o.owner_id", "=", ownerId)
      .where("o.click_count", ">=", min)
      .$if(recent && min > 0, (w) => w.where(sql<number>`o.click_count - o.base_count`, ">=", min))
      .orderBy("o.click_count", "desc")
      .orderBy("o.link_id", "desc");
    // Unfiltered, link_click_order alone answers (it holds every link's owner); filters are on links.
    return conds === null ? own : own.where(sql<boolean>`EXISTS (SELECT 1 FROM links WHERE links.id = o.link_id AND ${conds})`);
  };
  return { first: (limit) => q(0).limit(limit).execute(), atLeast: q };
}

/**
 * Clicks and visitors per link over the period's UTC days: the top links, and the stored totals of the
 * links that held-back groups add to (one of them may move into the top). A link's clicks in a period are
 * at most its all-time count: the `first` links with the most clicks are summed first, and when the
 * last of them has fewer all-time clicks than the TOP_Nth sum, no other link can be in the top (the
 * exact answer from a few hundred links' rows); otherwise the links with at least that many all-time
 * clicks are summed (the others cannot reach the TOP_Nth sum, a tie included): on a short period of an
 * account of years, a few thousand links' rows rather than every link's (bench:big, issue 60).
 */
async function linkTotals(
  db: Db,
  dialect: Dialect,
  ordered: ByClicks,
  links: RollupSource,
  p: Period,
  held: Group[],
  { first, monthsThrough }: { first: number; monthsThrough: string },
): Promise<LinkTotals> {
  const sums = (set: LinkSet, limit: number | null) => sumLinks(db, dialect, set, p.days, monthsThrough, limit);
  const candidates = await ordered.first(first);
  let top = candidates.length === 0 ? { rows: [] } : await sums({ ids: candidates.map((c) => c.id) }, TOP_N);
  const bound = candidates.length === first ? Number(candidates[first - 1]!.click_count) : 0;
  const nth = top.rows.length === TOP_N ? Number(top.rows[TOP_N - 1]!.clicks) : 0;
  // A link left out with as many all-time clicks as the TOP_Nth sum could tie with it (and come first by id): summed too.
  if (bound > 0 && bound >= nth) top = await sums(nth > 0 ? { query: ordered.atLeast(nth) } : { where: links.where }, TOP_N);
  const out: LinkTotals = new Map(top.rows.map((r) => [r.link_id, { clicks: Number(r.clicks), visitors: Number(r.visitors) }]));
  const more = [...new Set(held.map((g) => g.link_id))].filter((id) => !out.has(id));
  if (more.length > 0) {
    const rows = await sums({ ids: more }, null);
    for (const r of rows.rows) out.set(r.link_id, { clicks: Number(r.clicks), visitors: Number(r.visitors) });
  }
  return out;
}

/** Links to sum: these ids, those a query's `id` column gives, or those of a roll-up condition (every link the filters keep). */
type LinkSet = { ids: string[] } | { query: Expression<unknown> } | { where: RawBuilder<boolean> };

/**
 * Clicks and visitors of each link of `set` over the days, most clicks first (ties by id), `limit` of them (null: all).
 * PostgreSQL sums a set of links link by link (a lateral join: each link's rows through its own keys), where it would
 * read every row of the period through the day index and keep those of the set (30 days of an account of a million
 * links: 250,000 rows for a hundred links' 3,000; bench:big).
 */
function sumLinks(db: Db, dialect: Dialect, set: LinkSet, days: DayRange, monthsThrough: string, limit: number | null) {
  const order = limit === null ? sql`` : sql`ORDER BY sum(clicks) DESC, link_id LIMIT ${limit}`;
  const grouped = (from: RawBuilder<unknown>) =>
    sql<{ link_id: string; clicks: number; visitors: number }>`SELECT link_id, sum(clicks) AS clicks, sum(visitors) AS visitors
      FROM ${from} GROUP BY link_id ${order}`.execute(db);
  if ("where" in set) return grouped(sql`(${perLinkRows(set.where, days, monthsThrough)}) AS u`);
  const ids = "ids" in set ? sql`SELECT unnest(${set.ids}::text[]) AS id` : sql`SELECT q.id FROM (${set.query}) AS q`;
  if (dialect === "postgres")
    return grouped(sql`(SELECT c.id AS link_id, u.clicks, u.visitors FROM (${ids}) AS c
      CROSS JOIN LATERAL (${perLinkRows(sql<boolean>`link_id = c.id`, days, monthsThrough)}) AS u) AS l`);
  const where = "ids" in set ? sql<boolean>`link_id IN (${sql.join(set.ids)})` : sql<boolean>`link_id IN (${ids})`;
  return grouped(sql`(${perLinkRows(where, days, monthsThrough)}) AS u`);
}

/**
 * The rows whose sums per link are its clicks and visitors over the days: for the whole months the monthly roll-up
 * holds (through `monthsThrough`), its `device` rows (every click has a device, "bot" for robots: describe.ts), a few
 * rows a month instead of one a day; click_daily for the other days. Three years of a link: about a hundred rows,
 * not 1,095 (bench:big's account read of `all`, issue 60).
 */
function perLinkRows(where: RawBuilder<boolean>, days: DayRange, monthsThrough: string): RawBuilder<unknown> {
  const parts = splitByMonth(days, monthsThrough);
  const arms = parts.days.map((d) => sql`SELECT link_id, clicks, visitors FROM click_daily WHERE ${where} AND day >= ${d.from} AND day <= ${d.to}`);
  if (parts.months)
    arms.unshift(
      sql`SELECT link_id, clicks, visitors FROM click_breakdown_month
        WHERE ${where} AND dimension = 'device' AND month >= ${parts.months.from} AND month <= ${parts.months.to}`,
    );
  return sql`${sql.join(arms, sql` UNION ALL `)}`;
}

/** The TOP_N links by clicks with the held-back groups added, ties by id. */
function topLinks(stored: LinkTotals, groups: Group[]): Array<[string, { clicks: number; visitors: number }]> {
  const all = new Map([...stored].map(([id, t]) => [id, { ...t }]));
  for (const g of groups) {
    const t = all.get(g.link_id) ?? { clicks: 0, visitors: 0 };
    all.set(g.link_id, { clicks: t.clicks + g.clicks, visitors: t.visitors + g.visitors });
  }
  return [...all]
    .filter(([, t]) => t.clicks > 0)
    .sort((a, b) => b[1].clicks - a[1].clicks || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOP_N);
}
