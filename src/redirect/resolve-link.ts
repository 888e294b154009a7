// The redirect decision, in the order of docs/api.md's table (Short-link redirect): 404 unknown ->
// operator's 410/451 -> 410 expired -> 403 click limit (both a 302 to the fallback URL where set, no click)
// -> password -> preview page for a link-preview crawler -> redirect rules -> device destination -> split
// -> main destination (targeting.ts); exactly one click per redirect or preview page served, recorded and
// handed to the click's listeners as one event (click-event.ts).
import { newClickId, withQueryParam } from "../conversions/index.js";
import type { Clock } from "../shared/clock.js";
import { type RateEvents, retryAfterSeconds } from "../storage/rate-events.js";
import type { ClickRecorder } from "../clicks/recorder.js";
import type { LinkService } from "../links/links.js";
import { ALIAS_RE } from "../links/validate.js";
import { isReservedAlias } from "../links/reserved.js";
import { verifyPassword } from "../accounts/passwords.js";
import { type CachedLink, LinkCache } from "./link-cache.js";
import { deviceDestination } from "./device.js";
import { targetOf } from "./targeting.js";
import { Facts } from "./visit-facts.js";
import type { CountryResolver } from "../clicks/describe.js";
import { utmOf } from "../clicks/utm-values.js";
import type { DomainChanges } from "../domains/domain-changes.js";
import type { CustomHosts } from "../domains/custom-hosts.js";
import type { HostBlocklist } from "../links/host-blocklist.js";
import { NotFoundThrottle } from "./not-found-throttle.js";
import { isPreviewCrawler } from "./preview.js";
import { type RedirectAnswer, RedirectAnswers } from "./answers.js";
import { ClickDispatcher, type ClickedListeners } from "./click-event.js";
import { foldHost, isFolded } from "./host-fold.js";
import { type AppTurn, type LinkApps, appAnswer, appTurn, appVisitFacts, needsClickId } from "./app-turn.js";

export type Outcome =
  | { kind: "not_found" }
  /** `ownerless`: a link made signed out, which no owner set (its page words it so). */
  | { kind: "expired"; ownerless: boolean }
  | { kind: "click_limit" }
  | { kind: "password"; wrong: boolean }
  | { kind: "rate_limited"; retryAfter: number }
  /** Too many 404s from this address this minute (alias enumeration): 429 on every short link. */
  | { kind: "not_found_burst"; retryAfter: number }
  /** Disabled by an operator: 410 or 451 (the link's disabled_status). */
  | { kind: "disabled"; status: number }
  /** A destination's host is on the operator's blocklist. */
  | { kind: "blocked" }
  | { kind: "redirect"; location: string; answer: RedirectAnswer }
  /** Before the link's start date: 404 with the date, no click. */
  | { kind: "not_started"; startsAt: number }
  /** A link-preview crawler asking for a link with a card: the card's page, which refreshes to `location`. */
  | { kind: "preview"; location: string; card: NonNullable<CachedLink["preview"]>; answer: RedirectAnswer }
  /** iOS in an in-app browser, a link with open_outside: the page with a button to Safari (app-turn.ts). */
  | { kind: "open_outside"; location: string; store: string | null };

export interface Visit {
  /** Request hostname, port stripped. */
  host: string;
  alias: string;
  userAgent: string;
  referer: string;
  ip: string;
  /** Trusted country header value, or null. */
  country: string | null;
  /** The short URL's query string without "?" and without the QR marker ("" when none); redirect rules may ask for its parameters. */
  query: string;
  /** The visit came from a QR code (the short URL carried `qr=1`, qr-marker.ts). */
  qr: boolean;
  acceptLanguage: string;
  cookie: string;
  /** Set by the redirect when a split's variant must be remembered: the Set-Cookie header to send. */
  setCookie?: string | null;
  /** Set with the location visitCached gives: the link's status and headers (answers.ts). */
  answer?: RedirectAnswer | null;
  /** Set by the redirect when the visitor gets the in-app browser page instead (app-turn.ts): its App Store listing, or null. */
  outside?: { store: string | null };
}

