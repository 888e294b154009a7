// Webhook management from the dashboard (API.md, Webhooks): list, create, edit, remove, rotate the secret,
// send a test event, read the delivery log. Session + CSRF; Business and Enterprise.
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { Body, OkSchema, errors } from "../schemas.js";
import { requireActiveUser, requireUser } from "../auth.js";

const DeliverySchema = Type.Object({
  id: Type.String({ description: "The X-Snip-Delivery id" }),
  event: Type.String(),
  at: Type.String(),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP status, null when it did not answer" }),
  error: Type.Union([Type.String(), Type.Null()], { description: "Why the delivery failed (timeout, redirect, refused address...), null on success" }),
  duration_ms: Type.Integer(),
});

const KindSchema = Type.Union([Type.Literal("custom"), Type.Literal("slack"), Type.Literal("discord"), Type.Literal("teams")]);

const WebhookSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  kind: KindSchema,
  active: Type.Boolean(),
  created_at: Type.String(),
  last_delivery: Type.Union([DeliverySchema, Type.Null()]),
  dropped: Type.Integer({ description: "Events dropped because the webhook's queue was full (slow or dead receiver)" }),
});

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const WebhookReply = Type.Object({ status: Type.Literal("success"), webhook: WebhookSchema });
const WithSecret = Type.Object({ status: Type.Literal("success"), webhook: WebhookSchema, secret: Type.Optional(Type.String({ description: "whsec_..., shown once" })) });

export async function webhookRoutes(app: App, ctx: AppContext): Promise<void> {
  const noStore = { "Cache-Control": "no-store" };

  app.get(
    "/api/webhooks",
    {
      schema: {
        tags: ["webhooks"],
        summary: "The signed-in account's webhooks, oldest first, each with its last delivery",
        response: { 200: Type.Object({ status: Type.Literal("success"), webhooks: Type.Array(WebhookSchema) }), ...errors(401, 403) },
      },
    },
    async (req, reply) => {
      const webhooks = await ctx.webhooks.list(await requireUser(ctx, req));
      reply.headers(noStore);
      return { status: "success" as const, webhooks };
    },
  );

  app.post(
    "/api/webhooks",
    {
      schema: {
        tags: ["webhooks"],
        summary: "Create a webhook; a custom one gets its whsec_ secret here, once",
        body: Body({ name: Type.String({ maxLength: 1000 }), url: Type.String({ maxLength: 4096 }), kind: Type.Optional(KindSchema) }),
        response: { 201: WithSecret, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => {
      const { webhook, secret } = await ctx.webhooks.create(await requireActiveUser(ctx, req), req.body);
      reply.headers(noStore);
      return reply.code(201).send({ status: "success" as const, webhook, ...(secret === null ? {} : { secret }) });
    },
  );

  app.patch(
    "/api/webhooks/:id",
    {
      schema: {
        tags: ["webhooks"],
        summary: "Rename, change the address (checked again), activate or deactivate",
        params: IdParams,
        body: Body({ name: Type.Optional(Type.String({ maxLength: 1000 })), url: Type.Optional(Type.String({ maxLength: 4096 })), active: Type.Optional(Type.Boolean()) }),
        response: { 200: WebhookReply, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const webhook = await ctx.webhooks.update(await requireActiveUser(ctx, req), req.params.id, req.body);
      return { status: "success" as const, webhook };
    },
  );

  app.delete(
    "/api/webhooks/:id",
    {
      schema: { tags: ["webhooks"], summary: "Remove a webhook and its delivery log", params: IdParams, response: { 200: OkSchema, ...errors(401, 403, 404) } },
    },
    async (req) => {
      // Removing stays possible for a suspended account or a lower plan: it only takes something away.
      await ctx.webhooks.remove(await requireUser(ctx, req), req.params.id);
      return { status: "success" as const };
    },
  );

  app.post(
    "/api/webhooks/:id/secret",
    {
      schema: {
        tags: ["webhooks"],
        summary: "A new secret for a custom webhook, shown once; the old one stops signing at once",
        params: IdParams,
        response: { 200: Type.Object({ status: Type.Literal("success"), webhook: WebhookSchema, secret: Type.String() }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      const { webhook, secret } = await ctx.webhooks.rotateSecret(await requireActiveUser(ctx, req), req.params.id);
      reply.headers(noStore);
      return { status: "success" as const, webhook, secret };
    },
  );

  app.post(
    "/api/webhooks/:id/test",
    {
      schema: {
        tags: ["webhooks"],
        summary: "Deliver one test link_click (\"test\": true) now; answers with the delivery",
        params: IdParams,
        response: { 200: Type.Object({ status: Type.Literal("success"), delivery: DeliverySchema }), ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      const delivery = await ctx.webhooks.sendTest(await requireActiveUser(ctx, req), req.params.id);
      return { status: "success" as const, delivery };
    },
  );

  app.get(
    "/api/webhooks/:id/deliveries",
    {
      schema: {
        tags: ["webhooks"],
        summary: "The webhook's last deliveries, newest first",
        params: IdParams,
        response: { 200: Type.Object({ status: Type.Literal("success"), deliveries: Type.Array(DeliverySchema) }), ...errors(401, 403, 404) },
      },
    },
    async (req, reply) => {
      const deliveries = await ctx.webhooks.deliveries(await requireUser(ctx, req), req.params.id);
      reply.headers(noStore);
      return { status: "success" as const, deliveries };
    },
  );
}
