// The redirect hot path in front of Fastify: GET/HEAD /<alias> of a cached link with no click limit, not
// expired, is answered straight from node:http (302, or the password page); everything else goes to Fastify.
// Same answer as routes/redirect.ts (status, Location, headers), same single click.
import type { IncomingMessage, ServerResponse } from "node:http";
import { PASSWORD_FORM, type RedirectService } from "../redirect/resolve-link.js";
import { NO_STORE, PASSWORD_PAGE_HEADERS, passwordForm } from "./pages.js";
import { SECURITY_HEADERS } from "./security-headers.js";

/** One path segment that can be an alias; anything else (%-escapes, slashes, dots) is Fastify's. */
const PATH_RE = /^\/([A-Za-z0-9_-]{3,64})(?:\?|$)/;

/** Reused for every answer (writeHead serialises the list synchronously); what routes/redirect.ts sends. */
const HEADERS: string[] = ["location", "", "cache-control", NO_STORE, "content-length", "0"];

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

/** The request's host name as Fastify's request.hostname gives it without trusted proxies (port stripped). */
export function hostnameOf(host: string | undefined): string {
  if (!host) return "";
  if (host[0] === "[") return host.slice(0, host.indexOf("]") + 1);
  const colon = host.indexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

export interface FastRedirect {
  /** Answers the request and returns true, or returns false without touching it. */
  (req: IncomingMessage, res: ServerResponse): boolean;
  /** Stop answering (server closing): Fastify then answers 503 like every other route. */
  disable(): void;
}

/** Only without trusted proxies: then the client IP is the socket's and no country header is trusted. */
export function fastRedirect(redirects: RedirectService): FastRedirect {
  let enabled = true;
  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!enabled || (req.method !== "GET" && req.method !== "HEAD")) return false;
    const m = PATH_RE.exec(req.url ?? "");
    if (m === null) return false;
    const h = req.headers;
    const location = redirects.visitCached({
      host: hostnameOf(h.host),
      alias: m[1] as string,
      userAgent: (h["user-agent"] ?? "").slice(0, 1024),
      referer: (h.referer ?? "").slice(0, 2048),
      ip: req.socket.remoteAddress ?? "",
      country: null,
    });
    if (location === undefined) return false;
    if (location === PASSWORD_FORM) {
      res.writeHead(200, FORM_HEADERS);
      res.end(req.method === "HEAD" ? undefined : FORM);
      return true;
    }
    HEADERS[1] = location;
    res.writeHead(302, HEADERS);
    res.end();
    return true;
  };
  return Object.assign(handle, {
    disable() {
      enabled = false;
    },
  });
}