export const PASSWORD_WINDOW_MS = 15 * 60_000;
/** Wrong passwords per link and address in PASSWORD_WINDOW_MS. */
export const PASSWORD_FAILURES = 10;
/**
 * Wrong passwords per link from all addresses together in LINK_PASSWORD_WINDOW_MS: what holds when
 * guesses come from many addresses (at most 8,640 a day). Short, because it also stops the link's real
 * visitors: a lock ends at most 5 minutes after the guessing stops, and addresses that gave the right
 * password in the last day are not stopped by it (docs/operations.md).
 */
export const LINK_PASSWORD_FAILURES = 30;
export const LINK_PASSWORD_WINDOW_MS = 5 * 60_000;
/** How long an address that gave a link's right password passes that link's lock (rate events live a day). */
const KNOWN_VISITOR_MS = 86_400_000;

const NOT_FOUND: Outcome = { kind: "not_found" };
const EXPIRED: Outcome = { kind: "expired", ownerless: false };
const EXPIRED_OWNERLESS: Outcome = { kind: "expired", ownerless: true };
const CLICK_LIMIT: Outcome = { kind: "click_limit" };
const BLOCKED: Outcome = { kind: "blocked" };

export interface RedirectDeps {
  links: LinkService;
  clicks: Pick<ClickRecorder, "record" | "countLimited" | "afterJournal" | "journaled">;
  clock: Clock;
  rate: RateEvents;
  cacheSize: number;
  /** BASE_URL's hostname: requests there look up domain "" without asking customHosts. */
  ownHost: string;
  /** Hostnames of the service's custom domains (any status); every other host is the main host. */
  customHosts?: Pick<CustomHosts, "has">;
  /** Who hears of each answered click (src/click-listeners.ts: webhooks, the live feed); absent: nobody. */
  clicked?: ClickedListeners;
  /** Custom domains verified, back to pending or deleted: their cached links are dropped. */
  domainChanges?: DomainChanges;
  /** The operator's destination blocklist: its links stop redirecting; a change empties the cache. */
  blocklist?: HostBlocklist;
  /** NOT_FOUND_PER_MINUTE: 404s per address and minute before 429 (0 or absent: no limit). */
  notFoundPerMinute?: number;
  /** The visitor's country for rules with `country`: the trusted header, else GEOIP_DB. */
  countries?: Pick<CountryResolver, "resolve">;
  /** BASE_URL is https: a split's cookie is Secure. */
  secureCookies?: boolean;
  /** REDIRECT_STATUS and REDIRECT_MAX_AGE's answers (302 and 3600 when absent). */
  answers?: RedirectAnswers;
  /** Pending matches of store visits (deeplinks/pending-matches.ts): the address hashes' key and DEEPLINK_MATCH_TTL; absent: none kept. */
  deeplinks?: { key: Buffer; ttlMs: number };
}

/** visitCached's answer for a password-protected link: the form page. */
export const PASSWORD_FORM = Symbol("password form");

export class RedirectService {
  readonly cache: LinkCache;
  private readonly ownHost: string;
  private readonly customHosts: Pick<CustomHosts, "has"> | undefined;
  readonly notFound: NotFoundThrottle | null;
  private readonly dispatcher: ClickDispatcher | null;

  constructor(private readonly deps: RedirectDeps) {
    const blocklist = deps.blocklist;
    this.cache = new LinkCache(
      deps.cacheSize,
      (d, a) => deps.links.findFresh(d, a),
      deps.links.changes,
      blocklist ? (row) => blocklist.blocksLink(row) : undefined,
      deps.answers ?? new RedirectAnswers(302, 3600),
    );
    blocklist?.onChange(() => this.cache.clear());
    this.ownHost = deps.ownHost.toLowerCase();
    this.customHosts = deps.customHosts;
    this.notFound = deps.notFoundPerMinute ? new NotFoundThrottle(deps.notFoundPerMinute, deps.clock) : null;
    deps.domainChanges?.listen((hostname) => this.cache.invalidateDomain(hostname));
    this.dispatcher = deps.clicked ? new ClickDispatcher(deps.clicked, (host) => this.domainFor(host)) : null;
  }

