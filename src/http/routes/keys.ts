// API key management from the profile (docs/api.md, API keys): list, create (secret shown once), revoke.
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { publicApiKey } from "../../accounts/api-keys.js";
import { errors } from "../../contract/common.js";
import { CreateKeyBody, CreatedKeyReply, KeyListReply, KeyReply } from "../../contract/api-keys.js";
import { sessionOf, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "apiKeys" | "auth" | "config" | "countries" | "sessions">;

export async function keyRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/keys",
      {
        schema: {
          tags: ["api keys"],
          summary: "The signed-in user's API keys, newest first, revoked ones included",
          response: { 200: KeyListReply, ...errors(401) },
        },
      },
      async (req, reply) => {
        const keys = await ctx.apiKeys.list(signedIn(req));
        reply.header("Cache-Control", "no-store");
        return { status: "success" as const, keys: keys.map(publicApiKey) };
      },
    );

    scope.post(
      "/api/keys",
      {
        schema: {
          tags: ["api keys"],
          summary: "Create an API key with its scopes (default links:create) and optional expiry; the secret is returned once and stored only as a hash",
          description: "Needs sudo mode (a sign-in or POST /api/auth/reauth in the last 10 minutes): else 403 reauth_required. The account is emailed.",
          body: CreateKeyBody,
          response: { 201: CreatedKeyReply, ...errors(400, 401, 403) },
        },
      },
      async (req, reply) => {
        const { key, secret } = await ctx.auth.changes.createApiKey(sessionOf(ctx, req), req.body);
        reply.header("Cache-Control", "no-store");
        return reply.code(201).send({ status: "success" as const, key: publicApiKey(key), secret });
      },
    );

    scope.delete(
      "/api/keys/:id",
      {
        schema: {
          tags: ["api keys"],
          summary: "Revoke an API key; it is refused from the next request on",
          params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
          response: { 200: KeyReply, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        // Revoking stays possible for a suspended account: it only takes access away.
        const key = await ctx.auth.changes.revokeApiKey(sessionOf(ctx, req, signedIn(req)), req.params.id);
        return { status: "success" as const, key: publicApiKey(key) };
      },
    );
  });
}
