// The composition root: each feature folder's factory (its index.ts) called once, in dependency order, and
// handed what it needs; shared by the HTTP server, the CLI and tests. Folders that must not import each
// other hear each other through the event bus (src/shared/events.ts; eslint.config.js, FEATURE_EVENTS).
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { openStorage, type ChangeFeed, type Storage } from "./storage/db.js";
import type { ClickWriter } from "./clicks/click-writer.js";
import { migrateToLatest } from "./storage/migrate.js";
import { RateEvents } from "./storage/rate-events.js";
import { OwnerCaps } from "./storage/owner-caps.js";
import { type Clock, systemClock } from "./shared/clock.js";
import { EventBus } from "./shared/events.js";
import { SealedBox } from "./shared/secret-box.js";
import { createLogger } from "./ops/logging.js";
import type { Tracing } from "./ops/tracing-hooks.js";
import { createMail } from "./mail/index.js";
import type { Mailer } from "./mail/mailer.js";
import type { MailQueue } from "./mail/mail-queue.js";
import { createAccounts } from "./accounts/index.js";
import type { AccountService } from "./accounts/accounts.js";
import type { SessionService } from "./accounts/sessions.js";
import type { ApiKeyService } from "./accounts/api-keys.js";
import { createTeams } from "./teams/index.js";
import type { TeamService } from "./teams/teams.js";
import { createClicks } from "./clicks/index.js";
import type { ClickRecorder } from "./clicks/recorder.js";
import type { StatsService } from "./clicks/stats.js";
import { createDomains } from "./domains/index.js";
import type { DomainService } from "./domains/domains.js";
import type { DnsLookup } from "./domains/dns-check.js";
import { TagService } from "./tags/tags.js";
import { UtmTemplateService } from "./utm/templates.js";
import { createLinks } from "./links/index.js";
import type { LinkService } from "./links/links.js";
import type { HostBlocklist } from "./links/host-blocklist.js";
import { createWebhooks } from "./webhooks/index.js";
import { createStreams } from "./streams/index.js";
import type { StreamService } from "./streams/streams.js";
import type { StreamPublisher } from "./streams/publisher.js";
import type { WebhookService } from "./webhooks/webhooks.js";
import type { ClickDeliveries, QueueLimits } from "./webhooks/click-deliveries.js";
import { createAnalytics } from "./analytics/index.js";
import type { AccountAnalytics } from "./analytics/account-analytics.js";
import type { LiveFeed, LiveLimits } from "./analytics/live-feed.js";
import { createRedirects } from "./redirect/index.js";
import type { RedirectService } from "./redirect/resolve-link.js";
import { OrphanVisits } from "./orphans/orphan-visits.js";
import { createAdmin } from "./admin/index.js";
import type { AuditLog } from "./admin/audit-log.js";
import { createSecurity } from "./security/index.js";
import type { PasskeyService } from "./security/passkeys.js";
import type { AccountsAdmin } from "./admin/accounts-admin.js";
import type { LinkModeration } from "./admin/link-moderation.js";
import type { AdminOverview } from "./admin/overview.js";
import type { ReportFormService } from "./admin/reports.js";
import type { ReportQueue } from "./admin/report-queue.js";
import type { BlocklistService } from "./admin/blocklist-service.js";
import { type Imports, createImports } from "./imports/index.js";
import { type Sso, createSso } from "./sso/index.js";
import { type Auth, createAuth } from "./auth/index.js";
import { nodeDnsLookup } from "./domains/dns-check.js";
import type { TwoFactorService } from "./security/two-factor.js";
import type { SignInNotices } from "./security/sign-in-notice.js";
import type { TeamPolicy } from "./security/team-policy.js";
import type { CountryResolver } from "./clicks/describe.js";
import { STORED, clickedListeners } from "./click-listeners.js";

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
  /** Two-factor sign-in: TOTP, recovery codes, pending sign-ins (docs/security.md). */
  twoFactor: TwoFactorService;
  /** The email about a sign-in from a browser new to the account. */
  signInNotices: SignInNotices;
  /** The Enterprise owner's "members need two-factor sign-in". */
  teamPolicy: TeamPolicy;
  /** Countries from the trusted header or GEOIP_DB, for clicks and for the session list. */
  countries: CountryResolver;
  clicks: ClickRecorder;
  stats: StatsService;
  analytics: AccountAnalytics;
  links: LinkService;
  redirects: RedirectService;
  /** Requests that matched no link, counted in memory and flushed to orphan_visits (docs/orphan-visits.md). */
  orphans: OrphanVisits;
  teams: TeamService;
  webhooks: WebhookService;
  /** Accounts' click streams (/api/streams) and this instance's publisher (docs/stream.md). */
  streams: StreamService;
  streamPublisher: StreamPublisher;
  tags: TagService;
  utm: UtmTemplateService;
  clickDeliveries: ClickDeliveries;
  domains: DomainService;
  /** The destination blocklist as links and redirects ask it. */
  blocklist: HostBlocklist;
  /** The blocklist's sources: console entries (database) and BLOCKLIST_FILE. */
  blocklistAdmin: BlocklistService;
  /** Operator actions, and each account's changes of its passkeys. */
  audit: AuditLog;
  /** Passkeys (WebAuthn): registration, passwordless sign-in, the assertion check a second factor reuses. */
  passkeys: PasskeyService;
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
  /** Single sign-on (docs/sso.md): Enterprise connections, the sign-in flow, the password policy. */
  sso: Sso;
  /** The one door (docs/security.md): every way to a session, sudo mode, security activity and alerts. */
  auth: Auth;
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
  /**
   * WORKERS=N (src/cluster/): on SQLite a worker's change feed and click writer are the primary's,
   * reached over IPC (one writer; edits heard by every worker). PostgreSQL needs neither.
   */
  cluster?: { feed: ChangeFeed; clickWriter: ClickWriter };
}

