// The live feed's hub: who watches which owner's clicks (streams here, announcements from other
// instances), what the redirect hands over for those owners, and delivery every FLUSH_MS: described
// once, to this instance's streams and, on PostgreSQL, to the other instances (live-wire.ts). While
// nobody watches anyone the redirect pays one boolean check (`active`).
import type { Logger } from "pino";
import type { ChangeFeed } from "../storage/db.js";
import type { LiveClick, LiveConversion } from "../contract/live.js";
import { DomainError } from "../shared/errors.js";
import { type CountryResolver, describeUserAgent, referrerHost } from "../clicks/describe.js";
import { type LiveSink, LiveStream, type LiveStreamLimits } from "./live-stream.js";
import {
  CLICKS_CHANNEL,
  CONVERSIONS_CHANNEL,
  conversionPayload,
  parseConversion,
  type OwnedClick,
  WATCH_CHANNEL,
  askPayload,
  clicksPayloads,
  parseClicks,
  parseWatch,
  watchPayloads,
} from "./live-wire.js";

export interface LiveLimits extends LiveStreamLimits {
  /** Open streams per signed-in user (more: 429). */
  perUser: number;
  /** Open streams on this instance (more: 429). */
  total: number;
  /** How often an open stream checks again that its user may still read the owner's clicks. */
  recheckMs: number;
}

export const DEFAULT_LIVE_LIMITS: LiveLimits = {
  perUser: 5,
  total: 1_000,
  perSecond: 20,
  heartbeatMs: 15_000,
  maxBufferedBytes: 256 * 1024,
  recheckMs: 15_000,
};

/** Clicks are gathered this long, then described and delivered together (well within the second allowed). */
const FLUSH_MS = 200;
/** An instance repeats which owners it watches this often; another forgets them after WATCH_TTL_MS without it. */
const ANNOUNCE_MS = 10_000;
const WATCH_TTL_MS = 3 * ANNOUNCE_MS;

/** A click as the redirect hands it over: raw, described only at delivery, never kept past it. */
export interface RawLiveClick {
  owner: string;
  at: number;
  linkId: string;
  alias: string;
  /** links.domain: a custom domain's hostname, "" for the main host. */
  domain: string;
  userAgent: string;
  referer: string;
  /** Only for GeoIP at delivery; never sent on. */
  ip: string;
  country: string | null;
  qr: boolean;
  destination: string | null;
}

export interface LiveFeedDeps {
  feed: ChangeFeed;
  /** PostgreSQL: other instances may watch and click; SQLite is one process, in memory only. */
  shared: boolean;
  countries: Pick<CountryResolver, "resolve">;
  /** BASE_URL's host (with its port): the domain shown for main-host links. */
  ownHost: string;
  now: () => number;
  log: Logger;
  limits?: Partial<LiveLimits>;
}

/** Per owner: this second's share of clicks taken for delivery, and those left out. */
interface OwnerWindow {
  start: number;
  taken: number;
  skipped: number;
}

/** A stream as its route holds it: started once the backlog is read, closed when the reader leaves. */
export interface LiveHandle {
  start(backlog: LiveClick[]): void;
  close(): void;
}

export class LiveFeed {
  /** True while any owner is watched here or elsewhere: the redirect's only check otherwise. */
  active = false;
  readonly limits: LiveLimits;
  private readonly instance = Math.random().toString(36).slice(2, 12);
  private readonly streams = new Map<string, Set<LiveStream>>();
  private readonly perUser = new Map<string, number>();
  private count = 0;
  /** Owners watched on other instances, until when. */
  private readonly remote = new Map<string, number>();
  private watched = new Set<string>();
  private pending: RawLiveClick[] = [];
  private readonly windows = new Map<string, OwnerWindow>();
  private flushTimer: NodeJS.Timeout | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private lastAnnounce = 0;
  private readonly rechecks = new Map<LiveStream, { at: number; check: () => Promise<boolean> }>();
  private closed = false;

  constructor(private readonly deps: LiveFeedDeps) {
    this.limits = { ...DEFAULT_LIVE_LIMITS, ...deps.limits };
  }

  /** Starts the heartbeat and, across instances, hears and asks who watches what. */
  start(): void {
    if (this.ticker || this.closed) return;
    this.ticker = setInterval(() => this.tick(), Math.min(1_000, this.limits.heartbeatMs));
    this.ticker.unref();
    const { feed } = this.deps;
    if (!this.deps.shared) return;
    feed.subscribe(WATCH_CHANNEL, (p) => this.heardWatch(p));
    feed.subscribe(CLICKS_CHANNEL, (p) => this.heardClicks(p));
    feed.subscribe(CONVERSIONS_CHANNEL, (p) => this.heardConversion(p));
    // A new instance (or one whose listener reconnected) asks who watches what, so that its clicks reach
    // streams elsewhere at once rather than after the next announcement.
    const ask = () => void this.publish(WATCH_CHANNEL, [askPayload(this.instance)]);
    void feed.listened().then(ask);
    feed.onResync(ask);
  }

