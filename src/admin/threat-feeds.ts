// The threat feeds (THREAT_FEEDS, docs/operator.md): each source read at start (files before the first request,
// addresses in the background), files again within seconds of a change, addresses every THREAT_FEED_REFRESH_S;
// every feed's entries merged into the blocklist the link rules and the redirect ask (a failed read keeps the
// feed's last good entries); and, when the entries change, the links already pointing at a listed address
// filed once each in the operators' report queue.
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { openReport } from "./reports.js";
import type { HostBlocklist } from "../links/host-blocklist.js";
import type { FeedTable } from "../links/feed-table.js";
import type { ThreatFeedStatus } from "../contract/admin.js";
import { watchPath } from "./blocklist-file.js";
import { serialized } from "./blocklist-service.js";
import { type FeedReaderOptions, type FeedSource, type ParsedFeed, describeSource, isRemote, readFeed } from "./threat-feed.js";

const FILE_POLL_MS = 1_000;
/** Links read per query while looking for links a feed lists. */
const SCAN_PAGE = 2_000;
/** What a feed's match is filed as in the report queue. */
const FEED_REASON = { urlhaus: "malware", phishtank: "phishing" } as const;

export interface ThreatFeedsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  blocklist: HostBlocklist;
  sources: readonly FeedSource[];
  /** THREAT_FEED_REFRESH_S, in milliseconds: how often an address is fetched again. */
  refreshMs: number;
  reader: FeedReaderOptions;
  /** Tests shorten it. */
  filePollMs?: number;
}

interface Feed {
  source: FeedSource;
  parsed: ParsedFeed | null;
  loadedAt: number | null;
  error: string | null;
  reload: () => Promise<void>;
}

export class ThreatFeeds {
  private readonly feeds: Feed[];
  private readonly stops: Array<() => void> = [];
  private stopped = false;
  /** Files reports for links the feeds list, once at a time (a second call runs again after). */
  readonly fileReports: () => Promise<void>;

  constructor(private readonly deps: ThreatFeedsDeps) {
    this.feeds = deps.sources.map((source) => {
      const feed: Feed = { source, parsed: null, loadedAt: null, error: null, reload: async () => undefined };
      feed.reload = serialized(() => this.load(feed));
      return feed;
    });
    this.fileReports = serialized(() => this.reportListedLinks());
  }

  /** Reads the files (awaited: refused destinations are refused from the first request) and starts the rest. */
  async start(): Promise<void> {
    for (const feed of this.feeds) {
      if (isRemote(feed.source.location)) {
        void feed.reload();
        const timer = setInterval(() => void feed.reload(), this.deps.refreshMs);
        timer.unref();
        this.stops.push(() => clearInterval(timer));
      } else {
        await feed.reload();
        this.stops.push(watchPath(feed.source.location, this.deps.filePollMs ?? FILE_POLL_MS, () => void feed.reload()));
      }
    }
  }

  stop(): void {
    this.stopped = true;
    for (const stop of this.stops.splice(0)) stop();
  }

  status(): ThreatFeedStatus[] {
    return this.feeds.map((f) => ({
      format: f.source.format,
      source: describeSource(f.source.location),
      rows: f.parsed?.rows ?? 0,
      hosts: f.parsed?.hosts.size ?? 0,
      urls: f.parsed?.urls.size ?? 0,
      skipped_rows: f.parsed?.skipped ?? 0,
      loaded_at: f.loadedAt === null ? null : iso(f.loadedAt),
      error: f.error,
    }));
  }

  /** Reads every source again now (the console's "Reload"); answers once each read has ended. */
  async reloadAll(): Promise<ThreatFeedStatus[]> {
    await Promise.all(this.feeds.map((f) => f.reload()));
    await this.fileReports();
    return this.status();
  }

  private async load(feed: Feed): Promise<void> {
    if (this.stopped) return;
    try {
      feed.parsed = await readFeed(feed.source, this.deps.reader);
      feed.loadedAt = this.deps.clock.now();
      feed.error = null;
    } catch (err) {
      feed.error = (err as Error).message;
      this.deps.log.warn({ err, feed: describeSource(feed.source.location) }, "threat feed not read; its last good entries stay");
      return;
    }
    const { hosts, urls } = merged(this.feeds);
    if (this.deps.blocklist.setFeedEntries(hosts, urls)) void this.fileReports().catch((err) => this.deps.log.warn({ err }, "threat feed reports not filed"));
  }

  /**
   * Every link whose destination a feed lists gets one open report from the feeds (a partial unique index keeps
   * it one across instances and reloads; a report the operator dismissed is filed again only by a later match).
   */
  private async reportListedLinks(): Promise<void> {
    const { db, blocklist, clock } = this.deps;
    let after = "";
    for (;;) {
      if (this.stopped) return;
      const page = await db
        .selectFrom("links")
        .select(["id", "domain", "alias", "url", "ios_url", "android_url", "expired_url", "rules", "split"])
        .where("id", ">", after)
        .orderBy("id")
        .limit(SCAN_PAGE)
        .execute();
      for (const link of page) {
        const entry = blocklist.feedMatchOfLink(link);
        if (entry === null) continue;
        const feed = this.feedListing(entry);
        await db
          .insertInto("abuse_reports")
          .values(
            openReport(
              link,
              {
                reason: FEED_REASON[feed],
                details: `Listed by the ${feed === "urlhaus" ? "URLhaus" : "PhishTank"} threat feed: ${entry}`,
                reporter_email: null,
                source: "feed",
              },
              clock.now(),
            ),
          )
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
      if (page.length < SCAN_PAGE) return;
      after = (page[page.length - 1] as { id: string }).id;
    }
  }

  /** Which feed lists an entry (the first that does). */
  private feedListing(entry: string): FeedSource["format"] {
    for (const f of this.feeds) if (f.parsed && (f.parsed.urls.has(entry) || f.parsed.hosts.has(entry))) return f.source.format;
    return "urlhaus";
  }
}

/** Every read feed's tables (each kept once: a million entries are never copied into a merged set). */
function merged(feeds: Feed[]): { hosts: FeedTable[]; urls: FeedTable[] } {
  const read = feeds.flatMap((f) => (f.parsed ? [f.parsed] : []));
  return { hosts: read.map((p) => p.hosts), urls: read.map((p) => p.urls) };
}
