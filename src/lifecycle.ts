// The context's lifecycle parts: each started in order, run, and stopped in reverse (which parts, and in what order: lifecycleParts), and the
// hourly housekeeping part.
import type { Logger } from "pino";
import type { AppContext } from "./context-types.js";
import type { Storage } from "./storage/db.js";
import type { Mailer } from "./mail/mailer.js";
import type { MailQueue } from "./mail/mail-queue.js";
import type { ClickRecorder } from "./clicks/recorder.js";
import type { OrphanVisits } from "./orphans/orphan-visits.js";
import type { BioCache } from "./bio/index.js";
import type { Sso } from "./sso/index.js";
import type { DomainService } from "./domains/domains.js";
import type { Streams } from "./streams/index.js";
import type { Webhooks } from "./webhooks/index.js";
import type { CustomHosts } from "./domains/custom-hosts.js";
import type { BlocklistService } from "./admin/blocklist-service.js";
import type { ThreatFeeds } from "./admin/threat-feeds.js";
import type { Imports } from "./imports/index.js";
import type { SplitWinner } from "./conversions/split-winner.js";
import type { AppAssociations } from "./deeplinks/app-associations.js";
import type { LiveFeed } from "./analytics/live-feed.js";
import type { LinkHealth } from "./health/link-health.js";

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

/** Housekeeping: expired sessions, old throttle events, raw clicks past retention, expired pending matches of deep links, every hour once started; a failure is logged. */
export function everyHour(log: Logger, tasks: () => Promise<unknown>[]): LifecyclePart {
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

/** A part of the context with background work: `start` before the server listens, `run` once it does; `stop` at close. */
export interface LifecycleRooms {
  storage: Storage;
  transport: Mailer;
  mailer: MailQueue;
  clicks: ClickRecorder;
  orphans: OrphanVisits;
  bioCache: BioCache;
  sso: Sso;
  domains: DomainService;
  streams: Streams;
  webhooks: Webhooks;
  customHosts: CustomHosts;
  blocklist: BlocklistService;
  threatFeeds: ThreatFeeds;
  imports: Imports;
  splits: SplitWinner;
  apps: AppAssociations;
  live: LiveFeed;
  health: LinkHealth;
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
export function lifecycleParts(r: LifecycleRooms): LifecyclePart[] {
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
    { name: "bio page views", stop: () => r.bioCache.stop() },
    { name: "SSO domain re-checks", run: () => sso.domains.start(), stop: () => sso.domains.stop() },
    { name: "domain re-checks", run: () => r.domains.start(), stop: () => r.domains.stop() },
    { name: "stream publisher", start: () => r.streams.start(), stop: () => r.streams.close() },
    { name: "webhooks", start: () => r.webhooks.start(), stop: () => r.webhooks.close() },
    { name: "custom hosts", start: () => r.customHosts.start(), stop: () => r.customHosts.stop() },
    { name: "app associations", start: () => r.apps.start(), stop: () => r.apps.stop() },
    { name: "blocklist", start: () => r.blocklist.start(), stop: () => r.blocklist.stop() },
    { name: "threat feeds", start: () => r.threatFeeds.start(), stop: () => r.threatFeeds.stop() },
    { name: "imports", run: () => r.imports.runner.start(), stop: () => r.imports.close() },
    { name: "split decisions", run: () => r.splits.start(), stop: () => r.splits.stop() },
    { name: "live feed", start: () => r.live.start(), stop: () => r.live.close() },
    { name: "link health", run: () => r.health.start(), stop: () => r.health.stop() },
    r.housekeeping,
  ];
}
