// Builds every service once, with explicit dependencies; shared by the HTTP server, the CLI and tests.
import pretty from "pino-pretty";
import pino, { type Logger } from "pino";
import type { Config } from "./config.js";
import { openStorage, type Storage } from "./storage/db.js";
import { migrateToLatest } from "./storage/migrate.js";
import { TagService } from "./tags/tags.js";
import { UtmTemplateService } from "./utm/templates.js";
import { RateEvents } from "./storage/rate-events.js";
import { OwnerCaps } from "./storage/owner-caps.js";
import { type Clock, systemClock } from "./shared/clock.js";
import { type Mailer, OutboxMailer, SmtpMailer } from "./mail/mailer.js";
import { MailQueue } from "./mail/mail-queue.js";
import { SealedBox } from "./shared/secret-box.js";
import { AccountService } from "./accounts/accounts.js";
import { SessionService } from "./accounts/sessions.js";
import { ApiKeyService } from "./accounts/api-keys.js";
import { join } from "node:path";
import maxmind, { type CountryResponse } from "maxmind";
import { ClickRecorder } from "./clicks/recorder.js";
import { type Imports, createImports } from "./imports/index.js";
import { ClickJournal } from "./clicks/click-journal.js";
import { CountryResolver } from "./clicks/describe.js";
import { StatsService } from "./clicks/stats.js";
import { AccountAnalytics } from "./analytics/account-analytics.js";
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
import { CustomHosts } from "./domains/custom-hosts.js";
import { DomainService } from "./domains/domains.js";
import { type DnsLookup, nodeDnsLookup } from "./domains/dns-check.js";
import { HostBlocklist } from "./links/host-blocklist.js";
import { AuditLog } from "./admin/audit-log.js";
import { AccountsAdmin } from "./admin/accounts-admin.js";
import { LinkModeration } from "./admin/link-moderation.js";
import { AdminOverview } from "./admin/overview.js";
import { ReportFormService } from "./admin/reports.js";
import { ReportQueue } from "./admin/report-queue.js";
import { BlocklistService } from "./admin/blocklist-service.js";
import type { Tracing } from "./ops/tracing-hooks.js";
import { LiveFeed, type LiveLimits } from "./analytics/live-feed.js";

/** What /readyz answers: "starting" until the server listens with everything loaded, "draining" from the start of shutdown. */
export interface Readiness {
  state: "starting" | "ready" | "draining";
}

export interface AppContext {
  config: Readonly<Config>;
  readiness: Readiness;
  storage: Storage;
  clock: Clock;
  log: Logger;
  /** Every email: through the outbox (mail_outbox), retried while the transport is down. */
  mailer: MailQueue;
  rate: RateEvents;
  sessions: SessionService;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  clicks: ClickRecorder;
  stats: StatsService;
  analytics: AccountAnalytics;
  links: LinkService;
  redirects: RedirectService;
  teams: TeamService;
  webhooks: WebhookService;
  tags: TagService;
  utm: UtmTemplateService;
  clickDeliveries: ClickDeliveries;
  domains: DomainService;
  /** The destination blocklist as links and redirects ask it. */
  blocklist: HostBlocklist;
  /** The blocklist's sources: console entries (database) and BLOCKLIST_FILE. */
  blocklistAdmin: BlocklistService;
  /** Operator actions. */
  audit: AuditLog;
  /** The operator console's accounts, links and overview. */
  accountsAdmin: AccountsAdmin;
  linkModeration: LinkModeration;
  adminOverview: AdminOverview;
  /** Abuse reports: the public form that files them. */
  reportForm: ReportFormService;
  /** Abuse reports: the operators' queue that resolves them. */
  reports: ReportQueue;
  /** The live feed of clicks (GET /api/analytics/live): watched owners, open streams, delivery across instances. */
  live: LiveFeed;
  /** Imports from other shorteners and files: the jobs, and the runner servers start (main.ts). */
  imports: Imports;
  /** OpenTelemetry's hooks when OTEL_EXPORTER_OTLP_ENDPOINT is set (main.ts starts it), else null. */
  tracing: Tracing | null;
  /** Flushes buffers and closes connections; safe to call twice. */
  close(): Promise<void>;
}

