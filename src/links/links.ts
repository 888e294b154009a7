// LinkService: the links feature's entry point for HTTP routes, the external API and the CLI.
import type { Logger } from "pino";
import type SQLite from "better-sqlite3";
import type { Db } from "../storage/db.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { type BulkResult, bulkCreate } from "./bulk.js";
import type { LinkChanges } from "./changes.js";
import { type CreateLinkInput, type CreateLinkOptions, createLink } from "./create-link.js";
import type { LinkDeps } from "./deps.js";
import { type LinkPage, type ListQuery, listLinks } from "./list-links.js";
import { type PublicLink, toPublicLink } from "./public-link.js";
import { type UpdateLinkInput, deleteLink, ownedLink, updateLink } from "./update-link.js";

export type { CreateLinkInput, UpdateLinkInput, ListQuery, LinkPage, PublicLink, BulkResult };

export class LinkService {
  private readonly deps: LinkDeps;
  private readonly sqlite: SQLite.Database | null;
  private findStatement: SQLite.Statement<[string, string], LinkRow> | null = null;
  private readonly clickCounts: (links: Array<{ id: string; num: number }>) => Promise<Map<string, number>>;

  constructor(opts: {
    db: Db;
    sqlite?: SQLite.Database | null;
    clock: Clock;
    log: Logger;
    changes: LinkChanges;
    rate: RateEvents;
    baseUrl: URL;
    settleClicks: () => Promise<void>;
    /** Click counts as every read shows them: stored, and held back from the roll-ups. */
    clickCounts: (links: Array<{ id: string; num: number }>) => Promise<Map<string, number>>;
  }) {
    const { sqlite, baseUrl, clickCounts, ...deps } = opts;
    this.clickCounts = clickCounts;
    this.deps = { ...deps, origin: baseUrl.origin, ownHost: baseUrl.hostname };
    this.sqlite = sqlite ?? null;
  }

  get changes(): LinkChanges {
    return this.deps.changes;
  }

  /** Signed out (actor null): url and alias only, 5-minute lifetime, no owner. */
  create(actor: UserRow | null, input: CreateLinkInput, opts?: CreateLinkOptions): Promise<LinkRow> {
    return createLink(this.deps, actor, input, opts);
  }

  /** The links with click_count as every read shows it (clicks held back from the roll-ups included). */
  async withCurrentCounts<L extends LinkRow>(links: L[]): Promise<L[]> {
    const counts = await this.clickCounts(links.map((l) => ({ id: l.id, num: Number(l.num) })));
    return links.map((l) => ({ ...l, click_count: counts.get(l.id) ?? l.click_count }));
  }

  toPublic(link: LinkRow): PublicLink {
    return toPublicLink(link, this.deps.origin);
  }

  /** A link the actor may see (its owner, for now); not_found otherwise. */
  get(actor: UserRow, id: string): Promise<LinkRow> {
    return ownedLink(this.deps, actor, id);
  }

  list(actor: UserRow, query: ListQuery): Promise<LinkPage> {
    return listLinks(this.deps, actor.id, query);
  }

  update(actor: UserRow, id: string, input: UpdateLinkInput): Promise<LinkRow> {
    return updateLink(this.deps, actor, id, input);
  }

  delete(actor: UserRow, id: string): Promise<void> {
    return deleteLink(this.deps, actor, id);
  }

  bulk(actor: UserRow, urls: string): Promise<BulkResult[]> {
    return bulkCreate(actor, urls, (url) => this.create(actor, { url }, { via: "dashboard" }));
  }

  /** The live link at domain + alias, straight from the database (the redirect path caches it). */
  async find(domain: string, alias: string): Promise<LinkRow | null> {
    if (this.sqlite) {
      // Every cache miss of the redirect path lands here: a prepared statement instead of building and
      // preparing the query each time, run under Kysely's connection lock like every other statement.
      const stmt = (this.findStatement ??= this.sqlite.prepare<[string, string], LinkRow>("SELECT * FROM links WHERE domain = ? AND alias = ?"));
      return this.deps.db.connection().execute(async () => stmt.get(domain, alias) ?? null);
    }
    return (await this.deps.db.selectFrom("links").selectAll().where("domain", "=", domain).where("alias", "=", alias).executeTakeFirst()) ?? null;
  }

  /** Current stored click count (exact for click-limited links, which are counted synchronously). */
  async clickCount(id: string): Promise<number | null> {
    const row = await this.deps.db.selectFrom("links").select("click_count").where("id", "=", id).executeTakeFirst();
    return row ? Number(row.click_count) : null;
  }
}
