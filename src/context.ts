// Builds every service once, with explicit dependencies; shared by the HTTP server, the CLI and tests.
import pino, { type Logger } from "pino";
import type { Config } from "./config.js";
import { openStorage, type Storage } from "./storage/db.js";
import { migrateToLatest } from "./storage/migrate.js";
import { RateEvents } from "./storage/rate-events.js";
import { type Clock, systemClock } from "./shared/clock.js";
import { type Mailer, OutboxMailer, SmtpMailer } from "./mail/mailer.js";
import { AccountService } from "./accounts/accounts.js";
import { SessionService } from "./accounts/sessions.js";
import { ApiKeyService } from "./accounts/api-keys.js";
import { join } from "node:path";
import maxmind, { type CountryResponse } from "maxmind";
import { ClickRecorder } from "./clicks/recorder.js";
import { ClickJournal } from "./clicks/click-journal.js";
import { CountryResolver } from "./clicks/describe.js";
import { StatsService } from "./clicks/stats.js";
import { ClickReads } from "./clicks/click-reads.js";
import { LinkChanges } from "./links/changes.js";
import { LinkService } from "./links/links.js";
import { RedirectService } from "./redirect/resolve-link.js";
import { TeamService } from "./teams/teams.js";
import { ReceiverCheck } from "./webhooks/receiver-check.js";
import { SecretBox } from "./webhooks/secrets.js";
import { WebhookDirectory } from "./webhooks/directory.js";
import { WebhookSender } from "./webhooks/send.js";
import { DeliveryLog } from "./webhooks/delivery-log.js";
import { ClickDeliveries, DEFAULT_QUEUE_LIMITS, type QueueLimits } from "./webhooks/click-deliveries.js";
import { WebhookService } from "./webhooks/webhooks.js";
import { DomainChanges } from "./domains/domain-changes.js";
import { DomainService } from "./domains/domains.js";
import { type DnsLookup, nodeDnsLookup } from "./domains/dns-check.js";
import { HostBlocklist } from "./admin/blocklist.js";
import { AuditLog } from "./admin/audit-log.js";
import { AccountsAdmin } from "./admin/accounts-admin.js";
import { LinkModeration } from "./admin/link-moderation.js";
import { AdminOverview } from "./admin/overview.js";
import { ReportService } from "./admin/reports.js";
import { BlocklistService } from "./admin/blocklist-service.js";

export interface AppContext {
  config: Readonly<Config>;
  storage: Storage;
  clock: Clock;
  log: Logger;
  mailer: Mailer;
  rate: RateEvents;
  sessions: SessionService;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  clicks: ClickRecorder;
  stats: StatsService;
  links: LinkService;
  redirects: RedirectService;
  teams: TeamService;
  webhooks: WebhookService;
  clickDeliveries: ClickDeliveries;
  domains: DomainService;
  /** The destination blocklist as links and redirects ask it (issue 20). */
  blocklist: HostBlocklist;
  /** The blocklist's sources: console entries (database) and BLOCKLIST_FILE (issue 20). */
  blocklistAdmin: BlocklistService;
  /** Operator actions (issue 20). */
  audit: AuditLog;
  /** The operator console's accounts, links and overview (issue 20). */
  accountsAdmin: AccountsAdmin;
  linkModeration: LinkModeration;
  adminOverview: AdminOverview;
  /** Abuse reports: the public form and the operators' queue (issue 20). */
  reports: ReportService;
  /** Flushes buffers and closes connections; safe to call twice. */
  close(): Promise<void>;
}

export interface ContextOverrides {
  clock?: Clock;
  mailer?: Mailer;
  log?: Logger;
  /** A resolver per DNS check instead of node:dns with DNS_SERVERS. */
  dns?: () => DnsLookup;
  /** Skip migrations (the CLI's `migrate` command runs them itself). */
  migrate?: boolean;
  /**
   * Webhook delivery knobs for tests: certificate authorities replacing Node's store (an in-process
   * server cannot take NODE_EXTRA_CA_CERTS, read once at Node's start), and smaller queue bounds.
   */
  webhooks?: { ca?: string[]; limits?: Partial<QueueLimits> };
  /** Journal buffered clicks under DATA_DIR and replay what a killed server left (servers: CLICK_JOURNAL; CLI commands record no clicks). */
  clickJournal?: boolean;
}