  /**
   * The links.domain a request's host name looks up (case-insensitive, one trailing dot ignored, the port
   * already gone): a custom domain's hostname for its own links, "" (the main host) for any other host.
   */
  domainFor(host: string): string {
    if (host === this.ownHost) return "";
    const h = isFolded(host) ? host : foldHost(host);
    return this.customHosts?.has(h) ? h : "";
  }

  /**
   * The fast path for the common cases, cached links open and not expired: a plain link records the
   * click and gives its destination; a password link gives PASSWORD_FORM (no click); a click-limited
   * link gives a promise of its destination once counted, or of undefined when its limit is used up.
   * undefined means "not decided here" (the caller must then use visit(), which reaches the same
   * outcome for these links).
   */
  visitCached(v: Visit): string | typeof PASSWORD_FORM | Promise<string | undefined> | undefined {
    // Reserved words need no check here: the cache only holds what find() loaded, and find() refuses them.
    if (!ALIAS_RE.test(v.alias)) return undefined;
    // A throttled address is answered by visit(); while none is, this costs one Set size check.
    if (this.notFound?.active && this.notFound.retryAfter(v.ip) > 0) return undefined;
    const link = this.cache.peek(this.domainFor(v.host), v.alias);
    if (!link || link.disabled_status !== null || link.blocked) return undefined;
    // Not open yet: the route's page. Expired with a fallback: there, without a click.
    if (link.starts_at !== null && this.deps.clock.now() < link.starts_at) return undefined;
    if (this.isExpired(link)) {
      v.answer = link.answer.fallback;
      return link.expired_url ?? undefined;
    }
    // A click-limited link's password page needs its exact count first: the route's.
    if (link.password_hash !== null) return link.max_clicks === null ? PASSWORD_FORM : undefined;
    // The crawler check runs only for links with a card.
    if (link.preview !== null && isPreviewCrawler(v.userAgent)) return undefined;
    // The in-app page is the route's (only links with apps or a way out ask, once per visit).
    const turn = link.apps === null ? null : appTurn(link.apps, v.userAgent);
    if (turn?.kind === "page") return undefined;
    if (link.max_clicks !== null) return link.used_up ? undefined : this.passLimited(link, v, link.max_clicks, turn);
    return this.redirect(link, v, false, turn);
  }

  /**
   * A cached click-limited link, counted (atomically, with the other counts of this event-loop turn): its
   * destination, or undefined once its limit is used up (the route answers that: 403 or the fallback URL).
   */
  private async passLimited(link: CachedLink, v: Visit, maxClicks: number, turn: AppTurn): Promise<string | undefined> {
    if (await this.deps.clicks.countLimited(link.id, maxClicks)) return this.redirect(link, v, true, turn);
    link.used_up = true;
    return undefined;
  }

  /** Runs `answer` (a redirect visitCached decided) once its click would survive a killed process (the click journal). */
  afterClickKept(answer: () => void): void {
    this.deps.clicks.afterJournal(answer);
  }

  /** GET/HEAD of a short address. */
  async visit(v: Visit): Promise<Outcome> {
    const burst = this.burst(v);
    if (burst) return burst;
    return this.counted(v, await this.open(v));
  }

  /** POST of the password form. */
  async unlock(v: Visit, password: string): Promise<Outcome> {
    const burst = this.burst(v);
    if (burst) return burst;
    return this.counted(v, await this.tryPassword(v, password));
  }

