// Bounded in-memory cache of links by domain + alias for the redirect path, with brief negative
// entries (404 floods stay cheap); entries are dropped on every link change, on every instance.
import { LRUCache } from "lru-cache";
import type { LinkRow } from "../storage/schema.js";
import type { LinkChanges } from "../links/changes.js";
import type { CachedRow, Loaded } from "../links/links.js";
export type { Loaded };
import { previewOf } from "../links/public-link.js";
import { rulesOf, splitOf } from "../links/link-targeting.js";
import { type Targeting, compileTargeting } from "./targeting.js";
import { type Snapshot, covers } from "../storage/pg-snapshot.js";
import { type RedirectAnswer, RedirectAnswers } from "./answers.js";
import { can } from "../contract/plans.js";
import { type LinkApps, linkAppsOf } from "./app-turn.js";

/** What a redirect needs to decide; click_count is left out on purpose (it changes on every click). */
export type CachedLink = Pick<
  LinkRow,
  | "id"
  | "num"
  | "url"
  | "ios_url"
  | "android_url"
  | "expires_at"
  | "max_clicks"
  | "password_hash"
  | "owner_id"
  | "disabled_status"
  | "expired_url"
  | "folder_id"
> & {
  /** A destination's host is on the blocklist (decided when cached; a blocklist change empties the cache). */
  blocked: boolean;
  /** The card link-preview crawlers get; null when the owner set none (crawlers then get the 302 like everyone). */
  preview: { title: string | null; description: string | null; image: string | null } | null;
  /** Redirect rules and split, compiled; null when the link has neither. */
  targeting: Targeting | null;
  /** Before this moment: "not open yet", no click (null: no start date). */
  starts_at: number | null;
  /** Status, Cache-Control and X-Robots-Tag of its redirects, shared by every link alike (answers.ts). */
  answer: RedirectAnswer;
  /**
   * Its click limit was found used up (a count refused): for good, as click_count never goes down and an
   * edit that raises the limit replaces this entry. Later visits get the limit's answer without a count.
   */
  used_up: boolean;
  /** The query parameter its visitors' click id goes to the destination in (docs/conversions.md); null: not tracked, most links. */
  track: string | null;
  /** Its app destinations and way out of in-app browsers (app-turn.ts); null for most links, which then pay no user-agent check. */
  apps: LinkApps | null;
};

/** A link (null: known missing) and, on PostgreSQL, the snapshot of the statement that read it. */
interface Entry {
  link: CachedLink | null;
  seen: Snapshot | null;
}

/** A change heard while loads were in flight: `key` one entry, `prefix` a custom domain's, neither every entry. */
interface Heard {
  gen: number;
  key?: string;
  prefix?: string;
  after: Snapshot | null;
}
/** Changes remembered for the loads in flight; a load that began before the oldest is not stored. */
const HEARD_MAX = 64;

/** Safety net for a lost notification (dropped LISTEN connection). */
const POSITIVE_TTL_MS = 5 * 60_000;
const NEGATIVE_TTL_MS = 1_000;
/** Hostnames remembered with their key tag (see key()). */
const MAX_TAGS = 10_000;

/** Whether a link's destinations are blocked (the blocklist, asked once per cache fill). */
export type BlockedCheck = (row: CachedRow) => boolean;

function toCached(row: CachedRow, blocked: BlockedCheck, answers: RedirectAnswers): CachedLink {
  return {
    id: row.id,
    num: Number(row.num),
    url: row.url,
    ios_url: row.ios_url,
    android_url: row.android_url,
    expires_at: row.expires_at === null ? null : Number(row.expires_at),
    max_clicks: row.max_clicks === null ? null : Number(row.max_clicks),
    password_hash: row.password_hash,
    owner_id: row.owner_id,
    folder_id: row.folder_id ?? null,
    disabled_status: row.disabled_status === null ? null : Number(row.disabled_status),
    blocked: blocked(row),
    expired_url: row.expired_url,
    preview: previewOf(row),
    targeting: compileTargeting(rulesOf(row.rules), splitOf(row.split), Number(row.num)),
    starts_at: row.starts_at == null ? null : Number(row.starts_at),
    answer: answers.of(row.redirect_status == null ? null : Number(row.redirect_status), Number(row.crawlable) === 1),
    used_up: false,
    track: Number(row.snip_track ?? 0) === 1 && can(row.snip_plan ?? "free", "conversions") ? (row.snip_param ?? "snip_id") : null,
    apps: linkAppsOf(row.app_ios_store_id ?? null, row.app_android_package ?? null, Number(row.snip_outside ?? 0) === 1),
  };
}

export class LinkCache {
  private readonly lru: LRUCache<string, Entry> | null;
  private readonly heard: Heard[] = [];
  private readonly inflight = new Map<string, Promise<CachedLink | null>>();
  /** Bumped on every invalidation, so a lookup that raced with a change does not store stale data. */
  private generation = 0;
  private readonly tags = new Map<string, string>();
  private lastTag = 0;

