// Short-link redirect at the root (docs/api.md, Short-link redirect): GET|HEAD /:alias, and POST /:alias
// for the link-password form. HTML pages for browsers, JSON errors for clients that prefer JSON.
import { Type } from "typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../app-type.js";
import { formBodies } from "../form-body.js";
import type { AppContext } from "../../context.js";
import type { Outcome, Visit } from "../../redirect/resolve-link.js";
import { takeQrMarker } from "../../redirect/qr-marker.js";
import { HTML_CSP, NO_STORE, PASSWORD_PAGE_HEADERS, errorPage, openOutsidePage, passwordForm, prefersJson, previewPage } from "../pages.js";
import { safariUrl } from "../../deeplinks/link-apps.js";
import { errors } from "../../contract/common.js";
import { type Trust, proxyCountry } from "../proxy.js";
import type { Metrics } from "../metrics.js";
import { linkInfo } from "../../redirect/link-info.js";
import { plusPage } from "../plus-page.js";
import { bioAnswer } from "../bio-page.js";
import { ALIAS_RE } from "../../links/validate.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "config" | "orphans" | "redirects" | "storage" | "clock" | "links" | "bioCache">;

const FORM_LIMIT = 4096;

/** Each refusal: the contract's status, code and message (JSON), and the page a browser gets, in words. */
const ERRORS = {
  not_found: {
    status: 404,
    code: "not_found",
    message: "This short link does not exist or was deleted.",
    page: {
      title: "Link not found",
      heading: "Short link not found",
      text: "There is no short link at this address. Check it for typos (short links are case-sensitive) or ask the person who shared it; it may have been deleted.",
    },
  },
  expired: {
    status: 410,
    code: "expired",
    message: "This short link has expired.",
    page: {
      title: "Link expired",
      heading: "This link has expired",
      text: "Its owner set it to stop working after a date, and that date has passed. Ask the person who shared it for a new link.",
    },
  },
  click_limit: {
    status: 403,
    code: "click_limit_reached",
    message: "This short link has reached its maximum number of clicks.",
    page: {
      title: "Click limit reached",
      heading: "This link has reached its click limit",
      text: "Its owner allowed a set number of visits, and they have all been used. Ask the person who shared it for a new link.",
    },
  },
  rate_limited: {
    status: 429,
    code: "rate_limited",
    message: "Too many wrong passwords for this link; try again later.",
    page: {
      title: "Too many attempts",
      heading: "Too many wrong passwords",
      text: "Too many wrong passwords were tried for this link. Wait a few minutes, then try again.",
    },
  },
  blocked: {
    status: 410,
    code: "link_blocked",
    message: "This short link points to a site that this service has blocked as harmful.",
    page: {
      title: "Link disabled",
      heading: "This link has been disabled",
      text: "It leads to a site this service has blocked as harmful (phishing or malware, for example), so it no longer opens. Do not look for the destination another way.",
    },
  },
  not_found_burst: {
    status: 429,
    code: "rate_limited",
    message: "Too many unknown short links were requested from your address; try again in a minute.",
    page: {
      title: "Too many requests",
      heading: "Too many requests",
      text: "Your address asked for too many short links that do not exist. Wait a minute, then try again.",
    },
  },
} as const;

/** The expiry of a link made signed out: nobody "owns" it to have set the date. */
const EXPIRED_OWNERLESS = {
  ...ERRORS.expired,
  page: {
    ...ERRORS.expired.page,
    text: "It was made without an account and set to stop working after a date, and that date has passed. Ask the person who shared it for a new link.",
  },
};

/** A link an operator disabled: 410, or 451 when it is unavailable for legal reasons. */
function disabledError(status: number) {
  return status === 451
    ? {
        status,
        code: "unavailable_legal",
        message: "This short link was disabled by the operator of this service for legal reasons.",
        page: {
          title: "Unavailable for legal reasons",
          heading: "This link is unavailable for legal reasons",
          text: "It was disabled by the operator of this service in response to a legal demand, so it no longer opens.",
        },
      }
    : {
        status,
        code: "link_disabled",
        message: "This short link was disabled by the operator of this service.",
        page: {
          title: "Link disabled",
          heading: "This link has been disabled",
          text: "It was disabled by the operator of this service, for example because it broke the service's rules. If you think this is a mistake, tell the person who shared it.",
        },
      };
}

function header(req: FastifyRequest, name: string): string {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? "";
}

