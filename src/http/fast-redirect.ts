// The redirect hot path in front of Fastify: GET/HEAD /<alias> of a cached link, not expired and open (its
// start date passed), is answered straight from node:http (the link's 301/302/307/308, or the password
// page); a click-limited link once counted, or handed to Fastify when its limit is used up (the 403 page
// or the fallback URL are the route's); everything else goes to Fastify.
// Same answer as routes/redirect.ts (status, Location, headers), same single click, with or without
// trusted proxies.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { PASSWORD_FORM, type RedirectService, type Visit } from "../redirect/resolve-link.js";
import { takeQrMarker } from "../redirect/qr-marker.js";
import type { RedirectAnswer } from "../redirect/answers.js";
import { PASSWORD_PAGE_HEADERS, passwordForm } from "./pages.js";
import { SECURITY_HEADERS } from "./security-headers.js";
import { type Trust, clientIp, hostnameOf, proxyCountry } from "./proxy.js";
import type { Metrics } from "./metrics.js";
import { ANDROID_PATH, APPLE_PATH, type AppAssociations } from "../deeplinks/app-associations.js";
import { ASSOCIATION_HEADERS } from "./routes/deeplinks.js";
import type { BioCache } from "../bio/index.js";
import { bioAnswer } from "./bio-page.js";

/** One path segment that can be an alias; anything else (%-escapes, slashes, dots) is Fastify's. */
const PATH_RE = /^\/([A-Za-z0-9_-]{3,64})(?:\?|$)/;

/** The password page, as routes/redirect.ts and the onSend hook answer it. */
const FORM = Buffer.from(passwordForm(false));
const FORM_HEADERS: string[] = [
  ...Object.entries(PASSWORD_PAGE_HEADERS).flat(),
  "content-type",
  "text/html; charset=utf-8",
  ...Object.entries(SECURITY_HEADERS).flat(),
  "content-length",
  String(FORM.length),
];

const ASSOCIATION_HEADER_LIST = Object.entries(ASSOCIATION_HEADERS).flat();

/** A host's app association file (docs/deep-links.md), from memory; false: Fastify answers (a 404, a query string). */
function associationFiles(apps: Pick<AppAssociations, "file"> | null, trust: Trust | null) {
  return (req: IncomingMessage, res: ServerResponse, url: string): boolean => {
    if (apps === null || (url !== APPLE_PATH && url !== ANDROID_PATH)) return false;
    const file = apps.file(hostnameOf(req, trust), url);
    if (file === null) return false;
    res.writeHead(200, [...ASSOCIATION_HEADER_LIST, "content-length", String(file.body.length)]);
    res.end(req.method === "HEAD" ? undefined : file.body);
    return true;
  };
}

/** The bio pages kept in memory (docs/bio-pages.md) and BASE_URL's origin, for pages answered here. */
export interface FastBio {
  cache: Pick<BioCache, "peek" | "viewed">;
  origin: string;
}

/** A cached bio page at the host's slug, answered from memory and its view counted (GET only); false: not cached. */
function bioPage(bio: FastBio, req: IncomingMessage, res: ServerResponse, domain: string, slug: string): boolean {
  const page = bio.cache.peek(domain, slug);
  if (!page) return false;
  const answer = bioAnswer(page, bio.origin);
  res.writeHead(200, answer.headers);
  if (req.method === "HEAD") res.end();
  else {
    res.end(answer.body);
    bio.cache.viewed(page.id);
  }
  return true;
}

/** Where answered redirects are counted and timed (metrics.ts), when metrics are on. */
export type RedirectMetrics = Pick<Metrics, "fast">;

export interface FastRedirect {
  /**
   * Answers the request and returns true, or returns false without touching it. `route` takes over a
   * request it took and then could not answer (a click-limited link whose limit is used up, or whose count failed).
   */
  (req: IncomingMessage, res: ServerResponse, route: RequestListener): boolean;
  /** Stop answering (server closing): Fastify then answers 503 like every other route. */
  disable(): void;
}

/**
 * Behind trusted proxies (`trust`), the client address, host and country come from their headers
 * exactly as Fastify's request.ip and request.hostname and the redirect route read them (proxy.ts).
 */
export function fastRedirect(
  redirects: RedirectService,
  trust: Trust | null,
  countryHeader: string,
  metrics: RedirectMetrics | null = null,
  apps: Pick<AppAssociations, "file"> | null = null,
  bio: FastBio | null = null,
): FastRedirect {
  let enabled = true;
  const associationFile = associationFiles(apps, trust);
  const handle = (req: IncomingMessage, res: ServerResponse, route: RequestListener): boolean => {
    if (!enabled || (req.method !== "GET" && req.method !== "HEAD")) return false;
    const started = metrics === null ? 0 : performance.now();
    const url = req.url ?? "";
    const m = PATH_RE.exec(url);
    // "/." starts no alias: only then is it worth comparing with the association files' paths.
    if (m === null) return url.charCodeAt(1) === 46 && associationFile(req, res, url);
    // node:http has built req.headers already (its Host and Expect checks of every HTTP/1.1 request).
    const h = req.headers;
    const alias = m[1] as string;
    const marked = takeQrMarker(url.length > alias.length + 1 ? url.slice(alias.length + 2, alias.length + 2050) : "");
    const visit: Visit = {
      host: hostnameOf(req, trust),
      alias,
      userAgent: (h["user-agent"] ?? "").slice(0, 1024),
      referer: (h.referer ?? "").slice(0, 2048),
      ip: clientIp(req, trust),
      country: proxyCountry(req, trust, countryHeader),
      query: marked.query,
      qr: marked.qr,
      acceptLanguage: h["accept-language"] ?? "",
      cookie: h.cookie ?? "",
      setCookie: null,
      answer: null,
    };
    const location = redirects.visitCached(visit);
    if (location === undefined) return bio !== null && bioPage(bio, req, res, redirects.domainFor(visit.host), alias);
    if (location === PASSWORD_FORM) {
      res.writeHead(200, FORM_HEADERS);
      res.end(req.method === "HEAD" ? undefined : FORM);
      metrics?.fast(true, (performance.now() - started) / 1000);
      return true;
    }
    if (typeof location === "string") redirected(visit, location, res, started);
    else
      location.then(
        (counted) => (counted === undefined ? route(req, res) : redirected(visit, counted, res, started)),
        () => route(req, res),
      );
    return true;
  };
  /**
   * After the click journal's append of this event-loop turn: a 302 answered is a click that survives a kill.
   * The link's status and header list (answers.ts: shared, reused for every answer, since writeHead
   * serialises the list synchronously): what routes/redirect.ts sends.
   */
  const redirected = (visit: Visit, location: string, res: ServerResponse, started: number): void => {
    const cookie = visit.setCookie;
    const answer = visit.answer as RedirectAnswer;
    redirects.afterClickKept(() => {
      if (cookie) {
        const headers = answer.cookieHeaders;
        headers[1] = location;
        headers[headers.length - 1] = cookie;
        res.writeHead(answer.status, headers);
      } else {
        answer.headers[1] = location;
        res.writeHead(answer.status, answer.headers);
      }
      res.end();
      metrics?.fast(false, (performance.now() - started) / 1000);
    });
  };
  return Object.assign(handle, {
    disable() {
      enabled = false;
    },
  });
}