  /** The 429 of an address past NOT_FOUND_PER_MINUTE, or null. */
  private burst(v: Visit): Outcome | null {
    const wait = this.notFound?.retryAfter(v.ip) ?? 0;
    return wait > 0 ? { kind: "not_found_burst", retryAfter: wait } : null;
  }

  /** Every 404 answered counts toward its address's burst limit. */
  private counted(v: Visit, outcome: Outcome): Outcome {
    if (outcome === NOT_FOUND) this.notFound?.notFound(v.ip);
    return outcome;
  }

  private async open(v: Visit): Promise<Outcome> {
    const link = await this.lookup(v);
    if (!link) return NOT_FOUND;
    const closed = this.closed(link);
    if (closed) return closed;
    if (link.password_hash !== null) {
      const limit = await this.limitState(link);
      if (limit !== "open") return limit === "gone" ? NOT_FOUND : this.limitReached(link);
      return { kind: "password", wrong: false };
    }
    return this.pass(link, v);
  }

  private async tryPassword(v: Visit, password: string): Promise<Outcome> {
    const link = await this.lookup(v);
    if (!link) return NOT_FOUND;
    const closed = this.closed(link);
    if (closed) return closed;
    if (link.password_hash === null) return this.pass(link, v);
    const limit = await this.limitState(link);
    if (limit !== "open") return limit === "gone" ? NOT_FOUND : this.limitReached(link);
    const rate = this.deps.rate;
    const now = this.deps.clock.now();
    // Each guess takes a slot of both windows before the (slow) check, so concurrent guesses cannot all
    // slip through; a right password gives its slots back, a wrong one leaves them as failures.
    const perAddress = await rate.take(`link_password:${link.id}:${v.ip}`, now - PASSWORD_WINDOW_MS, PASSWORD_FAILURES, now);
    if ("full" in perAddress) return { kind: "rate_limited", retryAfter: retryAfterSeconds(perAddress.full, PASSWORD_WINDOW_MS, now) };
    const known = `link_password_ok:${link.id}:${v.ip}`;
    const perLink = await rate.take(`link_password:${link.id}`, now - LINK_PASSWORD_WINDOW_MS, LINK_PASSWORD_FAILURES, now);
    if ("full" in perLink && (await rate.state(known, now - KNOWN_VISITOR_MS)).count === 0) {
      await rate.remove(perAddress.id);
      return { kind: "rate_limited", retryAfter: retryAfterSeconds(perLink.full, LINK_PASSWORD_WINDOW_MS, now) };
    }
    if (!(await verifyPassword(link.password_hash, password))) return { kind: "password", wrong: true };
    await rate.remove(perAddress.id);
    if ("id" in perLink) await rate.remove(perLink.id);
    await rate.record(known, now);
    return this.pass(link, v);
  }

  /** The link at domain + alias as visitors see it (through the cache), or null. */
  find(domain: string, alias: string): Promise<CachedLink | null> {
    // Anything that cannot be an alias is answered without a lookup (and never fills the cache).
    if (!ALIAS_RE.test(alias) || isReservedAlias(alias)) return Promise.resolve(null);
    return this.cache.get(domain, alias);
  }

  private lookup(v: Visit): Promise<CachedLink | null> {
    return this.find(this.domainFor(v.host), v.alias);
  }

  /** An operator's decision (disabled link, blocked destination) before the link's own expiry. */
  private closed(link: CachedLink): Outcome | null {
    if (link.disabled_status !== null) return { kind: "disabled", status: link.disabled_status };
    if (link.blocked) return BLOCKED;
    if (link.starts_at !== null && this.deps.clock.now() < link.starts_at) return { kind: "not_started", startsAt: link.starts_at };
    if (!this.isExpired(link)) return null;
    if (link.expired_url !== null) return { kind: "redirect", location: link.expired_url, answer: link.answer.fallback };
    return link.owner_id === null ? EXPIRED_OWNERLESS : EXPIRED;
  }