function visitOf(ctx: Deps, trust: Trust | null, req: FastifyRequest, alias: string): Visit {
  const marked = takeQrMarker(req.url.includes("?") ? req.url.slice(req.url.indexOf("?") + 1, req.url.indexOf("?") + 2049) : "");
  return {
    host: req.hostname,
    alias,
    userAgent: header(req, "user-agent").slice(0, 1024),
    referer: header(req, "referer").slice(0, 2048),
    ip: req.ip,
    country: proxyCountry(req.raw, trust, ctx.config.countryHeader),
    query: marked.query,
    qr: marked.qr,
    acceptLanguage: header(req, "accept-language"),
    cookie: header(req, "cookie"),
    setCookie: null,
    answer: null,
  };
}

/** The "not open yet" answer (docs/api.md, Short-link redirect): 404, so nothing caches or indexes the link before it opens. */
function notStarted(req: FastifyRequest, reply: FastifyReply, startsAt: number): FastifyReply {
  const when = new Date(startsAt).toISOString();
  const message = `This short link opens on ${when.slice(0, 16).replace("T", " ")} UTC.`;
  reply.code(404).header("x-robots-tag", "noindex");
  if (prefersJson(req.headers.accept))
    return reply.type("application/json; charset=utf-8").send({ status: "error", code: "not_started", message, starts_at: when });
  return reply
    .type("text/html; charset=utf-8")
    .send(errorPage(404, { title: "Link not open yet", heading: "This link is not open yet", text: `${message} Come back then.` }));
}

function answer(req: FastifyRequest, reply: FastifyReply, outcome: Outcome): FastifyReply {
  reply.header("cache-control", NO_STORE);
  switch (outcome.kind) {
    case "redirect": {
      const a = outcome.answer;
      if (!a.crawlable) reply.header("x-robots-tag", "noindex");
      return reply.code(a.status).header("cache-control", a.cacheControl).header("location", outcome.location).send();
    }
    case "not_started":
      return notStarted(req, reply, outcome.startsAt);
    case "preview": {
      const shortUrl = `${req.protocol}://${req.host}${req.url.split("?")[0]}`;
      return reply
        .code(200)
        .header("content-security-policy", HTML_CSP)
        .type("text/html; charset=utf-8")
        .send(previewPage(outcome.card, outcome.location, shortUrl));
    }
    case "open_outside":
      return reply
        .code(200)
        .header("content-security-policy", HTML_CSP)
        .header("x-robots-tag", "noindex")
        .type("text/html; charset=utf-8")
        .send(openOutsidePage(outcome.location, safariUrl(outcome.location), outcome.store));
    case "password":
      // A client that prefers JSON gets the contract's error body for a wrong password, not the form.
      if (outcome.wrong && prefersJson(req.headers.accept)) {
        return reply
          .code(401)
          .type("application/json; charset=utf-8")
          .send({ status: "error", code: "invalid_credentials", message: "Wrong password for this link" });
      }
      return reply
        .code(outcome.wrong ? 401 : 200)
        .headers(PASSWORD_PAGE_HEADERS)
        .type("text/html; charset=utf-8")
        .send(passwordForm(outcome.wrong, outcome.wrong ? ((req.body as { ref?: string } | undefined)?.ref ?? "") : null));
    default: {
      const e =
        outcome.kind === "disabled"
          ? disabledError(outcome.status)
          : outcome.kind === "expired" && outcome.ownerless
            ? EXPIRED_OWNERLESS
            : ERRORS[outcome.kind];
      if (outcome.kind === "rate_limited" || outcome.kind === "not_found_burst") reply.header("retry-after", String(outcome.retryAfter));
      reply.code(e.status);
      if (prefersJson(req.headers.accept)) return reply.type("application/json; charset=utf-8").send({ status: "error", code: e.code, message: e.message });
      // Every page of a link that exists links to the abuse report form, prefilled with its alias (the form
      // is served on the same host); a 404 has nothing to report.
      const alias = (req.params as { alias?: string }).alias;
      const report = outcome.kind === "not_found" ? undefined : (alias ?? "");
      return reply.type("text/html; charset=utf-8").send(errorPage(e.status, e.page, report));
    }
  }
}

const Params = Type.Object({ alias: Type.String() });

/**
 * The referrer of a password form's post: the visit's own (the form's `ref`), never the password page;
 * without `ref` (no script), a Referer naming this very address counts as none.
 */
function postReferrer(req: FastifyRequest, ref: string | undefined): string {
  if (ref !== undefined) return ref.slice(0, 2048);
  const given = header(req, "referer").slice(0, 2048);
  try {
    const u = new URL(given);
    if (u.host === req.host && u.pathname === req.url.split("?")[0]) return "";
  } catch {
    return given;
  }
  return given;
}

