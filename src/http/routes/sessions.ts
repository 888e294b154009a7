// The signed-in user's sessions (docs/api.md, Security): list, end one, end all others; and the Enterprise
// owner's team policy (members need two-factor sign-in).
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { OkSchema, errors } from "../../contract/common.js";
import { RevokedReply, SessionParams, SessionsReply, TeamPolicyBody, TeamPolicyReply } from "../../contract/security.js";
import { sessionOf, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "auth" | "config" | "countries" | "sessions" | "teamPolicy">;

export async function sessionRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/auth/sessions",
      {
        schema: {
          tags: ["security"],
          summary: "Where I am signed in: browser, OS, country when known, created and last seen; this device marked current",
          response: { 200: SessionsReply, ...errors(401) },
        },
      },
      async (req, reply) => {
        reply.header("Cache-Control", "no-store");
        return { status: "success" as const, sessions: await ctx.sessions.list(signedIn(req).id, req.sessionId) };
      },
    );

    scope.delete(
      "/api/auth/sessions/:id",
      {
        schema: {
          tags: ["security"],
          summary: "Sign one of my sessions out (refused at once on every instance)",
          params: SessionParams,
          response: { 200: OkSchema, ...errors(401, 404) },
        },
      },
      async (req) => {
        await ctx.auth.changes.revokeSession(sessionOf(ctx, req, signedIn(req)), req.params.id);
        return { status: "success" as const };
      },
    );

    scope.post(
      "/api/auth/sessions/revoke-others",
      { schema: { tags: ["security"], summary: "Sign out everywhere else: every session but this one ends", response: { 200: RevokedReply, ...errors(401) } } },
      async (req) => ({ status: "success" as const, revoked: await ctx.auth.changes.revokeOtherSessions(sessionOf(ctx, req, signedIn(req))) }),
    );

    scope.get(
      "/api/team/policy",
      { schema: { tags: ["team"], summary: "My team's policy: whether members need two-factor sign-in", response: { 200: TeamPolicyReply, ...errors(401) } } },
      async (req) => ({ status: "success" as const, ...ctx.teamPolicy.get(signedIn(req)) }),
    );

    scope.put(
      "/api/team/policy",
      {
        schema: {
          tags: ["team"],
          summary: "Require two-factor sign-in of my team's members (Enterprise): one without it is refused my links with 2fa_setup_required",
          description: "Needs sudo mode (a sign-in or POST /api/auth/reauth in the last 10 minutes): else 403 reauth_required.",
          body: TeamPolicyBody,
          response: { 200: TeamPolicyReply, ...errors(400, 401, 403) },
        },
      },
      async (req) => ({ status: "success" as const, ...(await ctx.auth.changes.setTeamPolicy(sessionOf(ctx, req), req.body.require_2fa)) }),
    );
  });
}
