// The redirect path as the service builds it: a link cache in front of the links, recording each click and
// handing it over as one event to its listeners (src/click-listeners.ts: the webhooks, the live feed).
import type { Config } from "../config.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import type { ClickRecorder } from "../clicks/recorder.js";
import type { CountryResolver } from "../clicks/describe.js";
import type { LinkService } from "../links/links.js";
import type { HostBlocklist } from "../links/host-blocklist.js";
import type { DomainChanges } from "../domains/domain-changes.js";
import type { CustomHosts } from "../domains/custom-hosts.js";
import type { ClickedListeners } from "./click-event.js";
import { RedirectService } from "./resolve-link.js";
import { RedirectAnswers } from "./answers.js";
import { addressKey } from "../deeplinks/pending-matches.js";

export interface RedirectsDeps {
  settings: Pick<Config, "baseUrl" | "linkCacheSize" | "notFoundPerMinute" | "details" | "sessionSecret" | "deeplinkMatchTtlMs">;
  links: LinkService;
  clicks: ClickRecorder;
  clock: Clock;
  rate: RateEvents;
  customHosts: CustomHosts;
  domainChanges: DomainChanges;
  /** The listeners of each answered click (src/click-listeners.ts). */
  clicked: ClickedListeners;
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
    clicked: deps.clicked,
    domainChanges: deps.domainChanges,
    blocklist: deps.blocklist,
    notFoundPerMinute: settings.notFoundPerMinute,
    countries: deps.countries,
    secureCookies: settings.baseUrl.protocol === "https:",
    answers: new RedirectAnswers(settings.details.redirectStatus, settings.details.redirectMaxAge),
    deeplinks: { key: addressKey(settings.sessionSecret), ttlMs: settings.deeplinkMatchTtlMs },
  });
}
