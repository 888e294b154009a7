// The composition root: each feature folder's factory (its index.ts) called once, in dependency order, and
// handed what it needs; shared by the HTTP server, the CLI and tests. Folders that must not import each
// other hear each other through the event bus (src/shared/events.ts; eslint.config.js, FEATURE_EVENTS).
// Building a context opens the database and migrates it, and nothing else: no timer, no load, no
// background loop. The parts with background work form one list (`lifecycle` below): start() loads
// what the first request needs and starts their timers, run() starts the work servers begin once they
// listen, close() stops them in the reverse of the list.
import type { Config } from "./config.js";
import { openStorage } from "./storage/db.js";
import { migrateToLatest } from "./storage/migrate.js";
import { RateEvents } from "./storage/rate-events.js";
import { OwnerCaps } from "./storage/owner-caps.js";
import { systemClock } from "./shared/clock.js";
import { EventBus } from "./shared/events.js";
import { SealedBox } from "./shared/secret-box.js";
import { createLogger } from "./ops/logging.js";
import { createMail } from "./mail/index.js";
import type { Mailer } from "./mail/mailer.js";
import { createAccounts } from "./accounts/index.js";
import { createTeams } from "./teams/index.js";
import { FolderAccessService } from "./teams/folder-access.js";
import { createClicks } from "./clicks/index.js";
import { createDomains } from "./domains/index.js";
import { TagService } from "./tags/tags.js";
import { UtmTemplateService } from "./utm/templates.js";
import { ShareService } from "./shares/shares.js";
import { createBio } from "./bio/index.js";
import { createLinks } from "./links/index.js";
import { createWebhooks } from "./webhooks/index.js";
import { createStreams } from "./streams/index.js";
import { createAnalytics } from "./analytics/index.js";
import { createHealth } from "./health/index.js";
import { AppAssociations } from "./deeplinks/app-associations.js";
import { purgeExpiredMatches } from "./deeplinks/pending-matches.js";
import { everyHour, lifecycleOf, lifecycleParts } from "./lifecycle.js";
import { createRedirects } from "./redirect/index.js";
import { OrphanVisits } from "./orphans/orphan-visits.js";
import { createAdmin } from "./admin/index.js";
import { AuditLog } from "./admin/audit-log.js";
import { createSecurity } from "./security/index.js";
import { createImports } from "./imports/index.js";
import { createSso } from "./sso/index.js";
import { createAuth } from "./auth/index.js";
import { StripeIntegration } from "./conversions/stripe.js";
import { SplitWinner } from "./conversions/split-winner.js";
import { nodeDnsLookup } from "./domains/dns-check.js";
import { STORED, clickedListeners } from "./click-listeners.js";
import type { AppContext, ContextOverrides, Readiness } from "./context-types.js";

export type { AppContext, ContextOverrides, Readiness };

/** What every folder stands on: the log, the database (migrated unless told not to), the event bus, throttles and caps. */
async function openGround(config: Readonly<Config>, overrides: ContextOverrides) {
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
  return { log, clock, tracing, migrated, storage, events, db, rate, caps, base };
}

type Ground = Awaited<ReturnType<typeof openGround>>;

