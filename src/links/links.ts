// LinkService: the links feature's entry point for HTTP routes, the external API and the CLI.
import type { Logger } from "pino";
import { sql } from "kysely";
import type SQLite from "better-sqlite3";
import type { Db, PreparedQuery } from "../storage/db.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { type BulkInput, type BulkResult, bulkCreate, bulkRows } from "./bulk.js";
import type { LinkChanges } from "./changes.js";
import {
  type CreateLinkInput,
  type CreateLinkOptions,
  DEFAULT_SIGNED_OUT_PER_HOUR,
  type PreparedLink,
  checkCreation,
  createLink,
  prepareLink,
  requireActive,
} from "./create-link.js";
import { type ManyOutcome, type TakenChoice, insertMany } from "./create-many.js";
import { type LinkDeps, announce } from "./deps.js";
import type { Trx } from "../storage/owner-caps.js";
import { type LinkPage, type ListQuery, listLinks } from "./list-links.js";
import { toLink } from "./public-link.js";
import type { BulkEditFields, Link } from "../contract/links.js";
import { type UpdateLinkInput, deleteLink, updateLink, viewLink } from "./update-link.js";
import { type AccessibleLink, type LinkView, parseLinkIds, readableLinks, selectLinkViews } from "./link-access.js";
import { managedOwner, visibleFolderCondition } from "../teams/access.js";
import { DomainError } from "../shared/errors.js";
import { bulkDelete, bulkEdit } from "./bulk-edit.js";
import { tagsOfLinks } from "../tags/tags.js";
import { healthOfLinks } from "./link-health.js";
import type { LinkHealthSummary } from "../contract/health.js";
import { type Snapshot, parseSnapshot } from "../storage/pg-snapshot.js";

/** A link `l` on a custom domain is served while its owner holds that domain, verified. */
const ON_VERIFIED_DOMAIN = "EXISTS (SELECT 1 FROM domains d WHERE d.hostname = l.domain AND d.owner_id = l.owner_id AND d.status = 'verified')";

/** The columns the redirect cache reads (named: a column added by a later migration leaves the prepared statement valid). */
const CACHED_COLUMNS = [
  "id",
  "num",
  "domain",
  "alias",
  "url",
  "ios_url",
  "android_url",
  "expires_at",
  "max_clicks",
  "password_hash",
  "owner_id",
  "disabled_status",
  "expired_url",
  "rules",
  "split",
  "preview_title",
  "preview_description",
  "preview_image",
  "starts_at",
  "redirect_status",
  "crawlable",
  "track_conversions",
  "app_ios_store_id",
  "app_android_package",
  "app_path",
  "folder_id",
] as const;
/**
 * Conversion tracking as the redirect needs it, worked out when a link is loaded: whether it tracks (its own
 * choice, else its domain's, else its account's default), the account's query parameter and its plan.
 */
const TRACK_EXPR =
  "coalesce(l.track_conversions, (SELECT d.track_conversions FROM domains d WHERE d.hostname = l.domain AND d.owner_id = l.owner_id), (SELECT u.track_conversions FROM users u WHERE u.id = l.owner_id), 0)";
const PARAM_EXPR = "(SELECT u.conversion_param FROM users u WHERE u.id = l.owner_id)";
const PLAN_EXPR = "(SELECT u.plan FROM users u WHERE u.id = l.owner_id)";
/** Whether in-app browsers get a way out (docs/deep-links.md): the link's own choice, else its account's default. */
const OUTSIDE_EXPR = "coalesce(l.open_outside, (SELECT u.open_outside FROM users u WHERE u.id = l.owner_id), 0)";
const TRACKING_SQL = `${TRACK_EXPR} AS snip_track, ${PARAM_EXPR} AS snip_param, ${PLAN_EXPR} AS snip_plan, ${OUTSIDE_EXPR} AS snip_outside`;
export type CachedRow = Pick<LinkRow, (typeof CACHED_COLUMNS)[number]> & {
  /** 1 when the link tracks conversions (see TRACKING_SQL); absent in rows read elsewhere. */
  snip_track?: number | null;
  snip_param?: string | null;
  snip_plan?: string | null;
  /** 1 when in-app browsers get a way out (see OUTSIDE_EXPR). */
  snip_outside?: number | null;
};