export const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "req.headers['x-csrf-token']",
  "res.headers['set-cookie']",
  "*.password",
  "*.new_password",
  "*.current_password",
  "*.secret",
  "*.token",
];

export function createLogger(config: Pick<Config, "logLevel">, destination?: pino.DestinationStream): Logger {
  return pino({ level: config.logLevel, redact: { paths: REDACT_PATHS, censor: "[redacted]" } }, destination);
}

export async function createContext(config: Readonly<Config>, overrides: ContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config);
  const clock = overrides.clock ?? systemClock;
  const storage = await openStorage(config.database);
  if (overrides.migrate !== false) await migrateToLatest(storage);
  const mailer =
    overrides.mailer ??
    (config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : new OutboxMailer(join(config.dataDir, "outbox"), config.mailFrom, log));
  const rate = new RateEvents(storage.db);
  const sessions = new SessionService(storage.db, clock, config.sessionSecret, config.sessionTtlDays * 86_400_000);
  const accounts = new AccountService({ db: storage.db, clock, mailer, rate, origin: config.origin });
  const apiKeys = new ApiKeyService({ storage, clock, rate });

  const geoip = config.geoipDb ? await maxmind.open<CountryResponse>(config.geoipDb) : null;
  const clicks = new ClickRecorder({
    db: storage.db,
    sqlite: storage.sqlite,
    // ":memory:" SQLite cannot be opened twice: its clicks are written on the main thread.
    workerDatabase: config.clickWriter === "worker" && (config.database.kind === "postgres" || storage.sqliteFile) ? config.database : null,
    geoipDb: config.geoipDb,
    clock,
    log,
    countries: new CountryResolver(geoip),
    flushMs: config.clickFlushMs,
    rollupMs: config.clickRollupMs,
    retentionDays: config.clickRetentionDays,
    // An in-memory SQLite database dies with the process: nothing to replay into.
    journal: overrides.clickJournal && (config.database.kind === "postgres" || storage.sqliteFile) ? new ClickJournal(join(config.dataDir, "click-journal"), log) : null,
  });
  if (overrides.migrate !== false) await clicks.recover();

  const domainChanges = new DomainChanges(storage.feed);
  const domains = new DomainService({
    db: storage.db,
    clock,
    log,
    mailer,
    changes: domainChanges,
    dns: overrides.dns ?? nodeDnsLookup(config.dnsServers),
    cnameTarget: config.cnameTarget,
    ownHost: config.baseUrl.hostname,
    origin: config.origin,
    recheckMs: config.domainRecheckMinutes * 60_000,
  });

  const blocklist = new HostBlocklist();
  const audit = new AuditLog(storage.db);
  const blocklistAdmin = new BlocklistService({ db: storage.db, feed: storage.feed, clock, log, audit, blocklist, file: config.blocklistFile });
  // Loaded before the first request; without migrations (`snip migrate`) the table may not exist yet.
  if (overrides.migrate !== false) await blocklistAdmin.start();
  // Every read of clicks adds what the roll-ups hold back, or what is not committed yet (src/clicks/click-reads.ts).
  const reads = new ClickReads({ db: storage.db, heldBack: (nums) => clicks.heldBack(nums), uncommitted: (nums) => clicks.uncommitted(nums) });
  const links = new LinkService({
    db: storage.db,
    sqlite: storage.sqlite,
    clock,
    log,
    changes: new LinkChanges(storage.feed),
    rate,
    baseUrl: config.baseUrl,
    settleClicks: () => clicks.flush(),
    linkDomain: (ownerId, raw) => domains.linkDomain(ownerId, raw),
    holdDomain: (trx, ownerId, hostname) => domains.holdDomain(trx, ownerId, hostname),
    blocklist,
    signedOutPerHour: config.signedOutLinksPerHour,
    clickCounts: (keys) => reads.counts(keys),
  });

  if (config.webhookAllowPrivate) log.warn("WEBHOOK_ALLOW_PRIVATE=true: webhooks may deliver to loopback and private addresses");
  const receiverCheck = new ReceiverCheck({ dnsServers: config.dnsServers, allowPrivate: config.webhookAllowPrivate });
  const box = new SecretBox(config.sessionSecret);
  const directory = new WebhookDirectory({ db: storage.db, feed: storage.feed, box, log });
  if (overrides.migrate !== false) await directory.start();
  const limits = { ...DEFAULT_QUEUE_LIMITS, ...overrides.webhooks?.limits };
  const sender = new WebhookSender({ check: receiverCheck, now: () => clock.now(), ca: overrides.webhooks?.ca, connections: limits.concurrency });
  const deliveryLog = new DeliveryLog({ db: storage.db, log });
  const clickDeliveries = new ClickDeliveries({
    directory,
    sender,
    deliveryLog,
    countries: new CountryResolver(geoip),
    origin: config.origin,
    now: () => clock.now(),
    log,
    limits,
  });
  const webhooks = new WebhookService({ db: storage.db, dialect: storage.dialect, clock, check: receiverCheck, box, directory, sender, deliveryLog, origin: config.origin });

  const redirects = new RedirectService({
    links,
    clicks,
    clock,
    rate,
    cacheSize: config.linkCacheSize,
    ownHost: config.baseUrl.hostname,
    webhooks: clickDeliveries,
    domainChanges,
    blocklist,
    notFoundPerMinute: config.notFoundPerMinute,
  });

  const stats = new StatsService({ db: storage.db, clock, reads });
  // Operator actions announce link changes like the owner's own edits (a failed notice never fails the action).
  const linksChanged = async (keys: Array<{ domain: string; alias: string }>): Promise<void> => {
    // In slices: a bulk disable may name thousands of links, each one notification.
    for (let i = 0; i < keys.length; i += 200) {
      await links.changes.publish(keys.slice(i, i + 200)).catch((err) => log.warn({ err }, "link change notification failed"));
    }
  };
  const accountsAdmin = new AccountsAdmin({
    db: storage.db,
    dialect: storage.dialect,
    clock,
    audit,
    linksChanged,
    domainChanged: (hostname) => domains.announce(hostname),
    webhooksChanged: (ownerId) => webhooks.ownerChanged(ownerId).catch((err) => log.warn({ err }, "webhook directory reload failed")),
  });
  const reports = new ReportService({ db: storage.db, clock, audit, links, rate, ownHost: config.baseUrl.hostname, perHour: config.reportsPerHour, linksChanged });
  const linkModeration = new LinkModeration({ db: storage.db, dialect: storage.dialect, clock, audit, blocklist, links, linksChanged });
  const adminOverview = new AdminOverview({
    db: storage.db,
    clock,
    origin: config.origin,
    blocklist,
    clickBacklog: () => clicks.backlog(),
    webhookQueue: () => clickDeliveries.queueState(),
  });
  const teams = new TeamService({ db: storage.db, clock, mailer, log, rate, origin: config.origin });

  // Housekeeping: expired sessions, old throttle events, raw clicks past retention.
  const housekeeping = setInterval(() => {
    const now = clock.now();
    void Promise.all([sessions.pruneExpired(), rate.prune(now - 86_400_000), clicks.pruneRaw()]).catch((err) =>
      log.warn({ err }, "housekeeping failed"),
    );
  }, 3_600_000);
  housekeeping.unref();

  let closed: Promise<void> | null = null;
  const ctx: AppContext = {
    config,
    storage,
    clock,
    log,
    mailer,
    rate,
    sessions,
    accounts,
    apiKeys,
    clicks,
    stats,
    links,
    redirects,
    teams,
    webhooks,
    clickDeliveries,
    domains,
    blocklist,
    blocklistAdmin,
    audit,
    accountsAdmin,
    linkModeration,
    adminOverview,
    reports,
    close() {
      closed ??= (async () => {
        clearInterval(housekeeping);
        blocklistAdmin.stop();
        directory.stop();
        await clickDeliveries.close();
        await deliveryLog.close().catch((err) => log.warn({ err }, "webhook delivery log not written at shutdown"));
        await sender.close();
        await domains.stop();
        await clicks.close();
        mailer.close();
        await storage.close();
      })();
      return closed;
    },
  };
  return ctx;
}
