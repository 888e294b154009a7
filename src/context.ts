// The composition root: each feature folder's factory (its index.ts) called once, in dependency order, and
// handed what it needs; shared by the HTTP server, the CLI and tests. Folders that must not import each
// other hear each other through the event bus (src/shared/events.ts; eslint.config.js, FEATURE_EVENTS).
// Building a context opens the database and migrates it, and nothing else: no timer, no load, no
// background loop. The parts with background work form one list (`lifecycle` below): start() loads
// what the first request needs and starts their timers, run() starts the work servers begin once they
// listen, close() stops them in the reverse of the list.
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
import type { CustomHosts } from "./domains/custom-hosts.js";
import { TagService } from "./tags/tags.js";
import { UtmTemplateService } from "./utm/templates.js";
import { createLinks } from "./links/index.js";
import type { LinkService } from "./links/links.js";
import type { HostBlocklist } from "./links/host-blocklist.js";
import { type Webhooks, createWebhooks } from "./webhooks/index.js";
import { type Streams, createStreams } from "./streams/index.js";
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
  /**
   * Loads what the first request needs (webhook subscriptions, custom hosts, the blocklist, the stream
   * publisher's table; the clicks a killed process journaled) and starts the timers that keep it fresh;
   * servers await it before they listen. Once only: a second call returns the first's promise.
   */
  start(): Promise<void>;
  /** After start(), once the server listens: the background work each instance claims (re-checks, mail retries, imports). */
  run(): void;
  /** Stops what start() and run() began in the reverse of their order, flushes buffers and closes connections; safe to call twice. */
  close(): Promise<void>;
}

/** A part of the context with background work: `start` before the server listens, `run` once it does; `stop` at close. */
export interface LifecyclePart {
  name: string;
  start?: () => Promise<void> | void;
  run?: () => void;
  stop: () => Promise<void> | void;
}

/** The lifecycle of a list of parts: started in its order, run in its order, stopped in its reverse (each stop awaited). */
export function lifecycleOf(parts: readonly LifecyclePart[]): Pick<AppContext, "start" | "run" | "close"> {
  let started: Promise<void> | null = null;
  let closed: Promise<void> | null = null;
  return {
    start: () =>
      (started ??= (async () => {
        for (const part of parts) await part.start?.();
      })()),
    run: () => parts.forEach((part) => part.run?.()),
    close: () =>
      (closed ??= (async () => {
        for (const part of [...parts].reverse()) await part.stop();
      })()),
  };
}