/** findFresh()'s answer: the row, or on PostgreSQL the row with the snapshot it was read with. */
export type Loaded = CachedRow | null | { row: CachedRow | null; seen: Snapshot };

/** PostgreSQL's find() for the cache, with the snapshot the row was read with. */
const FIND_SQL = `SELECT ${CACHED_COLUMNS.map((c) => `l.${c}`).join(", ")}, ${TRACKING_SQL}, pg_current_snapshot()::text AS snip_seen FROM links l WHERE l.domain = $1 AND l.alias = $2`;
const FIND_ON_DOMAIN_SQL = `${FIND_SQL} AND ${ON_VERIFIED_DOMAIN}`;

export type { CreateLinkInput, UpdateLinkInput, ListQuery, LinkPage, BulkResult, AccessibleLink, LinkView };

export class LinkService {
  private readonly deps: LinkDeps;
  private readonly sqlite: SQLite.Database | null;
  private readonly prepared: PreparedQuery | null;
  private findStatement: SQLite.Statement<[string, string], LinkRow> | null = null;
  private findOnDomainStatement: SQLite.Statement<[string, string], LinkRow> | null = null;
  private readonly clickCounts: (links: Array<{ id: string; num: number }>) => Promise<Map<string, number>>;

  constructor(opts: {
    db: Db;
    caps: LinkDeps["caps"];
    sqlite?: SQLite.Database | null;
    /** PostgreSQL's named statements (the redirect cache's reads). */
    prepared?: PreparedQuery | null;
    clock: Clock;
    log: Logger;
    changes: LinkChanges;
    rate: RateEvents;
    baseUrl: URL;
    settleClicks: () => Promise<void>;
    linkDomain: LinkDeps["linkDomain"];
    holdDomain: LinkDeps["holdDomain"];
    blocklist: LinkDeps["blocklist"];
    linkChecks: boolean;
    /** SIGNED_OUT_LINKS_PER_HOUR (default 30). */
    signedOutPerHour?: number;
    /** Click counts as every read shows them: stored, and held back from the roll-ups. */
    clickCounts: (links: Array<{ id: string; num: number }>) => Promise<Map<string, number>>;
  }) {
    const { sqlite, prepared, baseUrl, clickCounts, signedOutPerHour, ...deps } = opts;
    this.prepared = prepared ?? null;
    this.clickCounts = clickCounts;
    this.deps = { ...deps, origin: baseUrl.origin, ownHost: baseUrl.hostname, signedOutPerHour: signedOutPerHour ?? DEFAULT_SIGNED_OUT_PER_HOUR };
    this.sqlite = sqlite ?? null;
  }

  get changes(): LinkChanges {
    return this.deps.changes;
  }

  /**
   * Signed out (actor null): url and alias only, 5-minute lifetime, no owner. With `ownerId` (a team owner's id,
   * docs/roles.md): the link is created in that owner's account when the actor's role there has links.create.
   */
  async create(actor: UserRow | null, input: CreateLinkInput, opts: CreateLinkOptions = {}, ownerId?: string): Promise<LinkRow> {
    return createLink(this.deps, actor, input, { ...opts, ...(await this.inTeam(actor, ownerId)) });
  }

  /** The team a creation with `?owner=` runs in: none for the actor's own account; not_found outside the team, forbidden without links.create. */
  private async inTeam(actor: UserRow | null, ownerId: string | undefined): Promise<Pick<CreateLinkOptions, "team">> {
    if (ownerId === undefined || ownerId === actor?.id) return {};
    if (!actor) throw new DomainError("unauthenticated", "Sign in to create links in a team's account");
    const { owner, access } = await managedOwner(this.deps.db, actor, ownerId, "links.create");
    return { team: { actor, access: { ...access, owner } } };
  }

  /** create()'s checks of the input and the row it would insert, nothing written (the first half of createMany). */
  prepare(actor: UserRow, input: CreateLinkInput, opts: CreateLinkOptions = {}): Promise<PreparedLink> {
    requireActive(actor);
    return prepareLink(this.deps, actor, input, opts, this.deps.clock.now());
  }

