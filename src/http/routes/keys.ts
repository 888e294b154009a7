// API key management from the profile (API.md, API keys): list, create (secret shown once), revoke.
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { publicApiKey } from "../../accounts/api-keys.js";
import { Body, errors } from "../schemas.js";
import { requireActiveUser, requireUser } from "../auth.js";

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: "The first characters of the secret, for recognising the key" }),
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
});

const KeyReply = Type.Object({ status: Type.Literal("success"), key: ApiKeySchema });

export async function keyRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    "/api/keys",
    {
      schema: {
        tags: ["api keys"],
        summary: "The signed-in user's API keys, newest first, revoked ones included",
        response: { 200: Type.Object({ status: Type.Literal("success"), keys: Type.Array(ApiKeySchema) }), ...errors(401) },
      },
    },
    async (req, reply) => {
      const keys = await ctx.apiKeys.list(await requireUser(ctx, req));
      reply.header("Cache-Control", "no-store");
      return { status: "success" as const, keys: keys.map(publicApiKey) };
    },
  );

  app.post(
    "/api/keys",
    {
      schema: {
        tags: ["api keys"],
        summary: "Create an API key; the secret is returned once and stored only as a hash",
        body: Body({ name: Type.String({ maxLength: 1000 }) }),
        response: { 201: Type.Object({ status: Type.Literal("success"), key: ApiKeySchema, secret: Type.String() }), ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => {
      const user = await requireActiveUser(ctx, req);
      const { key, secret } = await ctx.apiKeys.create(user, req.body.name);
      reply.header("Cache-Control", "no-store");
      return reply.code(201).send({ status: "success" as const, key: publicApiKey(key), secret });
    },
  );

  app.delete(
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
      const key = await ctx.apiKeys.revoke(await requireUser(ctx, req), req.params.id);
      return { status: "success" as const, key: publicApiKey(key) };
    },
  );
}
