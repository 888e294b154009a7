// The SCIM token of the caller's single sign-on connection (docs/scim.md): its state, a new one (shown once,
// replacing the old), its revocation. Inside the signed-in scope of routes/sso.ts: session and CSRF.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, OkSchema } from "../../contract/common.js";
import { ScimTokenIssuedReply, ScimTokenReply } from "../../contract/scim.js";
import { sessionOf, signedIn } from "../auth.js";

type Deps = Pick<AppContext, "auth" | "config" | "countries" | "sso">;

export async function scimTokenRoutes(scope: App, ctx: Deps): Promise<void> {
  const { tokens } = ctx.sso.scim;
  scope.get(
    "/api/sso/scim-token",
    {
      schema: {
        tags: ["sso"],
        summary: "Whether the caller's single sign-on connection has a SCIM token, since when, and the SCIM base URL (never the token)",
        response: { 200: ScimTokenReply, ...errors(401, 403, 404) },
      },
    },
    async (req, reply) => {
      reply.header("cache-control", "no-store");
      return { status: "success" as const, scim: await tokens.state(signedIn(req)) };
    },
  );
  scope.post(
    "/api/sso/scim-token",
    {
      schema: {
        tags: ["sso"],
        summary: "Make the connection's SCIM bearer token (Enterprise): answered once, only its SHA-256 kept; it replaces the previous one at once (audited)",
        description: "Needs sudo mode (else 403 reauth_required). 404 not_found without a single sign-on connection.",
        response: { 200: ScimTokenIssuedReply, ...errors(401, 403, 404) },
      },
    },
    async (req, reply) => {
      const s = sessionOf(ctx, req);
      ctx.auth.changes.requireSudo(s);
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...(await tokens.issue(s.user)) };
    },
  );
  scope.delete(
    "/api/sso/scim-token",
    {
      schema: {
        tags: ["sso"],
        summary: "Revoke the connection's SCIM token: the identity provider's next request is refused (audited)",
        description: "Needs sudo mode (else 403 reauth_required). 404 not_found when there is no token.",
        response: { 200: OkSchema, ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      const s = sessionOf(ctx, req, signedIn(req));
      ctx.auth.changes.requireSudo(s);
      await tokens.revoke(s.user);
      return { status: "success" as const };
    },
  );
}
