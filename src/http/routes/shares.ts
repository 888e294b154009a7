// Shared statistics (docs/sharing.md): the owner's routes under /api (session + CSRF) and the public page at
// /share/{token} (no session; a password form when the owner set one).
import { Type } from "typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { IdParams, OkSchema, errors } from "../../contract/common.js";
import { CreateShareBody, ShareListQuery, ShareListReply, ShareOwnerQuery, ShareReply } from "../../contract/shares.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";
import { formBodies } from "../form-body.js";
import { HTML_CSP, NO_STORE, errorPage, prefersJson } from "../pages.js";
import { sharePage, sharePasswordPage } from "../share-page.js";
import { type OpenShare, SHARE_COOKIE_SECONDS, SHARE_RANGES, type ShareRange } from "../../shares/shares.js";

type Deps = Pick<AppContext, "sessions" | "shares">;

const FORM_LIMIT = 4096;
const COOKIE = "snip_share";

const GONE = errorPage(404, {
  title: "Not found",
  heading: "These statistics are not shared here",
  text: "This address does not show any statistics: it was never shared, its owner stopped sharing it, or its end date has passed.",
});

const PageParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
const PageQuery = Type.Object({ range: Type.Optional(Type.String({ maxLength: 10 })) }, { additionalProperties: false });

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header("cache-control", NO_STORE)
    .header("content-security-policy", HTML_CSP)
    .header("x-robots-tag", "noindex, nofollow")
    .type("text/html; charset=utf-8")
    .send(body);
}

/** A refusal: the contract's JSON error for a client that prefers JSON, else the page (as the short-link redirect answers). */
function refuse(req: FastifyRequest, reply: FastifyReply, status: number, code: string, message: string, page: string): FastifyReply {
  if (!prefersJson(req.headers.accept)) return html(reply, status, page);
  return reply.code(status).header("cache-control", NO_STORE).type("application/json; charset=utf-8").send({ status: "error", code, message });
}

const gone = (req: FastifyRequest, reply: FastifyReply) => refuse(req, reply, 404, "not_found", "No statistics are shared at this address", GONE);

function cookieOf(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie ?? "";
  for (const part of header.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === COOKIE) return rest.join("=");
  }
  return undefined;
}

const KIND = (s: OpenShare) => (s.row.link_id !== null ? "Link" : s.row.tag_id !== null ? "Tag" : "Folder");

export async function shareRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/shares",
      {
        schema: {
          tags: ["shares"],
          summary: "The account's shared statistics pages (or a team owner's), newest first; link_id: only that link's",
          querystring: ShareListQuery,
          response: { 200: ShareListReply, ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, shares: await ctx.shares.list(signedIn(req), req.query.owner, req.query.link_id) };
      },
    );

    scope.post(
      "/api/shares",
      {
        schema: {
          tags: ["shares"],
          summary:
            "Publish a link's, a tag's or a folder's statistics at an unguessable address (exactly one of link_id, tag, folder_id; optional password, expires_at and panels); Business and up",
          querystring: ShareOwnerQuery,
          body: CreateShareBody,
          response: { 201: ShareReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req, reply) => {
        const share = await ctx.shares.create(activeUser(req), req.body, req.query.owner);
        return reply.code(201).send({ status: "success" as const, id: share.id, url: share.url, share });
      },
    );

    scope.delete(
      "/api/shares/:id",
      {
        schema: {
          tags: ["shares"],
          summary: "Stop sharing: the page answers 404 from the next request on, on every instance",
          params: IdParams,
          response: { 200: OkSchema, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        await ctx.shares.delete(activeUser(req), req.params.id);
        return { status: "success" as const };
      },
    );
  });
}

/** The public page (outside /api: no session, no CSRF; the password form posts urlencoded). */
export async function sharePageRoutes(app: App, ctx: Pick<AppContext, "shares" | "config">): Promise<void> {
  await app.register(async (plain) => {
    const scope = plain as unknown as App;
    formBodies(scope, FORM_LIMIT);

    const show = async (req: FastifyRequest, reply: FastifyReply, share: OpenShare, rangeAsked: string | undefined) => {
      const range: ShareRange = SHARE_RANGES.includes(rangeAsked as ShareRange) ? (rangeAsked as ShareRange) : "30d";
      const analytics = await ctx.shares.statistics(share, range);
      const path = req.url.split("?")[0] ?? "/";
      return html(reply, 200, sharePage({ name: share.name, kind: KIND(share), panels: share.panels, range, analytics, path }));
    };

    scope.get(
      "/share/:token",
      {
        schema: {
          tags: ["shares"],
          summary: "A shared statistics page (HTML; ?range=7d|30d|90d|12mo, default 30d), or its password form; 404 once revoked or expired",
          params: PageParams,
          querystring: PageQuery,
          response: errors(404),
        },
      },
      async (req, reply) => {
        const share = await ctx.shares.open(req.params.token);
        if (share === null) return gone(req, reply);
        if (!ctx.shares.passed(share, cookieOf(req))) return html(reply, 200, sharePasswordPage(false));
        return show(req, reply, share, req.query.range);
      },
    );

    scope.post(
      "/share/:token",
      {
        bodyLimit: FORM_LIMIT,
        // Not a session action: the share's password is the credential, throttled per share and address.
        config: { csrf: false },
        schema: {
          tags: ["shares"],
          summary:
            "Give a shared page's password (form field password): 303 to the page with a cookie when right, 401 with the form when wrong, 429 when throttled",
          params: PageParams,
          body: Type.Object({ password: Type.String({ maxLength: 1000 }) }, { additionalProperties: false }),
          response: errors(400, 401, 404, 413, 429),
        },
      },
      async (req, reply) => {
        const share = await ctx.shares.open(req.params.token);
        if (share === null) return gone(req, reply);
        if (share.row.password_hash === null) return reply.code(303).header("location", req.url).send();
        const ok = await ctx.shares.tryPassword(share, req.body.password, req.ip);
        if (ok === false) return refuse(req, reply, 401, "invalid_credentials", "Wrong password for these statistics", sharePasswordPage(true));
        if (ok !== true)
          return refuse(
            req,
            reply.header("retry-after", String(ok.retryAfter)),
            429,
            "rate_limited",
            "Too many wrong passwords; try again later",
            errorPage(429, {
              title: "Too many attempts",
              heading: "Too many wrong passwords",
              text: "Too many wrong passwords were tried. Wait a few minutes, then try again.",
            }),
          );
        const path = req.url.split("?")[0] ?? "/";
        const secure = ctx.config.secureCookies ? "; Secure" : "";
        return reply
          .code(303)
          .header("set-cookie", `${COOKIE}=${ctx.shares.passCookie(share)}; Path=${path}; Max-Age=${SHARE_COOKIE_SECONDS}; HttpOnly; SameSite=Lax${secure}`)
          .header("location", path)
          .send();
      },
    );
  });
}
