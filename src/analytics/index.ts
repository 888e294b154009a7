// Analytics as the service builds them: the account-wide statistics and the live feed of clicks.
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { CountryResolver } from "../clicks/describe.js";
import type { StatsService } from "../clicks/stats.js";
import { AccountAnalytics } from "./account-analytics.js";
import { LiveFeed, type LiveLimits } from "./live-feed.js";
import type { ConversionNotice, EventSubscriber } from "../shared/events.js";

export interface AnalyticsDeps {
  settings: Pick<Config, "baseUrl" | "origin">;
  storage: Storage;
  clock: Clock;
  log: Logger;
  countries: CountryResolver;
  stats: StatsService;
  /** Live feed bounds (tests: streams per user, events a second, heartbeat). */
  live?: Partial<LiveLimits>;
  /** Subscribes to lead.created and sale.created (the live feed's conversion events). */
  events: EventSubscriber;
}

export interface Analytics {
  analytics: AccountAnalytics;
  live: LiveFeed;
}

export function createAnalytics(deps: AnalyticsDeps): Analytics {
  const { settings, storage } = deps;
  const live = new LiveFeed({
    feed: storage.feed,
    shared: storage.feed.shared === true,
    countries: deps.countries,
    ownHost: settings.baseUrl.host,
    now: () => deps.clock.now(),
    log: deps.log,
    limits: deps.live,
  });
  deps.events.subscribe("lead.created", (n) => live.converted(n.ownerId, liveConversion("lead", n)));
  deps.events.subscribe("sale.created", (n) => live.converted(n.ownerId, liveConversion("sale", n)));
  const analytics = new AccountAnalytics({
    db: storage.db,
    dialect: storage.dialect,
    stats: deps.stats,
    origin: settings.origin,
    ownHost: settings.baseUrl.hostname,
  });
  return { analytics, live };
}

/** A lead.created or sale.created as the live feed's `conversion` event has it. */
function liveConversion(type: "lead" | "sale", n: ConversionNotice) {
  const r = (n.data.lead ?? n.data.sale) as { event_name: string; destination: string | null; amount?: number; currency?: string };
  return {
    type,
    at: new Date(n.at).toISOString(),
    link_id: n.link.id,
    alias: n.link.alias,
    domain: n.link.domain,
    event_name: r.event_name,
    destination: r.destination,
    amount: type === "sale" ? (r.amount ?? null) : null,
    currency: type === "sale" ? (r.currency ?? null) : null,
  };
}
