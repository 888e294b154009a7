// The operator console as the service builds it: the audit log, the blocklist's sources, accounts, link
// moderation, the overview and abuse reports. An account an operator suspends, re-plans or deletes is
// announced as "account.changed".
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import type { EventPublisher } from "../shared/events.js";
import type { LinkService } from "../links/links.js";
import type { LinkKey } from "../links/changes.js";
import type { HostBlocklist } from "../links/host-blocklist.js";
import type { DomainService } from "../domains/domains.js";
import { AuditLog } from "./audit-log.js";
import { BlocklistService } from "./blocklist-service.js";
import { ThreatFeeds } from "./threat-feeds.js";
import type { ReceiverCheck } from "../webhooks/receiver-check.js";
import { AccountsAdmin } from "./accounts-admin.js";
import { LinkModeration } from "./link-moderation.js";
import { AdminOverview, type OverviewDeps } from "./overview.js";
import { ReportFormService } from "./reports.js";
import { ReportQueue } from "./report-queue.js";

export interface AdminDeps {
  settings: Pick<
    Config,
    "origin" | "baseUrl" | "blocklistFile" | "reportsPerHour" | "threatFeeds" | "threatFeedRefreshS" | "threatFeedAllowPrivate" | "health"
  >;
  storage: Storage;
  clock: Clock;
  log: Logger;
  rate: RateEvents;
  links: LinkService;
  domains: Pick<DomainService, "announce">;
  blocklist: HostBlocklist;
  /** The webhooks' address guard: threat feeds are fetched through it. */
  receiverCheck: ReceiverCheck;
  /** Publishes "account.changed". */
  events: EventPublisher;
  clickBacklog: OverviewDeps["clickBacklog"];
  webhookQueue: OverviewDeps["webhookQueue"];
  linkChecks: OverviewDeps["linkChecks"];
}

export interface Admin {
  audit: AuditLog;
  /** Its start() loads the console's entries and BLOCKLIST_FILE before the first request (src/context.ts). */
  blocklistAdmin: BlocklistService;
  /** THREAT_FEEDS: files read before the first request, addresses in the background (src/context.ts). */
  threatFeeds: ThreatFeeds;
  accountsAdmin: AccountsAdmin;
  linkModeration: LinkModeration;
  adminOverview: AdminOverview;
  reportForm: ReportFormService;
  reports: ReportQueue;
}

export function createAdmin(deps: AdminDeps): Admin {
  const { settings, storage, clock, log, links, blocklist } = deps;
  const { db, dialect } = storage;
  const ownHost = settings.baseUrl.hostname;
  const audit = new AuditLog(db);
  const blocklistAdmin = new BlocklistService({ db, feed: storage.feed, clock, log, audit, blocklist, file: settings.blocklistFile });
  // Operator actions announce link changes like the owner's own edits (a failed notice never fails the action).
  const linksChanged = async (keys: LinkKey[]): Promise<void> => {
    // In slices: a bulk disable may name thousands of links, each one notification.
    for (let i = 0; i < keys.length; i += 200) {
      await links.changes.publish(keys.slice(i, i + 200)).catch((err) => log.warn({ err }, "link change notification failed"));
    }
  };
  const domainChanged = (hostname: string) => deps.domains.announce(hostname);
  return {
    audit,
    blocklistAdmin,
    threatFeeds: new ThreatFeeds({
      db,
      clock,
      log,
      blocklist,
      sources: settings.threatFeeds,
      refreshMs: settings.threatFeedRefreshS * 1000,
      reader: { check: deps.receiverCheck, allowPrivate: settings.threatFeedAllowPrivate },
    }),
    accountsAdmin: new AccountsAdmin({ db, dialect, clock, audit, linksChanged, domainChanged, events: deps.events }),
    linkModeration: new LinkModeration({ db, dialect, clock, audit, blocklist, links, linksChanged, linkChecks: settings.health.enabled }),
    adminOverview: new AdminOverview({
      db,
      clock,
      origin: settings.origin,
      blocklist,
      clickBacklog: deps.clickBacklog,
      webhookQueue: deps.webhookQueue,
      linkChecks: deps.linkChecks,
    }),
    reportForm: new ReportFormService({ db, clock, links, rate: deps.rate, ownHost, perHour: settings.reportsPerHour }),
    reports: new ReportQueue({ db, clock, audit, links, ownHost, linksChanged }),
  };
}