  constructor(
    size: number,
    private readonly load: (domain: string, alias: string) => Promise<Loaded>,
    changes: LinkChanges,
    private readonly blocked: BlockedCheck = () => false,
    private readonly answers: RedirectAnswers = new RedirectAnswers(302, 3600),
  ) {
    this.lru = size > 0 ? new LRUCache<string, Entry>({ max: size, ttl: POSITIVE_TTL_MS, updateAgeOnGet: false }) : null;
    changes.listen((k, after) => this.invalidate(k.domain, k.alias, after));
    changes.onMissed(() => this.clear());
  }

  async get(domain: string, alias: string): Promise<CachedLink | null> {
    const key = this.key(domain, alias);
    const hit = this.lru?.get(key);
    if (hit !== undefined) {
      this.hits++;
      return hit.link;
    }
    this.misses++;
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const gen = this.generation;
    const p = this.load(domain, alias)
      .then((loaded) => {
        const { row, seen } = loaded !== null && "seen" in loaded ? loaded : { row: loaded, seen: null };
        const link = row ? toCached(row, this.blocked, this.answers) : null;
        if (this.lru && this.untouched(key, gen, seen)) this.lru.set(key, { link, seen }, link ? {} : { ttl: NEGATIVE_TTL_MS });
        return link;
      })
      .finally(() => {
        if (this.inflight.get(key) === p) this.inflight.delete(key);
      });
    this.inflight.set(key, p);
    return p;
  }

  /** The cached entry without loading: the link, null when known missing, undefined when not cached. */
  peek(domain: string, alias: string): CachedLink | null | undefined {
    const hit = this.lru?.get(this.key(domain, alias));
    if (hit === undefined) return undefined;
    // A miss here is counted by the get() that follows it on the router's path.
    this.hits++;
    return hit.link;
  }

  /** Whether no change heard since generation `since` may be missing from a row of `key` read with `seen`. */
  private untouched(key: string, since: number, seen: Snapshot | null): boolean {
    if (since === this.generation) return true;
    const oldest = this.heard[0];
    if (oldest === undefined || oldest.gen > since + 1) return false;
    for (const h of this.heard) {
      if (h.gen <= since) continue;
      const mine = h.key !== undefined ? h.key === key : h.prefix !== undefined ? key.startsWith(h.prefix) : true;
      if (mine && !(seen && h.after && covers(seen, h.after))) return false;
    }
    return true;
  }

  private remember(h: Omit<Heard, "gen">): void {
    this.heard.push({ ...h, gen: ++this.generation });
    if (this.heard.length > HEARD_MAX) this.heard.shift();
  }

  /** Lookups answered from the cache and not, since start (metrics). */
  hits = 0;
  misses = 0;

  /**
   * A link changed. `after` (PostgreSQL, another instance's change): a snapshot taken after it committed;
   * an entry read with a snapshot that covers it holds the change already and stays (the link's first
   * visit may come before its creation's notification).
   */
  invalidate(domain: string, alias: string, after: Snapshot | null = null): void {
    const key = this.key(domain, alias);
    this.remember({ key, after });
    this.inflight.delete(key);
    const entry = this.lru?.peek(key);
    if (entry && !(after && entry.seen && covers(entry.seen, after))) this.lru?.delete(key);
  }

  /** Drops every entry (the blocklist changed): rare, and each link is loaded again when next visited. */
  clear(): void {
    this.remember({ after: null });
    this.inflight.clear();
    this.lru?.clear();
  }

  /** Drops every entry of a custom domain (verified, back to pending, deleted): rare, so a scan is fine. */
  invalidateDomain(domain: string): void {
    const prefix = `${this.domainTag(domain)}/`;
    this.remember({ prefix, after: null });
    for (const key of this.inflight.keys()) if (key.startsWith(prefix)) this.inflight.delete(key);
    if (!this.lru) return;
    for (const key of [...this.lru.keys()]) if (key.startsWith(prefix)) this.lru.delete(key);
  }

  /**
   * The entry's key: "/alias" on the main host, "<tag>/alias" on a custom domain, where the tag is a short
   * number standing for the hostname. A key spelling the hostname out is a long concatenated string that
   * V8 must flatten and hash on every lookup: it made a cached custom-domain hit about 3x the main host's.
   */
  private key(domain: string, alias: string): string {
    return domain === "" ? `/${alias}` : `${this.domainTag(domain)}/${alias}`;
  }

  /** Tags are never reused, so forgetting them all (hosts are the client's to choose) only orphans entries. */
  private domainTag(domain: string): string {
    let tag = this.tags.get(domain);
    if (tag === undefined) {
      if (this.tags.size >= MAX_TAGS) this.tags.clear();
      tag = String(++this.lastTag);
      this.tags.set(domain, tag);
    }
    return tag;
  }

  get size(): number {
    return this.lru?.size ?? 0;
  }
}