  /**
   * Prepared links of `actor` created in the caller's transaction, each as create() would one after the
   * other (create-many.ts); call announceCreated() after the commit.
   */
  createMany(trx: Trx, actor: UserRow, prepared: PreparedLink[], onTaken: (trx: Trx, index: number) => Promise<TakenChoice>): Promise<ManyOutcome[]> {
    return insertMany(this.deps, trx, actor, prepared, onTaken);
  }

  /** Tells the caches of every instance about links createMany() made (their addresses may have been served as 404). */
  announceCreated(links: Array<{ domain: string; alias: string }>): Promise<void> {
    return links.length === 0
      ? Promise.resolve()
      : announce(
          this.deps,
          links.map((l) => ({ domain: l.domain, alias: l.alias })),
        );
  }

  /** What create() would refuse in the input itself (destination, blocklist, alias syntax, plan options); nothing written. */
  check(actor: UserRow, input: CreateLinkInput): Promise<void> {
    return checkCreation(this.deps, actor, input);
  }

  /** The links with click_count as every read shows it (clicks held back from the roll-ups included). */
  async withCurrentCounts<L extends LinkRow>(links: L[]): Promise<L[]> {
    const counts = await this.clickCounts(links.map((l) => ({ id: l.id, num: Number(l.num) })));
    return links.map((l) => ({ ...l, click_count: counts.get(l.id) ?? l.click_count }));
  }

  /** Link objects as every answer shows them: current click counts, tags and health (one query each for the lot). */
  async present(links: Array<LinkRow & { updated_by_email?: string | null }>): Promise<Link[]> {
    const ids = links.map((l) => l.id);
    const [counted, tags, health] = await Promise.all([
      this.withCurrentCounts(links),
      tagsOfLinks(this.deps.db, ids),
      this.deps.linkChecks ? healthOfLinks(this.deps.db, ids) : new Map<string, LinkHealthSummary>(),
    ]);
    return counted.map((l) => toLink(l, tags.get(l.id) ?? [], this.deps.origin, this.deps.blocklist, health.get(l.id) ?? null));
  }

  async presentOne(link: LinkRow & { updated_by_email?: string | null }): Promise<Link> {
    return (await this.present([link]))[0]!;
  }

  /** A link the actor may see (its owner or an active team member); not_found otherwise. */
  async get(actor: UserRow, id: string): Promise<LinkView> {
    return (await viewLink(this.deps, actor, id)).link;
  }

  /** The link with the actor's role and its owner (whose plan gates options and statistics). */
  access(actor: UserRow, id: string): Promise<AccessibleLink> {
    return viewLink(this.deps, actor, id);
  }

  /** The actor's links, or with `owner` those of a team the actor is an active member of (not_found otherwise). */
  async list(actor: UserRow, query: ListQuery): Promise<LinkPage> {
    const { owner, access } = await managedOwner(this.deps.db, actor, query.owner);
    return listLinks(this.deps, owner.id, { ...query, hidden: visibleFolderCondition(access) }, this.sqlite ? "sqlite" : "postgres");
  }

  update(actor: UserRow, id: string, input: UpdateLinkInput): Promise<LinkView> {
    return updateLink(this.deps, actor, id, input);
  }

  delete(actor: UserRow, id: string): Promise<void> {
    return deleteLink(this.deps, actor, id);
  }

  /** One link per row; with `ownerId`, in a team owner's account (links.create): the owner's plan decides bulk creation and its batch size. */
  async bulk(actor: UserRow, input: BulkInput, ownerId?: string): Promise<BulkResult[]> {
    const team = await this.inTeam(actor, ownerId);
    requireActive(actor);
    return bulkCreate(team.team?.access.owner ?? actor, bulkRows(input), ({ line: _line, ...row }) =>
      createLink(this.deps, actor, row, { via: "dashboard", ...team }),
    );
  }