export interface ContextOverrides {
  clock?: Clock;
  /** The mail transport (wrapped in the outbox queue like SMTP or the .eml outbox). */
  mailer?: Mailer;
  log?: Logger;
  /** A resolver per DNS check instead of node:dns with DNS_SERVERS. */
  dns?: () => DnsLookup;
  /** Skip migrations: the tables may not exist, so such a context opens the database and cannot start(). */
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

/** Housekeeping: expired sessions, old throttle events, raw clicks past retention, every hour once started; a failure is logged. */
function everyHour(log: Logger, tasks: () => Promise<unknown>[]): LifecyclePart {
  let timer: NodeJS.Timeout | undefined;
  return {
    name: "housekeeping",
    start() {
      timer ??= setInterval(() => {
        void Promise.all(tasks()).catch((err: unknown) => log.warn({ err }, "housekeeping failed"));
      }, 3_600_000);
      timer.unref();
    },
    stop: () => clearInterval(timer),
  };
}

interface LifecycleRooms {
  storage: Storage;
  transport: Mailer;
  mailer: MailQueue;
  clicks: ClickRecorder;
  orphans: OrphanVisits;
  sso: Sso;
  domains: DomainService;
  streams: Streams;
  webhooks: Webhooks;
  customHosts: CustomHosts;
  blocklist: BlocklistService;
  imports: Imports;
  live: LiveFeed;
  housekeeping: LifecyclePart;
}

/**
 * The parts with a lifecycle, in start order; close() walks the list backwards, so each part stops
 * before what it uses: the database closes last, after the click writer has flushed every buffered
 * click; the mail transport closes after the queue that sends through it, which stops after the domain
 * re-checks that email; the stream publisher and webhooks stop after imports, whose runner creates
 * links and records clicks; the live feed closes first, ending its open responses. start() runs
 * forwards: the journaled clicks are replayed before the stream publisher reads its outbox.
 */
function lifecycleParts(r: LifecycleRooms): LifecyclePart[] {
  const { clicks, sso } = r;
  return [
    { name: "storage", stop: () => r.storage.close() },
    { name: "mail transport", stop: () => r.transport.close() },
    { name: "mail queue", run: () => r.mailer.start(), stop: () => r.mailer.stop() },
    {
      name: "clicks",
      start: async () => {
        await clicks.recover();
        clicks.start();
      },
      stop: () => clicks.close(),
    },
    { name: "orphan visits", start: () => r.orphans.start(), stop: () => r.orphans.close() },
    { name: "SSO domain re-checks", run: () => sso.domains.start(), stop: () => sso.domains.stop() },
    { name: "domain re-checks", run: () => r.domains.start(), stop: () => r.domains.stop() },
    { name: "stream publisher", start: () => r.streams.start(), stop: () => r.streams.close() },
    { name: "webhooks", start: () => r.webhooks.start(), stop: () => r.webhooks.close() },
    { name: "custom hosts", start: () => r.customHosts.start(), stop: () => r.customHosts.stop() },
    { name: "blocklist", start: () => r.blocklist.start(), stop: () => r.blocklist.stop() },
    { name: "imports", run: () => r.imports.runner.start(), stop: () => r.imports.close() },
    { name: "live feed", start: () => r.live.start(), stop: () => r.live.close() },
    r.housekeeping,
  ];
}

export async function createContext(config: Readonly<Config>, overrides: ContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config);
  const clock = overrides.clock ?? systemClock;
  const tracing = overrides.tracing ?? null;
  // Without migrations the tables may not exist yet: such a context cannot start (nothing is loaded or replayed).
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
  const { clicks, reads, stats, countries } = await createClicks({
    ...base,
    journal: overrides.clickJournal === true,
    writer: overrides.cluster?.clickWriter,
    stored: STORED,
  });
  const { domains, customHosts, changes: domainChanges } = createDomains({ ...base, caps, mailer, dns: overrides.dns });
  const tags = new TagService({ db, caps, clock });
  const utm = new UtmTemplateService({ db, caps, clock });
  const { links, blocklist } = createLinks({ ...base, caps, rate, clicks, reads, domains });
  const webhookKnobs = overrides.webhooks;
  const webhooksRoom = createWebhooks({
    ...base,
    caps,
    rate,
    countries,
    events,
    ca: webhookKnobs?.ca,
    limits: webhookKnobs?.limits,
    observe: tracing?.webhookDelivery,
  });
  const { webhooks, clickDeliveries, receiverCheck } = webhooksRoom;
  const streamsRoom = createStreams({ ...base, caps, check: receiverCheck });
  const { analytics, live } = createAnalytics({ ...base, countries, stats, live: overrides.live });
  const redirects = createRedirects({
    settings: config,
    links,
    clicks,
    clock,
    rate,
    customHosts,
    domainChanges,
    blocklist,
    countries,
    clicked: clickedListeners({ clickDeliveries, live, log }),
  });
  const d = config.details;
  const orphans = new OrphanVisits(db, clock, { enabled: d.orphanVisits, pathsPerDay: d.orphanPathsPerDay, keepDays: d.orphanVisitsDays }, (err) =>
    log.warn({ err }, "orphan visits flush failed"),
  );
  const backlogs = { clickBacklog: () => clicks.backlog(), webhookQueue: () => clickDeliveries.queueState() };
  const admin = createAdmin({ ...base, rate, links, domains, blocklist, events, ...backlogs });
  const security = createSecurity({
    settings: config,
    db,
    clock,
    rate,
    mailer,
    audit: admin.audit,
    checkPassword: (user, password, ip, field) => accounts.checkCurrentPassword(user, password, ip, field),
  });
  const imports = createImports({
    db,
    now: () => clock.now(),
    box: new SealedBox(config.sessionSecret, "import tokens v1"),
    links,
    clicks,
    log,
    check: receiverCheck,
    origin: config.origin,
    mainHost: config.baseUrl.hostname,
    allowPrivate: config.importAllowPrivate,
    retryDelaysMs: overrides.importRetryDelaysMs,
    dialect: storage.dialect,
  });
  const sso = createSso({
    settings: config,
    db,
    dialect: storage.dialect,
    clock,
    caps,
    rate,
    dns: overrides.dns ?? nodeDnsLookup(config.dnsServers),
    check: receiverCheck,
    audit: admin.audit,
    accounts,
    log,
    mailer,
  });

  const auth = createAuth({ settings: config, db, clock, mailer, accounts: { accounts, sessions, apiKeys }, security, sso });

  const housekeeping = everyHour(log, () => [
    sessions.pruneExpired(),
    auth.activity.prune(),
    security.twoFactor.prunePending(),
    security.passkeys.challenges.pruneExpired(),
    rate.prune(clock.now() - 86_400_000),
    clicks.pruneRaw(),
  ]);

  const lifecycle = lifecycleParts({
    storage,
    transport,
    mailer,
    clicks,
    orphans,
    sso,
    domains,
    streams: streamsRoom,
    webhooks: webhooksRoom,
    customHosts,
    blocklist: admin.blocklistAdmin,
    imports,
    live,
    housekeeping,
  });
  const parts = lifecycleOf(lifecycle);
  const start = (): Promise<void> =>
    migrated ? parts.start() : Promise.reject(new Error("a context built without migrations cannot start: its tables may not exist"));
  const readiness: Readiness = { state: "starting" };
  return {
    ...admin,
    ...security,
    countries,
    config,
    readiness,
    storage,
    clock,
    log,
    mailer,
    rate,
    tracing,
    start,
    run: parts.run,
    close: parts.close,
    sessions,
    accounts,
    apiKeys,
    teams,
    tags,
    utm,
    clicks,
    stats,
    analytics,
    live,
    links,
    blocklist,
    redirects,
    orphans,
    webhooks,
    clickDeliveries,
    domains,
    imports,
    sso,
    auth,
    streams: streamsRoom.streams,
    streamPublisher: streamsRoom.publisher,
  };
}
