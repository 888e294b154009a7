// Sudo mode and the account's own security activity (docs/security.md): confirming it is you before a change
// of how the account signs in, and the list of what happened to its ways in.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors } from "../../contract/common.js";
import { ActivityReply, ReauthBody, ReauthReply } from "../../contract/security.js";
import { RequestOptionsReply } from "../../contract/passkeys.js";
import { iso } from "../../shared/clock.js";
import { invalid } from "../../shared/errors.js";
import { sessionOf, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "auth" | "config" | "countries" | "sessions">;

export async function reauthRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.post(
      "/api/auth/reauth",
      {
        schema: {
          tags: ["security"],
          summary: "Confirm it is you (sudo mode): the password, or a passkey's answer; changes of how you sign in need no proof for 10 minutes",
          description:
            "Changing two-factor sign-in, passkeys, API keys, the SSO connection or the team policy answers 403 reauth_required without a proof " +
            "in the last 10 minutes of the session (a sign-in is one). Wrong passwords count with failed sign-ins (429 past the limits).",
          body: ReauthBody,
          response: { 200: ReauthReply, ...errors(400, 401, 429) },
        },
      },
      async (req) => {
        const { password, response } = req.body;
        if ((password === undefined) === (response === undefined)) throw invalid("password", "give either password or a passkey's response");
        const s = sessionOf(ctx, req, signedIn(req));
        const until = password !== undefined ? await ctx.auth.changes.reauthWithPassword(s, password) : await ctx.auth.changes.reauthWithPasskey(s, response!);
        return { status: "success" as const, sudo_until: iso(until) as string };
      },
    );

    scope.post(
      "/api/auth/reauth/passkey/options",
      {
        schema: {
          tags: ["security"],
          summary: "Confirm it is you with a passkey: options for navigator.credentials.get(), the account's passkeys only",
          response: { 200: RequestOptionsReply, ...errors(401) },
        },
      },
      async (req, reply) => {
        reply.header("Cache-Control", "no-store");
        return { status: "success" as const, options: await ctx.auth.changes.reauthPasskeyOptions(sessionOf(ctx, req, signedIn(req))) };
      },
    );

    scope.get(
      "/api/auth/activity",
      {
        schema: {
          tags: ["security"],
          summary: "My security activity of the last 90 days, newest first: sign-ins and refusals by way, second factors, passkeys, keys, sessions",
          description: "Browser, OS and country as the session list shows them; no address is kept. At most 500 entries.",
          response: { 200: ActivityReply, ...errors(401) },
        },
      },
      async (req, reply) => {
        reply.header("Cache-Control", "no-store");
        return { status: "success" as const, activity: await ctx.auth.activity.list(signedIn(req).id) };
      },
    );
  });
}