/** Housekeeping: expired sessions, old throttle events, raw clicks past retention; a failure is logged. */
function everyHour(log: Logger, tasks: () => Promise<unknown>[]): NodeJS.Timeout {
  const timer = setInterval(() => {
    void Promise.all(tasks()).catch((err: unknown) => log.warn({ err }, "housekeeping failed"));
  }, 3_600_000);
  timer.unref();
  return timer;
}

export async function createContext(config: Readonly<Config>, overrides: ContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config);
  const clock = overrides.clock ?? systemClock;
  const tracing = overrides.tracing ?? null;
  // Without migrations (`snip migrate` runs them itself) the tables may not exist yet: nothing is loaded or replayed.
  const migrated = overrides.migrate !== false;
  const storage = await openStorage(config.database, log, tracing?.sqliteQueries);
  if (migrated) await migrateToLatest(storage);
  if (overrides.cluster) storage.feed = overrides.cluster.feed;
  const events = new EventBus(log);
  const { db } = storage;
  const rate = new RateEvents(db, storage.dialect);
  const caps = new OwnerCaps(db, storage.dialect);
  // What most folders take; each factory's deps name the settings it reads (`settings: Pick<Config, ...>`).
  const base = { settings: config, storage, clock, log };

  const traceSmtp = tracing ? (smtp: Mailer, url: string) => tracing.smtp(smtp, url) : undefined;
  const { transport, mailer } = createMail({ ...base, db, events, transport: overrides.mailer, traceSmtp });
  const { accounts, sessions, apiKeys } = createAccounts({ ...base, caps, rate, mailer, events });
  const teams = createTeams({ db, caps, clock, mailer, log, rate, origin: config.origin, events });
  const { clicks, reads, stats, countries } = await createClicks({ ...base, journal: overrides.clickJournal === true, recover: migrated, writer: overrides.cluster?.clickWriter, stored: STORED });
  const { domains, customHosts, changes: domainChanges } = await createDomains({ ...base, caps, mailer, dns: overrides.dns, start: migrated });
  const tags = new TagService({ db, caps, clock });
  const utm = new UtmTemplateService({ db, caps, clock });
  const { links, blocklist } = createLinks({ ...base, caps, rate, clicks, reads, domains });
  const webhookKnobs = overrides.webhooks;
  const webhooksRoom = await createWebhooks({ ...base, caps, rate, countries, events, ca: webhookKnobs?.ca, limits: webhookKnobs?.limits, observe: tracing?.webhookDelivery, start: migrated });
  const { webhooks, clickDeliveries, receiverCheck } = webhooksRoom;
  const streamsRoom = await createStreams({ ...base, caps, check: receiverCheck, start: migrated });
  const { analytics, live } = createAnalytics({ ...base, countries, stats, live: overrides.live });
  const redirects = createRedirects({ settings: config, links, clicks, clock, rate, customHosts, domainChanges, blocklist, countries, clicked: clickedListeners({ clickDeliveries, live, log }) });
  const d = config.details;
  const orphans = new OrphanVisits(db, clock, { enabled: d.orphanVisits, pathsPerDay: d.orphanPathsPerDay, keepDays: d.orphanVisitsDays }, (err) => log.warn({ err }, "orphan visits flush failed"));
  const backlogs = { clickBacklog: () => clicks.backlog(), webhookQueue: () => clickDeliveries.queueState() };
  const admin = await createAdmin({ ...base, rate, links, domains, blocklist, events, ...backlogs, start: migrated });
  const security = createSecurity({
    settings: config, db, clock, rate, mailer, audit: admin.audit,
    checkPassword: (user, password, ip, field) => accounts.checkCurrentPassword(user, password, ip, field),
  });
  const imports = createImports({
    db, now: () => clock.now(), box: new SealedBox(config.sessionSecret, "import tokens v1"), links, clicks, log, check: receiverCheck,
    origin: config.origin, mainHost: config.baseUrl.hostname, allowPrivate: config.importAllowPrivate, retryDelaysMs: overrides.importRetryDelaysMs,
    dialect: storage.dialect,
  });
  const sso = createSso({
    settings: config, db, dialect: storage.dialect, clock, caps, rate, dns: overrides.dns ?? nodeDnsLookup(config.dnsServers), check: receiverCheck, audit: admin.audit, accounts, log, mailer,
  });

  const auth = createAuth({ settings: config, db, clock, mailer, accounts: { accounts, sessions, apiKeys }, security, sso });

  const housekeeping = everyHour(log, () => [
    sessions.pruneExpired(), auth.activity.prune(), security.twoFactor.prunePending(), security.passkeys.challenges.pruneExpired(), rate.prune(clock.now() - 86_400_000), clicks.pruneRaw(),
  ]);

  let closed: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      clearInterval(housekeeping);
      live.close();
      await imports.close();
      admin.blocklistAdmin.stop();
      customHosts.stop();
      await webhooksRoom.close();
      await streamsRoom.close();
      await domains.stop();
      await sso.domains.stop();
      await orphans.close();
      await clicks.close();
      await mailer.stop();
      transport.close();
      await storage.close();
    })());
  const readiness: Readiness = { state: "starting" };
  return {
    ...admin, ...security, countries, config, readiness, storage, clock, log, mailer, rate, tracing, close, sessions, accounts, apiKeys, teams, tags, utm,
    clicks, stats, analytics, live, links, blocklist, redirects, orphans, webhooks, clickDeliveries, domains, imports, sso, auth,
    streams: streamsRoom.streams, streamPublisher: streamsRoom.publisher,
  };
}
