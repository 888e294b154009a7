// Passkeys (docs/passkeys.md): register while signed in, sign in with one alone, list, rename, remove with the
// password. Every ceremony's challenge is bound to the session cookie (the CSRF check guarantees there is one).
import type { FastifyRequest } from "fastify";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { publicUser } from "../../accounts/accounts.js";
import { IdParams, OkSchema, errors } from "../../contract/common.js";
import { SignedInReply } from "../../contract/accounts.js";
import {
  CreationOptionsReply,
  LoginVerifyBody,
  PasskeyListReply,
  PasskeyReply,
  RegisterVerifyBody,
  RemovePasskeyBody,
  RenamePasskeyBody,
  RequestOptionsReply,
} from "../../contract/passkeys.js";
import { DomainError } from "../../shared/errors.js";
import { sessionOf, signedIn, signedInRoutes, startSession, visitorOf } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "auth" | "config" | "countries" | "passkeys" | "sessions">;

const TAGS = ["passkeys"];

/** The session id the ceremony's challenge is bound to; state-changing routes have one once CSRF passed. */
function binding(req: FastifyRequest): string {
  if (!req.sessionId) throw new DomainError("csrf_failed", "Fetch /api/auth/session first");
  return req.sessionId;
}

export async function passkeyRoutes(app: App, ctx: Deps): Promise<void> {
  app.post(
    "/api/auth/passkeys/login/options",
    {
      schema: {
        tags: TAGS,
        summary: "Start a sign-in with a passkey: options for navigator.credentials.get() (discoverable credentials)",
        description: "At most 100 starts per address in 15 minutes, and none while the address has 50 failed sign-ins (429).",
        response: { 200: RequestOptionsReply, ...errors(403, 429) },
      },
    },
    async (req, reply) => {
      const options = await ctx.auth.door.passkeyOptions(binding(req), req.ip);
      reply.header("Cache-Control", "no-store");
      return { status: "success" as const, options };
    },
  );

  app.post(
    "/api/auth/passkeys/login/verify",
    {
      schema: {
        tags: TAGS,
        summary: "Finish a sign-in with a passkey; the session id and CSRF token rotate as at a password sign-in",
        body: LoginVerifyBody,
        description:
          "A refused answer counts among the address's failed sign-ins, which the password form shares (50 in 15 minutes, then 429). " +
          "The same policies as a password sign-in: 403 sso_required under Require SSO or OIDC_ONLY.",
        response: { 200: SignedInReply, ...errors(400, 401, 403, 429) },
      },
    },
    async (req, reply) => {
      const opened = await ctx.auth.door.passkey(binding(req), req.body.response, visitorOf(ctx, req));
      const csrf = startSession(ctx, req, reply, opened);
      return { status: "success" as const, user: publicUser(opened.user), csrf_token: csrf };
    },
  );

  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/auth/passkeys",
      { schema: { tags: TAGS, summary: "The signed-in user's passkeys, oldest first", response: { 200: PasskeyListReply, ...errors(401) } } },
      async (req, reply) => {
        reply.header("Cache-Control", "no-store");
        return { status: "success" as const, passkeys: await ctx.passkeys.list(signedIn(req).id) };
      },
    );

    scope.post(
      "/api/auth/passkeys/register/options",
      {
        schema: {
          tags: TAGS,
          summary: "Start adding a passkey: options for navigator.credentials.create()",
          description: "Needs sudo mode (a sign-in or POST /api/auth/reauth in the last 10 minutes): else 403 reauth_required.",
          response: { 200: CreationOptionsReply, ...errors(401, 403) },
        },
      },
      async (req, reply) => {
        binding(req);
        const options = await ctx.auth.changes.passkeyRegistrationOptions(sessionOf(ctx, req));
        reply.header("Cache-Control", "no-store");
        return { status: "success" as const, options };
      },
    );

    scope.post(
      "/api/auth/passkeys/register/verify",
      {
        schema: {
          tags: TAGS,
          summary: 'Finish adding a passkey with the authenticator\'s answer; `name` defaults to "Passkey N"',
          body: RegisterVerifyBody,
          response: { 201: PasskeyReply, ...errors(400, 401, 403, 409) },
        },
      },
      async (req, reply) => {
        const passkey = await ctx.auth.changes.addPasskey(sessionOf(ctx, req), req.body);
        return reply.code(201).send({ status: "success" as const, passkey });
      },
    );

    scope.patch(
      "/api/auth/passkeys/:id",
      {
        schema: {
          tags: TAGS,
          summary: "Rename a passkey",
          params: IdParams,
          body: RenamePasskeyBody,
          response: { 200: PasskeyReply, ...errors(400, 401, 404) },
        },
      },
      async (req) => ({ status: "success" as const, passkey: await ctx.passkeys.rename(signedIn(req), req.params.id, req.body.name) }),
    );

    scope.delete(
      "/api/auth/passkeys/:id",
      {
        schema: {
          tags: TAGS,
          summary: "Remove a passkey; needs the account password",
          params: IdParams,
          body: RemovePasskeyBody,
          response: { 200: OkSchema, ...errors(400, 401, 404, 429) },
        },
      },
      async (req) => {
        await ctx.auth.changes.removePasskey(sessionOf(ctx, req, signedIn(req)), req.params.id, req.body.password);
        return { status: "success" as const };
      },
    );
  });
}