/**
 * The "+" page of `alias` (docs/api.md, Where a link goes): what the link is, without a visit and without a click. An
 * unknown alias is a 404 that counts toward its address's burst limit, as a visit's would.
 */
async function plus(ctx: Deps, req: FastifyRequest, reply: FastifyReply, alias: string): Promise<FastifyReply> {
  const wait = ctx.redirects.notFound?.retryAfter(req.ip) ?? 0;
  if (wait > 0) return answer(req, reply, { kind: "not_found_burst", retryAfter: wait });
  const deps = { db: ctx.storage.db, clock: ctx.clock, links: ctx.links, redirects: ctx.redirects, linkChecks: ctx.config.health.enabled };
  const info = await linkInfo(deps, req.hostname, alias);
  if (info === null) {
    ctx.redirects.notFound?.notFound(req.ip);
    return answer(req, reply, { kind: "not_found" });
  }
  return reply
    .code(200)
    .header("cache-control", NO_STORE)
    .header("content-security-policy", HTML_CSP)
    .header("x-robots-tag", "noindex, nofollow")
    .type("text/html; charset=utf-8")
    .send(plusPage(`${req.protocol}://${req.host}/${alias}`, alias, info, ctx.clock.now()));
}

/** `trust`: the trusted-proxy function Fastify was given (app.ts), for the country header. */
export async function redirectRoutes(app: App, ctx: Deps, trust: Trust | null, metrics: Pick<Metrics, "redirect"> | null): Promise<void> {
  const answered = (req: FastifyRequest, reply: FastifyReply, visit: Visit, outcome: Outcome): FastifyReply => {
    metrics?.redirect(outcome.kind, "route", reply.elapsedTime / 1000);
    // A split's variant, remembered for this link's path (targeting.ts).
    if (visit.setCookie) reply.header("set-cookie", visit.setCookie);
    return answer(req, reply, outcome);
  };
  const visitOfReq = (req: FastifyRequest) => visitOf(ctx, trust, req, (req.params as { alias: string }).alias);
  app.get(
    "/:alias",
    {
      schema: {
        tags: ["redirect"],
        summary:
          "Open a short link: 302 (or the link's 301, 307, 308) to the destination, or 404 (unknown, or not open yet: not_started)/410/403, or the password form (HEAD answers alike); `/{alias}+` answers the link's \"+\" page (where it goes, no click)",
        params: Params,
        response: errors(403, 404, 410, 429, 451),
      },
    },
    async (req, reply) => {
      const alias = req.params.alias;
      if (alias.length > 1 && alias.endsWith("+")) return plus(ctx, req, reply, alias.slice(0, -1));
      const visit = visitOfReq(req);
      const outcome = await ctx.redirects.visit(visit);
      if (outcome.kind === "not_found") {
        const domain = ctx.redirects.domainFor(visit.host);
        // No link here: a bio page at this slug (docs/bio-pages.md; a slug and an alias never share a host's path).
        const bio = ALIAS_RE.test(alias) ? await ctx.bioCache.get(domain, alias) : null;
        if (bio !== null) {
          const a = bioAnswer(bio, ctx.config.origin);
          for (let i = 0; i < a.headers.length - 2; i += 2) reply.header(a.headers[i] as string, a.headers[i + 1]);
          if (req.method === "GET") ctx.bioCache.viewed(bio.id);
          return reply.code(200).send(a.body);
        }
        ctx.orphans.visited(domain, req.url, visit.referer, visit.userAgent);
      }
      return answered(req, reply, visit, outcome);
    },
  );

  // The password form posts urlencoded; a parser of its own, small, for this route only.
  await app.register(async (plain) => {
    const scope = plain as unknown as App;
    formBodies(scope, FORM_LIMIT);
    scope.post(
      "/:alias",
      {
        bodyLimit: FORM_LIMIT,
        // Not a session action: the link password is the credential, throttled per link and IP.
        config: { csrf: false },
        schema: {
          tags: ["redirect"],
          summary: "Submit a link's password (form field password): 302 when right, 401 with the form when wrong",
          params: Params,
          // `ref`: the referrer of the visit that opened the password page (its script fills it in).
          body: Type.Object(
            { password: Type.String({ maxLength: 1000 }), ref: Type.Optional(Type.String({ maxLength: 2048 })) },
            { additionalProperties: false },
          ),
          response: errors(400, 401, 403, 404, 410, 413, 429, 451),
        },
      },
      async (req, reply) => {
        const visit = { ...visitOfReq(req), referer: postReferrer(req, req.body.ref) };
        return answered(req, reply, visit, await ctx.redirects.unlock(visit, req.body.password));
      },
    );
  });
}
