// Links as the service builds them: the service and the destination blocklist it and the redirects ask
// (admin/ fills the blocklist from the console and BLOCKLIST_FILE).
import { FolderService } from "../teams/folders.js";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import type { ClickRecorder } from "../clicks/recorder.js";
import type { ClickReads } from "../clicks/click-reads.js";
import type { DomainService } from "../domains/domains.js";
import { LinkService } from "./links.js";
import { LinkChanges } from "./changes.js";
import { HostBlocklist } from "./host-blocklist.js";

export interface LinksDeps {
  settings: Pick<Config, "baseUrl" | "signedOutLinksPerHour" | "health">;
  storage: Storage;
  caps: OwnerCaps;
  clock: Clock;
  log: Logger;
  rate: RateEvents;
  clicks: Pick<ClickRecorder, "settle">;
  reads: Pick<ClickReads, "counts">;
  domains: Pick<DomainService, "linkDomain" | "holdDomain">;
}

export interface Links {
  links: LinkService;
  blocklist: HostBlocklist;
  /** The account's folders (teams/folders.ts), told of the links a folder's deletion moves. */
  folders: FolderService;
}

export function createLinks(deps: LinksDeps): Links {
  const { settings, storage, clicks, reads, domains } = deps;
  const blocklist = new HostBlocklist();
  const links = new LinkService({
    db: storage.db,
    caps: deps.caps,
    sqlite: storage.sqlite,
    prepared: storage.prepared ?? null,
    clock: deps.clock,
    log: deps.log,
    changes: new LinkChanges(storage.feed),
    rate: deps.rate,
    baseUrl: settings.baseUrl,
    settleClicks: () => clicks.settle(),
    linkDomain: (ownerId, raw) => domains.linkDomain(ownerId, raw),
    holdDomain: (trx, ownerId, hostname) => domains.holdDomain(trx, ownerId, hostname),
    blocklist,
    signedOutPerHour: settings.signedOutLinksPerHour,
    linkChecks: settings.health.enabled,
    clickCounts: (keys) => reads.counts(keys),
  });
  const folders = new FolderService({ db: storage.db, caps: deps.caps, clock: deps.clock, changes: links.changes, log: deps.log });
  return { links, blocklist, folders };
}
