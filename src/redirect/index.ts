// The redirect path as the service builds it: a link cache in front of the links, recording each click and
// handing it to the webhooks and the live feed.
import type { Config } from "../config.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import type { ClickRecorder } from "../clicks/recorder.js";
import type { CountryResolver } from "../clicks/describe.js";
import type { LinkService } from "../links/links.js";
import type { HostBlocklist } from "../links/host-blocklist.js";
import type { DomainChanges } from "../domains/domain-changes.js";
import type { CustomHosts } from "../domains/custom-hosts.js";
import type { ClickDeliveries } from "../webhooks/click-deliveries.js";
import type { LiveFeed } from "../analytics/live-feed.js";
import { RedirectService } from "./resolve-link.js";
import { RedirectAnswers } from "./answers.js";

export interface RedirectsDeps {
  settings: Pick<Config, "baseUrl" | "linkCacheSize" | "notFoundPerMinute" | "details">;
  links: LinkService;
  clicks: ClickRecorder;
  clock: Clock;
  rate: RateEvents;
  customHosts: CustomHosts;
  domainChanges: DomainChanges;
  clickDeliveries: ClickDeliveries;
  live: LiveFeed;
  blocklist: HostBlocklist;
  countries: CountryResolver;
}

export function createRedirects(deps: RedirectsDeps): RedirectService {
  const { settings } = deps;
  return new RedirectService({
    links: deps.links,
    clicks: deps.clicks,
    clock: deps.clock,
    rate: deps.rate,
    cacheSize: settings.linkCacheSize,
    ownHost: settings.baseUrl.hostname,
    customHosts: deps.customHosts,
    webhooks: deps.clickDeliveries,
    live: deps.live,
    domainChanges: deps.domainChanges,
    blocklist: deps.blocklist,
    notFoundPerMinute: settings.notFoundPerMinute,
    countries: deps.countries,
    secureCookies: settings.baseUrl.protocol === "https:",
    answers: new RedirectAnswers(settings.details.redirectStatus, settings.details.redirectMaxAge),
  });
}
