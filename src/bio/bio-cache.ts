// The bio pages visitors get, kept in memory per (host, slug) so that a page is answered at redirect speed: one
// lookup, no database read. An entry is dropped when its page changes (bio-changes.ts, every instance), when one of
// its buttons' links changes (links/changes.ts), when its custom domain changes, and after POSITIVE_TTL_MS at most
// (an owner's plan or status change). The page's own views are counted here and added to bio_pages.views in batches.
import { LRUCache } from "lru-cache";
import type { BioColors, BioTheme } from "../contract/bio-pages.js";
import type { BioSocialNetwork } from "../contract/bio-pages.js";
import { can } from "../accounts/plans.js";
import { shortUrl } from "../links/public-link.js";
import type { LinkChanges } from "../links/changes.js";
import type { DomainChanges } from "../domains/domain-changes.js";
import type { Db } from "../storage/db.js";
import type { BioChanges } from "./bio-changes.js";
import { type StoredBlock, colorsOf, blocksOf } from "./bio-blocks.js";

/** What a visitor's page is drawn from: the page as stored, each button resolved to its short URL. */
export interface ServedPage {
  id: string;
  domain: string;
  slug: string;
  title: string;
  description: string | null;
  picture_url: string | null;
  theme: BioTheme;
  colors: BioColors | null;
  items: ServedItem[];
  /** The links its buttons open, as "<domain>/<alias>": a change of one of them drops the entry. */
  linkKeys: Set<string>;
  /** The page's answer, written once by whoever serves it (src/http/bio-page.ts) and kept with the entry. */
  answer: { body: Buffer; headers: string[] } | null;
}

export type ServedItem =
  | { type: "link"; label: string; href: string }
  | { type: "heading"; text: string }
  | { type: "text"; text: string }
  | { type: "social"; network: BioSocialNetwork; url: string };

interface Entry {
  page: ServedPage | null;
}

const POSITIVE_TTL_MS = 5 * 60_000;
const NEGATIVE_TTL_MS = 1_000;
/** How often counted views are written. */
export const VIEWS_FLUSH_MS = 5_000;

function cacheKey(domain: string, slug: string): string {
  return `${domain}/${slug}`;
}

export interface BioCacheDeps {
  db: Db;
  origin: string;
  size: number;
  changes: BioChanges;
  linkChanges: Pick<LinkChanges, "listen" | "onMissed">;
  domainChanges?: Pick<DomainChanges, "listen">;
}

