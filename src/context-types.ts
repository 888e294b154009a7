// The context's shape: AppContext, its Readiness, and the ContextOverrides of tests, servers and the CLI (src/context.ts builds it).
import type { AppAssociations } from "./deeplinks/app-associations.js";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { ChangeFeed, Storage } from "./storage/db.js";
import type { ClickWriter } from "./clicks/click-writer.js";
import type { RateEvents } from "./storage/rate-events.js";
import type { Clock } from "./shared/clock.js";
import type { EventPublisher } from "./shared/events.js";
import type { Tracing } from "./ops/tracing-hooks.js";
import type { Mailer } from "./mail/mailer.js";
import type { MailQueue } from "./mail/mail-queue.js";
import type { AccountService } from "./accounts/accounts.js";
import type { SessionService } from "./accounts/sessions.js";
import type { ApiKeyService } from "./accounts/api-keys.js";
import type { TeamService } from "./teams/teams.js";
import type { ClickRecorder } from "./clicks/recorder.js";
import type { StatsService } from "./clicks/stats.js";
import type { CountryResolver } from "./clicks/describe.js";
import type { DomainService } from "./domains/domains.js";
import type { DnsLookup } from "./domains/dns-check.js";
import type { TagService } from "./tags/tags.js";
import type { FolderService } from "./teams/folders.js";
import type { FolderAccessService } from "./teams/folder-access.js";
import type { UtmTemplateService } from "./utm/templates.js";
import type { ShareService } from "./shares/shares.js";
import type { LinkHealth } from "./health/link-health.js";
import type { BioCache, BioPageService } from "./bio/index.js";
import type { LinkService } from "./links/links.js";
import type { HostBlocklist } from "./links/host-blocklist.js";
import type { StreamService } from "./streams/streams.js";
import type { StreamPublisher } from "./streams/publisher.js";
import type { WebhookService } from "./webhooks/webhooks.js";
import type { ClickDeliveries, QueueLimits } from "./webhooks/click-deliveries.js";
import type { AccountAnalytics } from "./analytics/account-analytics.js";
import type { LiveFeed, LiveLimits } from "./analytics/live-feed.js";
import type { RedirectService } from "./redirect/resolve-link.js";
import type { OrphanVisits } from "./orphans/orphan-visits.js";
import type { AuditLog } from "./admin/audit-log.js";
import type { AccountsAdmin } from "./admin/accounts-admin.js";
import type { LinkModeration } from "./admin/link-moderation.js";
import type { AdminOverview } from "./admin/overview.js";
import type { ReportFormService } from "./admin/reports.js";
import type { ReportQueue } from "./admin/report-queue.js";
import type { ThreatFeeds } from "./admin/threat-feeds.js";
import type { BlocklistService } from "./admin/blocklist-service.js";
import type { PasskeyService } from "./security/passkeys.js";
import type { TwoFactorService } from "./security/two-factor.js";
import type { SignInNotices } from "./security/sign-in-notice.js";
import type { TeamPolicy } from "./security/team-policy.js";
import type { Imports } from "./imports/index.js";
import type { StripeIntegration } from "./conversions/stripe.js";
import type { SplitWinner } from "./conversions/split-winner.js";
import type { Sso } from "./sso/index.js";
import type { Auth } from "./auth/index.js";

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
  /** Visits of links that track conversions, written in batches (docs/conversions.md). */
  teams: TeamService;
  webhooks: WebhookService;
  /** Accounts' click streams (/api/streams) and this instance's publisher (docs/stream.md). */
  streams: StreamService;
  streamPublisher: StreamPublisher;
  tags: TagService;
  /** An account's folders of links (docs/folders.md). */
  folders: FolderService;
  /** Members' access to single folders (docs/folders.md, Access). */
  folderAccess: FolderAccessService;
  utm: UtmTemplateService;
  /** Statistics published at unguessable addresses (docs/sharing.md). */
  shares: ShareService;
  /** Destination checks, their state and history, the owners' digests (docs/health.md). */
  linkHealth: LinkHealth;
  /** Link-in-bio pages (docs/bio-pages.md): the owners' routes, and the visitors' cache with its view counter. */
  bioPages: BioPageService;
  bioCache: BioCache;
  clickDeliveries: ClickDeliveries;
  domains: DomainService;
  /** The destination blocklist as links and redirects ask it. */
  blocklist: HostBlocklist;
  /** The blocklist's sources: console entries (database) and BLOCKLIST_FILE. */
  blocklistAdmin: BlocklistService;
  /** THREAT_FEEDS (URLhaus, PhishTank): their entries in the blocklist, their matches in the report queue. */
  threatFeeds: ThreatFeeds;
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
  /** The Stripe webhook endpoint per account (docs/conversions.md, Stripe). */
  stripe: StripeIntegration;
  /** Splits that pick their winner: their figures and the periodic decision (docs/conversions.md). */
  splits: SplitWinner;
  /** The apps each host opens and its two association files (deeplinks/app-associations.ts). */
  appAssociations: AppAssociations;
  /** The bus on which the tracking API announces new leads and sales (lead.created, sale.created). */
  events: EventPublisher;
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