  /** Archives, restores or (un)tags many links of one owner at once; the links as they are now, in the order asked. */
  async bulkEdit(actor: UserRow, input: BulkEditFields): Promise<LinkView[]> {
    const ids = await bulkEdit(this.deps, actor, input);
    const rows = await selectLinkViews(this.deps.db).where("links.id", "in", ids).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Deletes many links of the actor's at once; how many went. */
  bulkDelete(actor: UserRow, ids: string[]): Promise<number> {
    return bulkDelete(this.deps, actor, ids);
  }

  /** The links named by `idsText` (comma-separated ids) that the actor may read; invalid_request for a malformed or too long list. */
  readable(actor: UserRow, idsText: string): Promise<Array<{ id: string; num: number }>> {
    return readableLinks(this.deps.db, actor, parseLinkIds(idsText));
  }

  /**
   * The live link at domain + alias, straight from the database (the redirect path caches it). On a custom
   * domain only while the domain is verified by the link's owner: pending, deleted or another account's
   * hostname answers null.
   */
  async find(domain: string, alias: string): Promise<LinkRow | null> {
    if (this.sqlite) {
      // Every cache miss of the redirect path lands here: a prepared statement instead of building and
      // preparing the query each time, run under Kysely's connection lock like every other statement.
      const stmt =
        domain === ""
          ? (this.findStatement ??= this.sqlite.prepare<[string, string], LinkRow>(
              `SELECT l.*, ${TRACKING_SQL} FROM links l WHERE l.domain = ? AND l.alias = ?`,
            ))
          : (this.findOnDomainStatement ??= this.sqlite.prepare<[string, string], LinkRow>(
              `SELECT l.*, ${TRACKING_SQL} FROM links l WHERE l.domain = ? AND l.alias = ? AND ${ON_VERIFIED_DOMAIN}`,
            ));
      return this.deps.db.connection().execute(async () => stmt.get(domain, alias) ?? null);
    }
    let qb = this.deps.db.selectFrom("links as l").selectAll("l").where("l.domain", "=", domain).where("l.alias", "=", alias);
    if (domain !== "") qb = qb.where(sql<boolean>`${sql.raw(ON_VERIFIED_DOMAIN)}`);
    return (await qb.executeTakeFirst()) ?? null;
  }

  /**
   * find() for the redirect cache: on PostgreSQL with the snapshot the row was read with, so that a
   * change notification arriving after the read does not drop what already holds the change.
   */
  async findFresh(domain: string, alias: string): Promise<Loaded> {
    if (this.sqlite) return this.find(domain, alias);
    // Every cache miss lands here: a named statement, parsed and planned once per pooled connection.
    const [found] = this.prepared
      ? await this.prepared<CachedRow & { snip_seen: string }>(
          domain === "" ? "snip_find_link" : "snip_find_link_on_domain",
          domain === "" ? FIND_SQL : FIND_ON_DOMAIN_SQL,
          [domain, alias],
        )
      : [await this.findWithSnapshot(domain, alias)];
    if (!found) {
      // No row, no snapshot from it: a missing link is remembered briefly anyway.
      return null;
    }
    const { snip_seen, ...row } = found;
    const snapshot = parseSnapshot(snip_seen);
    return snapshot ? { row, seen: snapshot } : row;
  }

  private findWithSnapshot(domain: string, alias: string): Promise<(CachedRow & { snip_seen: string }) | undefined> {
    const seen = sql<string>`pg_current_snapshot()::text`.as("snip_seen");
    let qb = this.deps.db
      .selectFrom("links as l")
      .select(CACHED_COLUMNS.map((c) => `l.${c}` as const))
      .select([
        sql.raw<number>(TRACK_EXPR).as("snip_track"),
        sql.raw<string>(PARAM_EXPR).as("snip_param"),
        sql.raw<string>(PLAN_EXPR).as("snip_plan"),
        sql.raw<number>(OUTSIDE_EXPR).as("snip_outside"),
      ])
      .select(seen)
      .where("l.domain", "=", domain)
      .where("l.alias", "=", alias);
    if (domain !== "") qb = qb.where(sql<boolean>`${sql.raw(ON_VERIFIED_DOMAIN)}`);
    return qb.executeTakeFirst();
  }

  /** Current stored click count (exact for click-limited links, which are counted synchronously). */
  async clickCount(id: string): Promise<number | null> {
    const row = await this.deps.db.selectFrom("links").select("click_count").where("id", "=", id).executeTakeFirst();
    return row ? Number(row.click_count) : null;
  }
}
