// Single sign-on (docs/sso.md): the Enterprise owner's connection under /api/sso, the sign-in flow under
// /api/auth/sso (options, start, callback), and the operators' view under /api/admin/sso.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams, OkSchema } from "../../contract/common.js";
import {
  AdminSsoListReply,
  SamlPutBody,
  SsoCallbackQuery,
  SsoDomainParams,
  SsoDomainReply,
  SsoOptionsReply,
  SsoPutBody,
  SsoReply,
  SsoSetReply,
  SsoStartQuery,
} from "../../contract/sso.js";
import { operatorOf, sessionOf, signedIn, signedInRoutes, startSession, visitorOf } from "../auth.js";
import { COOKIE_PATH, RETURN_COOKIE, STATE_COOKIE, landingPath, refuse } from "./sso-answers.js";
import { samlRoutes, samlStarted } from "./saml.js";
import { scimTokenRoutes } from "./scim-token.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "auth" | "config" | "countries" | "sessions" | "sso">;

export async function ssoRoutes(app: App, ctx: Deps): Promise<void> {
  await samlRoutes(app, ctx);
  app.get(
    "/api/auth/sso/options",
    {
      schema: {
        tags: ["auth"],
        summary: "What the sign-in page offers: the instance-wide provider's button, email-first single sign-on, password sign-in and sign-up",
        response: { 200: SsoOptionsReply },
      },
    },
    async () => ({ status: "success" as const, ...(await ctx.sso.policy.options()) }),
  );

  app.get(
    "/api/auth/sso/start",
    {
      schema: {
        tags: ["auth"],
        summary: "Start single sign-on: 302 to the identity provider (email= for an Enterprise connection's domain, instance=1 for OIDC_ISSUER)",
        querystring: SsoStartQuery,
        response: errors(400, 404, 429),
      },
    },
    async (req, reply) => {
      try {
        const started = await ctx.sso.signIn.start({ email: req.query.email, instance: req.query.instance === "1" }, req.ip);
        if (started.kind === "saml") return samlStarted(ctx, reply, started, req.query.return_to);
        const cookie = { httpOnly: true, sameSite: "lax" as const, path: COOKIE_PATH, secure: ctx.config.secureCookies, maxAge: 600 };
        reply.setCookie(STATE_COOKIE, started.state, cookie);
        reply.setCookie(RETURN_COOKIE, landingPath(req.query.return_to), cookie);
        reply.header("cache-control", "no-store");
        return reply.redirect(started.url, 302);
      } catch (err) {
        return refuse(req, reply, err);
      }
    },
  );

  app.get(
    "/api/auth/sso/callback",
    {
      schema: {
        tags: ["auth"],
        summary: "The identity provider's answer (the redirect URI): signs in and sends to /app (or the start's return_to), or back to /app/login?sso_error=",
        querystring: SsoCallbackQuery,
        response: errors(400, 403),
      },
    },
    async (req, reply) => {
      try {
        const opened = await ctx.auth.door.sso(new URL(req.url, ctx.config.origin), req.cookies[STATE_COOKIE], visitorOf(ctx, req));
        startSession(ctx, req, reply, opened);
        reply.clearCookie(STATE_COOKIE, { path: COOKIE_PATH });
        reply.clearCookie(RETURN_COOKIE, { path: COOKIE_PATH });
        reply.header("cache-control", "no-store");
        return reply.redirect(landingPath(req.cookies[RETURN_COOKIE]), 302);
      } catch (err) {
        return refuse(req, reply, err);
      }
    },
  );

  await signedInRoutes(app, ctx, async (scope) => {
    await scimTokenRoutes(scope, ctx);
    scope.get(
      "/api/sso",
      {
        schema: {
          tags: ["sso"],
          summary: "The caller's single sign-on connection (the client secret is never returned), or null",
          response: { 200: SsoReply, ...errors(401) },
        },
      },
      async (req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, connection: await ctx.sso.connections.get(signedIn(req)) };
      },
    );
    scope.put(
      "/api/sso",
      {
        schema: {
          tags: ["sso"],
          summary: "Set the caller's single sign-on connection (Enterprise): issuer, client id, secret (sealed), email domains, require_sso",
          description:
            "Needs sudo mode (else 403 reauth_required). Turning require_sso on ends the sessions of its verified domains' addresses " +
            "not made by this single sign-on, and emails each of them.",
          body: SsoPutBody,
          response: { 200: SsoSetReply, ...errors(400, 401, 403, 409) },
        },
      },
      async (req) => ({ status: "success" as const, connection: await ctx.auth.changes.setSsoConnection(sessionOf(ctx, req), req.body) }),
    );
    scope.put(
      "/api/sso/saml",
      {
        schema: {
          tags: ["sso"],
          summary: "Give the SAML identity provider's metadata for the caller's connection (protocol saml): pasted XML or its https:// address",
          description:
            "Needs sudo mode (else 403 reauth_required). The metadata's entity id, single sign-on address (HTTP-Redirect or HTTP-POST) and " +
            "signing certificates replace the stored ones (audited). A metadata_url is fetched once, now, through the webhooks' address guard.",
          body: SamlPutBody,
          response: { 200: SsoSetReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => ({ status: "success" as const, connection: await ctx.auth.changes.setSamlIdp(sessionOf(ctx, req), req.body) }),
    );
    scope.delete(
      "/api/sso",
      {
        schema: {
          tags: ["sso"],
          summary: "Remove the caller's single sign-on connection (its members stay members)",
          response: { 200: OkSchema, ...errors(401, 404) },
        },
      },
      async (req) => {
        await ctx.auth.changes.removeSsoConnection(sessionOf(ctx, req, signedIn(req)));
        return { status: "success" as const };
      },
    );
    scope.post(
      "/api/sso/domains/:domain/verify",
      {
        schema: {
          tags: ["sso"],
          summary: "Check the domain's TXT record (at most once every 5 seconds per domain)",
          params: SsoDomainParams,
          response: { 200: SsoDomainReply, ...errors(401, 404, 429) },
        },
      },
      async (req) => ({ status: "success" as const, domain: await ctx.auth.changes.verifySsoDomain(sessionOf(ctx, req), req.params.domain) }),
    );
  });
}

/** Inside the operator scope (routes/admin.ts). */
export async function adminSsoRoutes(scope: App, ctx: Deps): Promise<void> {
  scope.get(
    "/api/admin/sso",
    {
      schema: {
        tags: ["operator"],
        summary: "Every Enterprise single sign-on connection with its owner and domains",
        response: { 200: AdminSsoListReply, ...errors(401, 403) },
      },
    },
    async () => ({ status: "success" as const, connections: await ctx.sso.connections.list() }),
  );
  scope.delete(
    "/api/admin/sso/:id",
    {
      schema: {
        tags: ["operator"],
        summary: "Remove a single sign-on connection (audited)",
        params: IdParams,
        response: { 200: OkSchema, ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      await ctx.sso.connections.removeById(operatorOf(req), req.params.id);
      return { status: "success" as const };
    },
  );
}