/** Mail, accounts, teams, clicks, domains, tags, UTM templates and links: the rooms the others are built on. */
async function createCoreRooms(config: Readonly<Config>, overrides: ContextOverrides, ground: Ground) {
  const { base, db, events, caps, rate, clock, log, tracing } = ground;
  const traceSmtp = tracing ? (smtp: Mailer, url: string) => tracing.smtp(smtp, url) : undefined;
  const { transport, mailer } = createMail({ ...base, db, events, transport: overrides.mailer, traceSmtp });
  const { accounts, sessions, apiKeys } = createAccounts({ ...base, caps, rate, mailer, events });
  const teams = createTeams({ db, caps, clock, mailer, log, rate, origin: config.origin, events, audit: new AuditLog(db) });
  const { clicks, reads, stats, countries } = await createClicks({
    ...base,
    journal: overrides.clickJournal === true,
    writer: overrides.cluster?.clickWriter,
    stored: STORED,
  });
  const { domains, customHosts, changes: domainChanges } = createDomains({ ...base, caps, mailer, dns: overrides.dns });
  const tags = new TagService({ db, caps, clock });
  const utm = new UtmTemplateService({ db, caps, clock });
  const linkRooms = createLinks({ ...base, caps, rate, clicks, reads, domains });
  // Members' access to single folders (teams/folder-access.ts): audited as role changes are.
  const folderAccess = new FolderAccessService({ db, caps, now: () => clock.now(), audit: new AuditLog(db) });
  return {
    transport,
    mailer,
    accounts,
    sessions,
    apiKeys,
    teams,
    folderAccess,
    clicks,
    stats,
    countries,
    domains,
    customHosts,
    domainChanges,
    tags,
    utm,
    ...linkRooms,
  };
}

type CoreRooms = Awaited<ReturnType<typeof createCoreRooms>>;

/** What follows the clicks: webhooks and click streams, analytics and the live feed, the redirects, orphan visits. */
function createClickRooms(config: Readonly<Config>, overrides: ContextOverrides, ground: Ground, core: CoreRooms) {
  const { base, db, caps, rate, clock, log, events, tracing } = ground;
  const { links, clicks, stats, countries, customHosts, domainChanges, blocklist } = core;
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
  const { clickDeliveries, receiverCheck } = webhooksRoom;
  const streamsRoom = createStreams({ ...base, caps, check: receiverCheck, events });
  const { analytics, live } = createAnalytics({ ...base, countries, stats, live: overrides.live, events });
  const box = new SealedBox(config.sessionSecret, "share tokens v1");
  const shares = new ShareService({ db, caps, clock, rate, origin: config.origin, box, secret: config.sessionSecret, analytics });
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
  const health = createHealth({ ...base, events, mailer: core.mailer, changes: links.changes, check: receiverCheck, ca: webhookKnobs?.ca });
  // Bio pages (docs/bio-pages.md): their cache hears link and domain changes as the redirects' does.
  const bio = createBio({ db, caps, clock, origin: config.origin, feed: ground.storage.feed, links, domainChanges, cacheSize: config.linkCacheSize });
  return { webhooksRoom, streamsRoom, analytics, live, shares, redirects, orphans, health, ...bio };
}

type ClickRooms = ReturnType<typeof createClickRooms>;

/** The operator console, two-factor sign-in and passkeys, imports, single sign-on, and the one door in front of them. */
function createDoorRooms(config: Readonly<Config>, overrides: ContextOverrides, ground: Ground, core: CoreRooms, clicked: ClickRooms) {
  const { base, db, storage, caps, rate, clock, log, events } = ground;
  const { links, clicks, domains, blocklist, mailer, accounts, sessions, apiKeys } = core;
  const { clickDeliveries, receiverCheck } = clicked.webhooksRoom;
  const backlogs = {
    clickBacklog: () => clicks.backlog(),
    webhookQueue: () => clickDeliveries.queueState(),
    linkChecks: () => clicked.health.overview(),
  };
  const admin = createAdmin({ ...base, rate, links, domains, blocklist, events, receiverCheck, ...backlogs });
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
  const splits = new SplitWinner({
    db,
    clock,
    log,
    events,
    audit: (trx, at, entry) => admin.audit.record(trx, SPLIT_ACTOR, at, entry),
    announce: (keys) => links.announceCreated(keys),
  });
  // The apps each host opens (docs/deep-links.md): the operator's changes of the main host's go to the audit log.
  const apps = new AppAssociations({
    db,
    clock,
    log,
    feed: storage.feed,
    domains,
    customHosts: core.customHosts,
    domainChanges: core.domainChanges,
    audit: (trx, operator, at, entry) => admin.audit.record(trx, operator, at, entry),
  });
  return { admin, security, imports, sso, auth, splits, apps };
}