  /** Whether clicks of this owner are wanted anywhere (after `active`, on the redirect path). */
  watches(owner: string): boolean {
    return this.watched.has(owner);
  }

  /** A click of a watched owner: taken for the next delivery, or counted when the owner's second is full. */
  clicked(c: RawLiveClick): void {
    let w = this.windows.get(c.owner);
    if (w === undefined) {
      w = { start: c.at, taken: 0, skipped: 0 };
      this.windows.set(c.owner, w);
    } else if (c.at - w.start >= 1000) {
      w.start = c.at;
      w.taken = 0;
    }
    if (w.taken >= this.limits.perSecond) {
      w.skipped++;
    } else {
      w.taken++;
      this.pending.push(c);
    }
    if (this.flushTimer === null) {
      this.flushTimer = setTimeout(() => this.flush(), FLUSH_MS);
      this.flushTimer.unref();
    }
  }

  /**
   * A lead or sale of `owner` (the bus's lead.created and sale.created, inside the recording transaction): sent on
   * the next turn to the streams here and, where watched, to the other instances; nothing when nobody watches.
   */
  converted(owner: string, c: Omit<LiveConversion, "domain"> & { domain: string }): void {
    if (this.closed || !this.watched.has(owner)) return;
    const event: LiveConversion = { ...c, domain: c.domain === "" ? this.deps.ownHost : c.domain };
    setImmediate(() => {
      for (const s of this.streams.get(owner) ?? []) s.conversion(event);
      if (this.deps.shared && (this.remote.get(owner) ?? 0) > this.deps.now())
        void this.publish(CONVERSIONS_CHANNEL, [conversionPayload(this.instance, owner, event)]);
    });
  }

  private heardConversion(payload: string): void {
    const m = parseConversion(payload);
    if (!m || m.instance === this.instance) return;
    for (const s of this.streams.get(m.owner) ?? []) s.conversion(m.conversion);
  }

  /** Takes a stream slot for `userId`, or refuses with 429 rate_limited. */
  private reserve(userId: string): void {
    if (this.closed) throw new DomainError("unavailable", "The service is shutting down", undefined, undefined, 5);
    if ((this.perUser.get(userId) ?? 0) >= this.limits.perUser) {
      throw new DomainError("rate_limited", `At most ${this.limits.perUser} live feeds open at once per account: close one first`, undefined, undefined, 5);
    }
    if (this.count >= this.limits.total)
      throw new DomainError("rate_limited", "Too many live feeds are open on this server; try again shortly", undefined, undefined, 30);
  }

  /**
   * A new stream of `ownerId`'s clicks for `userId`, watching from now on (clicks are held until
   * start() sends the backlog). `check` answers whether the user may still read them (every recheckMs).
   */
  open(userId: string, ownerId: string, sink: LiveSink, check: () => Promise<boolean>): LiveHandle {
    this.reserve(userId);
    const stream = new LiveStream(userId, ownerId, sink, this.limits, this.deps.now, (s) => this.closedStream(s));
    this.count++;
    this.perUser.set(userId, (this.perUser.get(userId) ?? 0) + 1);
    const set = this.streams.get(ownerId) ?? new Set();
    const first = set.size === 0;
    set.add(stream);
    this.streams.set(ownerId, set);
    this.rechecks.set(stream, { at: this.deps.now() + this.limits.recheckMs, check });
    this.rebuild();
    if (first) void this.publish(WATCH_CHANNEL, watchPayloads(this.instance, [ownerId]));
    return { start: (backlog) => stream.start(backlog), close: () => stream.close() };
  }

  private closedStream(s: LiveStream): void {
    const set = this.streams.get(s.ownerId);
    if (!set?.delete(s)) return;
    if (set.size === 0) this.streams.delete(s.ownerId);
    this.rechecks.delete(s);
    this.count--;
    const n = (this.perUser.get(s.userId) ?? 1) - 1;
    if (n > 0) this.perUser.set(s.userId, n);
    else this.perUser.delete(s.userId);
    this.rebuild();
  }

  /** Open streams on this instance (tests, metrics). */
  get openStreams(): number {
    return this.count;
  }