export interface ContextOverrides {
  clock?: Clock;
  /** The mail transport (wrapped in the outbox queue like SMTP or the .eml outbox). */
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
  /** Tests: waits before an import page that failed is read again. */
  importRetryDelaysMs?: number[];
  /** Spans for database queries, SMTP sends and webhook deliveries (main.ts, when tracing is configured). */
  tracing?: Tracing | null;
  /** Live feed bounds for tests (streams per user, events a second, heartbeat). */
  live?: Partial<LiveLimits>;
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

/**
 * JSON lines (for log collectors), or for a person at a terminal one readable line per event (pino-pretty
 * on the main thread: only ever used interactively). Redaction happens before either is written.
 */
export function createLogger(config: Pick<Config, "logLevel"> & Partial<Pick<Config, "logFormat">>, destination?: pino.DestinationStream): Logger {
  const options = { level: config.logLevel, redact: { paths: REDACT_PATHS, censor: "[redacted]" } };
  if (config.logFormat !== "pretty") return pino(options, destination);
  const colorize = destination === undefined && process.stdout.isTTY === true;
  return pino(options, pretty({ colorize, destination: destination ?? 1, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname", singleLine: true, sync: true }));
}

// eslint-disable-next-line max-lines-per-function -- the composition root: each service built once, in dependency order, in one readable list
export async function createContext(config: Readonly<Config>, overrides: ContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config);
  const clock = overrides.clock ?? systemClock;
  const tracing = overrides.tracing ?? null;
  const storage = await openStorage(config.database, log, tracing?.sqliteQueries);
  if (overrides.migrate !== false) await migrateToLatest(storage);
  const smtp = (url: string) => new SmtpMailer(url, config.mailFrom);
  const transport =
    overrides.mailer ??
    (config.smtpUrl ? (tracing?.smtp(smtp(config.smtpUrl), config.smtpUrl) ?? smtp(config.smtpUrl)) : new OutboxMailer(join(config.dataDir, "outbox"), config.mailFrom, log));
  const mailer = new MailQueue({ db: storage.db, transport, box: new SealedBox(config.sessionSecret, "queued emails v1"), clock, log });
  const rate = new RateEvents(storage.db, storage.dialect);
  const caps = new OwnerCaps(storage.db, storage.dialect);
  const tags = new TagService({ db: storage.db, caps, clock });
  const utm = new UtmTemplateService({ db: storage.db, caps, clock });
  const sessions = new SessionService(storage.db, clock, config.sessionSecret, config.sessionTtlDays * 86_400_000);
  const accounts = new AccountService({
    db: storage.db,
    dialect: storage.dialect,
    clock,
    mailer,
    rate,
    origin: config.origin,
    // Bound late: the webhook service is built further down; this runs only after a change.
    changed: (userId) => webhooks.ownerChanged(userId).catch((err) => log.warn({ err }, "webhook directory reload failed")),
  });
  const apiKeys = new ApiKeyService({ storage, caps, clock, rate });

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
    memoryMax: config.clickMemoryMax,
    // An in-memory SQLite database dies with the process: nothing to replay into.
    journal: overrides.clickJournal && (config.database.kind === "postgres" || storage.sqliteFile) ? new ClickJournal(join(config.dataDir, "click-journal"), log) : null,
  });
  if (overrides.migrate !== false) await clicks.recover();

  const domainChanges = new DomainChanges(storage.feed);
  const domains = new DomainService({
    db: storage.db,
    caps,
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

  const customHosts = new CustomHosts(storage.db, domainChanges, log);
  // Loaded before the first request; without migrations (`snip migrate`) the table may not exist yet.
  if (overrides.migrate !== false) await customHosts.start();

  const blocklist = new HostBlocklist();
  const audit = new AuditLog(storage.db);
  const blocklistAdmin = new BlocklistService({ db: storage.db, feed: storage.feed, clock, log, audit, blocklist, file: config.blocklistFile });
  // Loaded before the first request; without migrations (`snip migrate`) the table may not exist yet.
  if (overrides.migrate !== false) await blocklistAdmin.start();
  // Every read of clicks adds what the roll-ups hold back, or what is not committed yet (src/clicks/click-reads.ts).
  const reads = new ClickReads({ db: storage.db, heldBack: (nums) => clicks.heldBack(nums), uncommitted: (links) => clicks.uncommitted(links) });
  const links = new LinkService({
    db: storage.db,
    caps,
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
  const sender = new WebhookSender({ check: receiverCheck, now: () => clock.now(), ca: overrides.webhooks?.ca, connections: limits.concurrency, observe: tracing?.webhookDelivery });
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
  const webhooks = new WebhookService({ db: storage.db, caps, rate, clock, check: receiverCheck, box, directory, sender, deliveryLog, origin: config.origin });

  const live = new LiveFeed({
    feed: storage.feed,
    shared: storage.dialect === "postgres",
    countries: new CountryResolver(geoip),
    ownHost: config.baseUrl.host,
    now: () => clock.now(),
    log,
    limits: overrides.live,
  });
  const redirects = new RedirectService({
    links,
    clicks,
    clock,
    rate,
    cacheSize: config.linkCacheSize,
    ownHost: config.baseUrl.hostname,
    customHosts,
    webhooks: clickDeliveries,
    live,
    domainChanges,
    blocklist,
    notFoundPerMinute: config.notFoundPerMinute,
    countries: new CountryResolver(geoip),
    secureCookies: config.baseUrl.protocol === "https:",
  });

  const imports = createImports({
    db: storage.db,
    now: () => clock.now(),
    box: new SealedBox(config.sessionSecret, "import tokens v1"),
    origin: config.origin,
    mainHost: config.baseUrl.hostname,
    links,
    clicks,
    log,
    check: receiverCheck,
    allowPrivate: config.importAllowPrivate,
    retryDelaysMs: overrides.importRetryDelaysMs,
  });

  const stats = new StatsService({ db: storage.db, dialect: storage.dialect, clock, reads });
  const analytics = new AccountAnalytics({ db: storage.db, stats, origin: config.origin, ownHost: config.baseUrl.hostname });
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
  const reportForm = new ReportFormService({ db: storage.db, clock, links, rate, ownHost: config.baseUrl.hostname, perHour: config.reportsPerHour });
  const reports = new ReportQueue({ db: storage.db, clock, audit, links, ownHost: config.baseUrl.hostname, linksChanged });
  const linkModeration = new LinkModeration({ db: storage.db, dialect: storage.dialect, clock, audit, blocklist, links, linksChanged });
  const adminOverview = new AdminOverview({
    db: storage.db,
    clock,
    origin: config.origin,
    blocklist,
    clickBacklog: () => ({ ...clicks.backlog(), dropped: clicks.counts.dropped }),
    webhookQueue: () => clickDeliveries.queueState(),
  });
  const teams = new TeamService({ db: storage.db, caps, clock, mailer, log, rate, origin: config.origin });
  // An invitation email sent by a retry (or after its request stopped waiting) shows as confirmed.
  mailer.onSent("invitation", (key) => teams.invitationMailSent(key.slice("invitation:".length)));

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
    readiness: { state: "starting" },
    tags,
    utm,
    clock,
    log,
    mailer,
    rate,
    sessions,
    accounts,
    apiKeys,
    clicks,
    stats,
    analytics,
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
    reportForm,
    reports,
    live,
    imports,
    tracing,
    close() {
      closed ??= (async () => {
        clearInterval(housekeeping);
        live.close();
        await imports.close();
        blocklistAdmin.stop();
        customHosts.stop();
        directory.stop();
        await clickDeliveries.close();
        await deliveryLog.close().catch((err) => log.warn({ err }, "webhook delivery log not written at shutdown"));
        await sender.close();
        await domains.stop();
        await clicks.close();
        await mailer.stop();
        transport.close();
        await storage.close();
      })();
      return closed;
    },
  };
  return ctx;
}