type DoorRooms = ReturnType<typeof createDoorRooms>;

/** Who decides a split at its end, as the audit log names it (no account: a system action). */
const SPLIT_ACTOR = { id: null, email: "split test" };

/** The context's start, run and close over its lifecycle parts, housekeeping last; a context built without migrations cannot start. */
function contextLifecycle(ground: Ground, core: CoreRooms, clicked: ClickRooms, door: DoorRooms): Pick<AppContext, "start" | "run" | "close"> {
  const { log, rate, clock, storage, migrated } = ground;
  const { sessions, clicks } = core;
  const { auth, security } = door;
  const housekeeping = everyHour(log, () => [
    sessions.pruneExpired(),
    auth.activity.prune(),
    security.twoFactor.prunePending(),
    security.passkeys.challenges.pruneExpired(),
    rate.prune(clock.now() - 86_400_000),
    clicks.pruneRaw(),
    purgeExpiredMatches(storage.db, clock.now()),
  ]);
  const lifecycle = lifecycleParts({
    storage,
    transport: core.transport,
    mailer: core.mailer,
    clicks,
    orphans: clicked.orphans,
    bioCache: clicked.bioCache,
    sso: door.sso,
    domains: core.domains,
    streams: clicked.streamsRoom,
    webhooks: clicked.webhooksRoom,
    customHosts: core.customHosts,
    blocklist: door.admin.blocklistAdmin,
    threatFeeds: door.admin.threatFeeds,
    imports: door.imports,
    splits: door.splits,
    apps: door.apps,
    live: clicked.live,
    health: clicked.health,
    housekeeping,
  });
  const parts = lifecycleOf(lifecycle);
  const start = (): Promise<void> =>
    migrated ? parts.start() : Promise.reject(new Error("a context built without migrations cannot start: its tables may not exist"));
  return { start, run: parts.run, close: parts.close };
}

export async function createContext(config: Readonly<Config>, overrides: ContextOverrides = {}): Promise<AppContext> {
  const ground = await openGround(config, overrides);
  const core = await createCoreRooms(config, overrides, ground);
  const clicked = createClickRooms(config, overrides, ground, core);
  const door = createDoorRooms(config, overrides, ground, core, clicked);
  const { start, run, close } = contextLifecycle(ground, core, clicked, door);
  const { storage, clock, log, rate, tracing, events } = ground;
  const readiness: Readiness = { state: "starting" };
  return {
    ...door.admin,
    ...door.security,
    countries: core.countries,
    config,
    readiness,
    storage,
    clock,
    log,
    mailer: core.mailer,
    rate,
    tracing,
    start,
    run,
    close,
    sessions: core.sessions,
    accounts: core.accounts,
    apiKeys: core.apiKeys,
    teams: core.teams,
    tags: core.tags,
    folders: core.folders,
    folderAccess: core.folderAccess,
    utm: core.utm,
    clicks: core.clicks,
    stats: core.stats,
    analytics: clicked.analytics,
    live: clicked.live,
    shares: clicked.shares,
    linkHealth: clicked.health,
    bioPages: clicked.bioPages,
    bioCache: clicked.bioCache,
    links: core.links,
    blocklist: core.blocklist,
    redirects: clicked.redirects,
    orphans: clicked.orphans,
    webhooks: clicked.webhooksRoom.webhooks,
    clickDeliveries: clicked.webhooksRoom.clickDeliveries,
    domains: core.domains,
    imports: door.imports,
    sso: door.sso,
    auth: door.auth,
    streams: clicked.streamsRoom.streams,
    streamPublisher: clicked.streamsRoom.publisher,
    splits: door.splits,
    appAssociations: door.apps,
    events,
    stripe: new StripeIntegration({
      db: storage.db,
      clock,
      log,
      box: new SealedBox(config.sessionSecret, "stripe secrets v1"),
      origin: config.origin,
      events,
      pendingClicks: () => core.clicks.writeBuffered(),
    }),
  };
}
