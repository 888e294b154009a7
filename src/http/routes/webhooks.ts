// Webhook management from the dashboard (docs/api.md, Webhooks): list, create, edit, remove, rotate the secret,
// send a test event, read the delivery log. Session + CSRF; Business and Enterprise.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams, OkSchema } from "../../contract/common.js";
import {
  CreateWebhookBody,
  DeliveryListReply,
  DeliveryReply,
  RotatedSecretReply,
  UpdateWebhookBody,
  WebhookListReply,
  WebhookOwnerQuery,
  WebhookReply,
  WithSecretReply,
} from "../../contract/webhooks.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "sessions" | "webhooks">;

export async function webhookRoutes(app: App, ctx: Deps): Promise<void> {
  const noStore = { "Cache-Control": "no-store" };

  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/webhooks",
      {
        schema: {
          tags: ["webhooks"],
          summary: "The signed-in account's webhooks (owner: a team owner's, webhooks.manage), oldest first, each with its last delivery",
          querystring: WebhookOwnerQuery,
          response: { 200: WebhookListReply, ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => {
        const webhooks = await ctx.webhooks.list(signedIn(req), req.query.owner);
        reply.headers(noStore);
        return { status: "success" as const, webhooks, private_receivers: ctx.webhooks.privateReceivers };
      },
    );

    scope.post(
      "/api/webhooks",
      {
        schema: {
          tags: ["webhooks"],
          summary:
            "Create a webhook (owner: in a team owner's account, webhooks.manage; the owner's plan and limit apply); a custom one gets its whsec_ secret here, once",
          querystring: WebhookOwnerQuery,
          body: CreateWebhookBody,
          response: { 201: WithSecretReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req, reply) => {
        const { webhook, secret } = await ctx.webhooks.create(activeUser(req), req.body, req.query.owner);
        reply.headers(noStore);
        return reply.code(201).send({ status: "success" as const, webhook, ...(secret === null ? {} : { secret }) });
      },
    );

    scope.patch(
      "/api/webhooks/:id",
      {
        schema: {
          tags: ["webhooks"],
          summary: "Rename, change the address (checked again), activate or deactivate",
          params: IdParams,
          body: UpdateWebhookBody,
          response: { 200: WebhookReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => {
        const webhook = await ctx.webhooks.update(activeUser(req), req.params.id, req.body);
        return { status: "success" as const, webhook };
      },
    );

    scope.delete(
      "/api/webhooks/:id",
      {
        schema: {
          tags: ["webhooks"],
          summary: "Remove a webhook and its delivery log",
          params: IdParams,
          response: { 200: OkSchema, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        // Removing stays possible for a suspended account or a lower plan: it only takes something away.
        await ctx.webhooks.remove(signedIn(req), req.params.id);
        return { status: "success" as const };
      },
    );

    scope.post(
      "/api/webhooks/:id/secret",
      {
        schema: {
          tags: ["webhooks"],
          summary: "A new secret for a custom webhook, shown once; the old one stops signing at once",
          params: IdParams,
          response: { 200: RotatedSecretReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req, reply) => {
        const { webhook, secret } = await ctx.webhooks.rotateSecret(activeUser(req), req.params.id);
        reply.headers(noStore);
        return { status: "success" as const, webhook, secret };
      },
    );

    scope.post(
      "/api/webhooks/:id/test",
      {
        schema: {
          tags: ["webhooks"],
          summary: 'Deliver one test link_click ("test": true) now; answers with the delivery',
          params: IdParams,
          response: { 200: DeliveryReply, ...errors(401, 403, 404, 429) },
        },
      },
      async (req) => {
        const delivery = await ctx.webhooks.sendTest(activeUser(req), req.params.id);
        return { status: "success" as const, delivery };
      },
    );

    scope.get(
      "/api/webhooks/:id/deliveries",
      {
        schema: {
          tags: ["webhooks"],
          summary: "The webhook's last deliveries, newest first",
          params: IdParams,
          response: { 200: DeliveryListReply, ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => {
        const deliveries = await ctx.webhooks.deliveries(signedIn(req), req.params.id);
        reply.headers(noStore);
        return { status: "success" as const, deliveries };
      },
    );
  });
}
