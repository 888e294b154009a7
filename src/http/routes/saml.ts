// SAML single sign-on's public routes (docs/sso.md, SAML): snip's service-provider metadata per connection, the
// start by connection (an app tile's initiate-login address), and the Assertion Consumer Service the identity
// provider's page posts to. The owner's PUT /api/sso/saml is with the connection's routes (routes/sso.ts).
import type { FastifyReply } from "fastify";
import type { App } from "../app-type.js";
import { formBodies } from "../form-body.js";
import type { AppContext } from "../../context.js";
import { errors } from "../../contract/common.js";
import { DomainError } from "../../shared/errors.js";
import { SamlAcsBody, SamlConnectionParams, SamlStartQuery } from "../../contract/sso.js";
import { startSession, visitorOf } from "../auth.js";
import { SAML_PATH } from "../../sso/saml-settings.js";
import { SAML_RETURN_COOKIE, SAML_STATE_COOKIE, landingPath, refuse } from "./sso-answers.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "auth" | "config" | "countries" | "sessions" | "sso">;

/** The largest ACS form taken (SAMLResponse itself is refused above 256 KB with 400). */
const ACS_FORM_LIMIT = 1024 * 1024;

/** A SAML sign-in started: its cookies (for the ACS's path), then the AuthnRequest by redirect or auto-posted form. */
export function samlStarted(
  ctx: Pick<Deps, "config">,
  reply: FastifyReply,
  started: { state: string; redirect: string | null; form: string | null },
  returnTo: string | undefined,
) {
  // The ACS is posted from the provider's site: only SameSite=None (which needs Secure) carries the cookie there.
  const secure = ctx.config.secureCookies;
  const cookie = { httpOnly: true, sameSite: secure ? ("none" as const) : ("lax" as const), path: SAML_PATH, secure, maxAge: 600 };
  reply.setCookie(SAML_STATE_COOKIE, started.state, cookie);
  reply.setCookie(SAML_RETURN_COOKIE, landingPath(returnTo), cookie);
  reply.header("cache-control", "no-store");
  if (started.redirect) return reply.redirect(started.redirect, 302);
  // node-saml's form posts the AuthnRequest to the provider by script, with a button where scripts are off.
  return reply
    .type("text/html; charset=utf-8")
    .header("content-security-policy", "default-src 'none'; script-src 'unsafe-inline'; form-action *")
    .send(started.form);
}

export async function samlRoutes(app: App, ctx: Deps): Promise<void> {
  app.get(
    "/api/sso/saml/:connection/metadata",
    {
      schema: {
        tags: ["auth"],
        summary: "snip's SAML service-provider metadata for a connection (XML): entity id, ACS URL (HTTP-POST), signing certificate",
        params: SamlConnectionParams,
        response: errors(404),
      },
    },
    async (req, reply) => {
      const xml = await ctx.sso.saml.spMetadata(req.params.connection);
      if (xml === null) throw new DomainError("not_found", "There is no SAML connection here");
      return reply.type("application/samlmetadata+xml; charset=utf-8").header("cache-control", "public, max-age=300").send(xml);
    },
  );

  app.get(
    "/api/sso/saml/:connection/start",
    {
      schema: {
        tags: ["auth"],
        summary: "Start a SAML sign-in through a connection: 302 to the identity provider with a signed AuthnRequest (or a form posting it)",
        params: SamlConnectionParams,
        querystring: SamlStartQuery,
        response: errors(404, 429),
      },
    },
    async (req, reply) => {
      try {
        return samlStarted(ctx, reply, await ctx.sso.signIn.startSaml(req.params.connection, req.ip), req.query.return_to);
      } catch (err) {
        return refuse(req, reply, err);
      }
    },
  );

  await app.register(async (plain) => {
    const scope = plain as unknown as App;
    // The identity provider's browser form posts urlencoded: a parser for this scope only.
    formBodies(scope, ACS_FORM_LIMIT);
    scope.post(
      "/api/sso/saml/:connection/acs",
      {
        // Posted by the identity provider's page: no session or CSRF token; the sign-in's cookie and InResponseTo bind it.
        config: { csrf: false },
        schema: {
          tags: ["auth"],
          summary: "The SAML Assertion Consumer Service (HTTP-POST): signs in and sends to /app, or back to /app/login?sso_error=",
          params: SamlConnectionParams,
          body: SamlAcsBody,
          response: errors(400, 403, 404, 413),
        },
      },
      async (req, reply) => {
        try {
          const opened = await ctx.auth.door.saml(req.params.connection, req.body.SAMLResponse, req.cookies[SAML_STATE_COOKIE], visitorOf(ctx, req));
          startSession(ctx, req, reply, opened);
          reply.clearCookie(SAML_STATE_COOKIE, { path: SAML_PATH });
          reply.clearCookie(SAML_RETURN_COOKIE, { path: SAML_PATH });
          reply.header("cache-control", "no-store");
          return reply.redirect(landingPath(req.cookies[SAML_RETURN_COOKIE]), 303);
        } catch (err) {
          reply.clearCookie(SAML_STATE_COOKIE, { path: SAML_PATH });
          return refuse(req, reply, err);
        }
      },
    );
  });
}
