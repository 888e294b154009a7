// Analytics as the service builds them: the account-wide statistics and the live feed of clicks.
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { CountryResolver } from "../clicks/describe.js";
import type { StatsService } from "../clicks/stats.js";
import { AccountAnalytics } from "./account-analytics.js";
import { LiveFeed, type LiveLimits } from "./live-feed.js";

export interface AnalyticsDeps {
  settings: Pick<Config, "baseUrl" | "origin">;
  storage: Storage;
  clock: Clock;
  log: Logger;
  countries: CountryResolver;
  stats: StatsService;
  /** Live feed bounds (tests: streams per user, events a second, heartbeat). */
  live?: Partial<LiveLimits>;
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
  const analytics = new AccountAnalytics({ db: storage.db, stats: deps.stats, origin: settings.origin, ownHost: settings.baseUrl.hostname });
  return { analytics, live };
}
