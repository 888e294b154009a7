// The bio pages room (docs/bio-pages.md): the account's pages, the visitors' cache and its change feed.
import type { Clock } from "../shared/clock.js";
import type { ChangeFeed, Db } from "../storage/db.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import type { LinkChanges } from "../links/changes.js";
import type { LinkService } from "../links/links.js";
import type { DomainChanges } from "../domains/domain-changes.js";
import { BioChanges } from "./bio-changes.js";
import { BioCache } from "./bio-cache.js";
import { BioPageService } from "./bio-pages.js";

export { BioCache, type ServedItem, type ServedPage, VIEWS_FLUSH_MS } from "./bio-cache.js";
export { BioPageService } from "./bio-pages.js";

export interface BioRoomDeps {
  db: Db;
  caps: OwnerCaps;
  clock: Clock;
  origin: string;
  feed: ChangeFeed;
  /** The links' changes (a button's link changed) and current click counts. */
  links: Pick<LinkService, "withCurrentCounts"> & { changes: Pick<LinkChanges, "listen" | "onMissed"> };
  domainChanges?: Pick<DomainChanges, "listen">;
  /** LINK_CACHE_SIZE: pages kept in memory per instance are bounded by it (at most 10,000, at least 100). */
  cacheSize: number;
}

export function createBio(deps: BioRoomDeps): { bioPages: BioPageService; bioCache: BioCache } {
  const changes = new BioChanges(deps.feed);
  const bioCache = new BioCache({
    db: deps.db,
    origin: deps.origin,
    size: Math.min(10_000, Math.max(100, deps.cacheSize)),
    changes,
    linkChanges: deps.links.changes,
    domainChanges: deps.domainChanges,
  });
  const bioPages = new BioPageService({ db: deps.db, caps: deps.caps, clock: deps.clock, origin: deps.origin, changes, cache: bioCache, links: deps.links });
  return { bioPages, bioCache };
}