  /** The watched owners: this instance's streams' and the unexpired announcements of others. */
  private rebuild(): void {
    const now = this.deps.now();
    const next = new Set(this.streams.keys());
    for (const [owner, until] of this.remote) {
      if (until > now) next.add(owner);
      else this.remote.delete(owner);
    }
    this.watched = next;
    this.active = next.size > 0;
    for (const owner of this.windows.keys()) if (!next.has(owner)) this.windows.delete(owner);
  }

  private heardWatch(payload: string): void {
    const m = parseWatch(payload);
    if (!m || m.instance === this.instance) return;
    if ("ask" in m) {
      // Answered at once: the asking instance may be serving clicks of owners watched here already.
      if (this.streams.size > 0) void this.publish(WATCH_CHANNEL, watchPayloads(this.instance, [...this.streams.keys()]));
      return;
    }
    const until = this.deps.now() + WATCH_TTL_MS;
    for (const owner of m.owners) this.remote.set(owner, until);
    this.rebuild();
  }

  private heardClicks(payload: string): void {
    const m = parseClicks(payload);
    if (!m || m.instance === this.instance) return;
    this.deliver(m.clicks, m.skipped);
  }

  /** Describes the gathered clicks and hands them to the streams here and, where watched, elsewhere. */
  private flush(): void {
    this.flushTimer = null;
    const raw = this.pending;
    this.pending = [];
    const skipped: Array<[string, number]> = [];
    for (const [owner, w] of this.windows) {
      if (w.skipped > 0) skipped.push([owner, w.skipped]);
      w.skipped = 0;
    }
    const clicks = raw.map((c) => ({ owner: c.owner, click: this.describe(c) }));
    this.deliver(clicks, skipped);
    if (!this.deps.shared) return;
    const now = this.deps.now();
    const elsewhere = (owner: string) => (this.remote.get(owner) ?? 0) > now;
    const out = clicks.filter((c) => elsewhere(c.owner));
    const outSkipped = skipped.filter(([owner]) => elsewhere(owner));
    if (out.length > 0 || outSkipped.length > 0) void this.publish(CLICKS_CHANNEL, clicksPayloads(this.instance, out, outSkipped));
  }

  private deliver(clicks: OwnedClick[], skipped: Array<[string, number]>): void {
    for (const [owner, n] of skipped) for (const s of this.streams.get(owner) ?? []) s.addSkipped(n);
    for (const { owner, click } of clicks) for (const s of this.streams.get(owner) ?? []) s.click(click);
  }

  private describe(c: RawLiveClick): LiveClick {
    const ua = describeUserAgent(c.userAgent);
    const country = this.deps.countries.resolve(c.country, c.ip);
    const referrer = referrerHost(c.referer);
    return {
      at: new Date(c.at).toISOString(),
      link_id: c.linkId,
      alias: c.alias,
      domain: c.domain === "" ? this.deps.ownHost : c.domain,
      country: country === "unknown" ? "" : country,
      device: ua.device,
      browser: ua.browser,
      os: ua.os,
      referrer: referrer === "direct" || referrer === "unknown" ? "" : referrer,
      source: c.qr ? "qr" : "link",
      destination: c.destination ?? "default",
      bot: ua.isBot,
    };
  }

  /** Once a second: heartbeats and skipped counts, announcements, expired watches, access rechecks. */
  private tick(): void {
    const now = this.deps.now();
    for (const set of this.streams.values()) for (const s of set) s.tick();
    if (this.deps.shared && this.streams.size > 0 && now - this.lastAnnounce >= ANNOUNCE_MS) {
      this.lastAnnounce = now;
      void this.publish(WATCH_CHANNEL, watchPayloads(this.instance, [...this.streams.keys()]));
    }
    if (this.remote.size > 0) this.rebuild();
    for (const [stream, r] of this.rechecks) {
      if (r.at > now) continue;
      r.at = now + this.limits.recheckMs;
      r.check().then(
        (ok) => (ok ? undefined : stream.close()),
        (err: unknown) => this.deps.log.warn({ err }, "live feed: access check failed; the stream stays open"),
      );
    }
  }

  private async publish(channel: string, payloads: string[]): Promise<void> {
    if (this.closed) return;
    try {
      for (const p of payloads) await this.deps.feed.publish(channel, p);
    } catch (err) {
      this.deps.log.warn({ err, channel }, "live feed: a notification to other instances failed");
    }
  }

  /** Ends every open stream (the server is closing: responses must finish for it to close). */
  closeStreams(): void {
    for (const set of [...this.streams.values()]) for (const s of [...set]) s.close();
  }

  close(): void {
    this.closed = true;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.pending = [];
    this.closeStreams();
  }
}