export class BioCache {
  private readonly lru: LRUCache<string, Entry>;
  private readonly inflight = new Map<string, Promise<ServedPage | null>>();
  private generation = 0;
  /** Views counted since the last write, per page id. */
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: BioCacheDeps) {
    this.lru = new LRUCache<string, Entry>({ max: Math.max(1, deps.size), ttl: POSITIVE_TTL_MS, updateAgeOnGet: false });
    deps.changes.listen((k) => this.drop(cacheKey(k.domain, k.slug)));
    deps.changes.onMissed(() => this.clear());
    deps.linkChanges.listen((k) => this.dropUsing(`${k.domain}/${k.alias}`));
    deps.linkChanges.onMissed(() => this.clear());
    deps.domainChanges?.listen((hostname) => this.dropDomain(hostname));
  }

  /** The cached page at (domain, slug): the page, null when known missing, undefined when not cached. */
  peek(domain: string, slug: string): ServedPage | null | undefined {
    return this.lru.get(cacheKey(domain, slug))?.page;
  }

  /** The page at (domain, slug) as visitors see it, through the cache; null: none (or its owner may not publish). */
  get(domain: string, slug: string): Promise<ServedPage | null> {
    const key = cacheKey(domain, slug);
    const hit = this.lru.get(key);
    if (hit !== undefined) return Promise.resolve(hit.page);
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const gen = this.generation;
    const p = this.load(domain, slug)
      .then((page) => {
        // A change heard while this load ran may be missing from it: serve it once, keep nothing.
        if (gen === this.generation) this.lru.set(key, { page }, page ? {} : { ttl: NEGATIVE_TTL_MS });
        return page;
      })
      .finally(() => {
        if (this.inflight.get(key) === p) this.inflight.delete(key);
      });
    this.inflight.set(key, p);
    return p;
  }

  private async load(domain: string, slug: string): Promise<ServedPage | null> {
    const { db, origin } = this.deps;
    const row = await db
      .selectFrom("bio_pages")
      .innerJoin("users", "users.id", "bio_pages.owner_id")
      .selectAll("bio_pages")
      .select(["users.plan", "users.status"])
      .where("bio_pages.domain", "=", domain)
      .where("bio_pages.slug", "=", slug)
      .executeTakeFirst();
    if (!row || row.status !== "active" || !can(row.plan, "bio_pages")) return null;
    const blocks: StoredBlock[] = blocksOf(row.blocks);
    const ids = [...new Set(blocks.flatMap((b) => (b.type === "link" ? [b.link_id] : [])))];
    const links =
      ids.length === 0
        ? []
        : await db.selectFrom("links").select(["id", "domain", "alias"]).where("id", "in", ids).where("owner_id", "=", row.owner_id).execute();
    const byId = new Map(links.map((l) => [l.id, l]));
    const items: ServedItem[] = [];
    const linkKeys = new Set<string>();
    for (const b of blocks) {
      if (b.type !== "link") {
        items.push(b);
        continue;
      }
      const l = byId.get(b.link_id);
      // A deleted link's button is left out (its block stays, the dashboard shows it as gone).
      if (!l) continue;
      linkKeys.add(`${l.domain}/${l.alias}`);
      items.push({ type: "link", label: b.label, href: shortUrl(origin, l.domain, l.alias) });
    }
    return {
      id: row.id,
      domain: row.domain,
      slug: row.slug,
      title: row.title,
      description: row.description,
      picture_url: row.picture_url,
      theme: row.theme as BioTheme,
      colors: colorsOf(row.colors),
      items,
      linkKeys,
      answer: null,
    };
  }

  private bump(): void {
    this.generation++;
  }

  private drop(key: string): void {
    this.bump();
    this.inflight.delete(key);
    this.lru.delete(key);
  }

  /** A link changed: every page with a button to it is drawn again (pages are few; a scan is fine). */
  private dropUsing(linkKey: string): void {
    let any = false;
    for (const [key, entry] of this.lru.entries()) {
      if (entry.page?.linkKeys.has(linkKey)) {
        this.lru.delete(key);
        any = true;
      }
    }
    // A load in flight may have read the link before the change.
    if (any || this.inflight.size > 0) this.bump();
  }

  private dropDomain(hostname: string): void {
    this.bump();
    const prefix = `${hostname}/`;
    for (const key of [...this.lru.keys()]) if (key.startsWith(prefix)) this.lru.delete(key);
    for (const key of [...this.inflight.keys()]) if (key.startsWith(prefix)) this.inflight.delete(key);
  }

  clear(): void {
    this.bump();
    this.inflight.clear();
    this.lru.clear();
  }

  get size(): number {
    return this.lru.size;
  }

  /** One visit of the page (not a click on any of its buttons): counted in memory, written within VIEWS_FLUSH_MS. */
  viewed(id: string): void {
    this.pending.set(id, (this.pending.get(id) ?? 0) + 1);
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flushViews().catch(() => undefined);
      }, VIEWS_FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Views counted on this instance and not written yet. */
  unwritten(id: string): number {
    return this.pending.get(id) ?? 0;
  }

  /** Writes the views counted so far (one UPDATE per page viewed); a failed write keeps them for the next. */
  flushViews(): Promise<void> {
    this.flushing = this.flushing
      .catch(() => undefined)
      .then(async () => {
        if (this.pending.size === 0) return;
        const batch = this.pending;
        this.pending = new Map();
        try {
          await this.deps.db.transaction().execute(async (trx) => {
            for (const [id, n] of batch)
              await trx
                .updateTable("bio_pages")
                .set((eb) => ({ views: eb("views", "+", n) }))
                .where("id", "=", id)
                .execute();
          });
        } catch (err) {
          for (const [id, n] of batch) this.pending.set(id, (this.pending.get(id) ?? 0) + n);
          throw err;
        }
      });
    return this.flushing;
  }

  /** Stops the timer and writes what is counted (shutdown). */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flushViews();
  }
}