  /** Its clicks used up: the fallback URL where set (no click counted), else 403. */
  private limitReached(link: CachedLink): Outcome {
    return link.expired_url === null ? CLICK_LIMIT : { kind: "redirect", location: link.expired_url, answer: link.answer.fallback };
  }

  private isExpired(link: CachedLink): boolean {
    return link.expires_at !== null && this.deps.clock.now() >= link.expires_at;
  }

  /** Exact check without counting (before showing or checking a password). */
  private async limitState(link: CachedLink): Promise<"open" | "exhausted" | "gone"> {
    if (link.max_clicks === null) return "open";
    if (link.used_up) return "exhausted";
    const count = await this.deps.links.clickCount(link.id);
    if (count === null) return "gone";
    if (count >= link.max_clicks) link.used_up = true;
    return link.used_up ? "exhausted" : "open";
  }

  /** The visitor gets through: count the click (atomically when limited) and pick the destination. */
  private async pass(link: CachedLink, v: Visit): Promise<Outcome> {
    let counted = false;
    if (link.max_clicks !== null) {
      if (link.used_up || !(await this.deps.clicks.countLimited(link.id, link.max_clicks))) {
        link.used_up = true;
        return this.limitReached(link);
      }
      counted = true;
    }
    const location = this.redirect(link, v, counted);
    // Answered once the click is journaled: a 302 the visitor got is a click a killed process keeps.
    await this.deps.clicks.journaled();
    if (v.outside !== undefined) return { kind: "open_outside", location, store: v.outside.store };
    if (link.preview !== null && isPreviewCrawler(v.userAgent)) return { kind: "preview", location, card: link.preview, answer: link.answer };
    return { kind: "redirect", location, answer: link.answer };
  }

  /** Exactly one click per redirect served, recorded with where it went; the destination for this visitor (`turn`: the app turn, appTurn's). */
  private redirect(link: CachedLink, v: Visit, counted: boolean, turn: AppTurn = link.apps === null ? null : appTurn(link.apps, v.userAgent)): string {
    let location = link.url;
    let code: string | null = null;
    v.answer = link.answer;
    const device = deviceDestination(link, v.userAgent);
    const at = this.deps.clock.now();
    if (link.targeting !== null) {
      const d = targetOf(link.targeting, link.num, new Facts(v, at, this.deps.countries), device, `/${v.alias}`, this.deps.secureCookies === true);
      if (d !== null) {
        location = d.url;
        code = d.code;
        v.setCookie = d.setCookie;
      }
    } else if (device !== null) {
      location = device.url;
      code = device.code;
    }
    if (turn?.kind === "store") code = turn.os;
    // A link that tracks conversions, or a phone's store visit that needs one (rare: null checks), gives its click an id,
    // stored with the click (conversions/tracked-clicks.ts).
    const clickId = link.owner_id === null || (link.track === null && (turn === null || !needsClickId(link.apps as LinkApps, turn))) ? null : newClickId(at);
    this.deps.clicks.record({
      linkId: link.id,
      linkNum: link.num,
      at,
      userAgent: v.userAgent,
      referer: v.referer,
      ip: v.ip,
      country: v.country,
      counted,
      destination: code,
      qr: v.qr,
      // Most visits have no query: one length check.
      utm: v.query.length === 0 ? null : utmOf(v.query),
      clickId,
      app: turn === null || clickId === null ? null : appVisitFacts(link.apps as LinkApps, turn, location, v, at, this.deps.deeplinks ?? null),
    });
    // One event for every listener; each pays one check for an owner it does not serve (click-event.ts).
    this.dispatcher?.clicked(link, v, at, code);
    // Most links have no app: one null check above and here.
    if (turn !== null) {
      const tracked = link.track !== null && clickId !== null ? withQueryParam(location, link.track, clickId) : location;
      const answer = appAnswer(link.apps as LinkApps, turn, tracked, clickId, v.query);
      if (answer.outside) v.outside = answer.outside;
      return answer.location;
    }
    return clickId === null ? location : withQueryParam(location, link.track as string, clickId);
  }
}
