// Webhooks as their owner manages them (docs/api.md, Webhooks): never the secret, which is shown once.
import { Type, type Static } from "typebox";
import { Body, TeamOwnerParam } from "./common.js";

/** List or create with it: a team owner's webhooks (webhooks.manage, docs/roles.md). */
export const WebhookOwnerQuery = TeamOwnerParam("that owner's webhooks (webhooks.manage)");
import { OUTWARD_EVENTS } from "../shared/events.js";

export const DeliverySchema = Type.Object({
  id: Type.String({ description: "The X-Snip-Delivery id" }),
  event: Type.String(),
  at: Type.String(),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP status, null when it did not answer" }),
  error: Type.Union([Type.String(), Type.Null()], { description: "Why the delivery failed (timeout, redirect, refused address...), null on success" }),
  duration_ms: Type.Integer(),
  test: Type.Boolean({ description: 'The dashboard\'s test event (its payload has "test": true)' }),
  payload: Type.Union([Type.String(), Type.Null()], { description: "The request body as sent (JSON text); null for deliveries logged before it was kept" }),
});
export type WebhookDelivery = Static<typeof DeliverySchema>;

export const KindSchema = Type.Union([Type.Literal("custom"), Type.Literal("slack"), Type.Literal("discord"), Type.Literal("teams")]);
export type WebhookKind = Static<typeof KindSchema>;

/** The events a webhook may take: the spec's link_click, and those it opts into (docs/webhooks.md, Events). */
export const WEBHOOK_EVENTS = ["link_click", ...OUTWARD_EVENTS] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
/** WEBHOOK_EVENTS as a schema (test/unit/webhook-events.test.ts checks they are the same). */
export const WebhookEventSchema = Type.Union([
  Type.Literal("link_click"),
  Type.Literal("lead.created"),
  Type.Literal("sale.created"),
  Type.Literal("link.split_decided"),
  Type.Literal("app.install"),
  Type.Literal("app.open"),
  Type.Literal("link.broken"),
  Type.Literal("link.recovered"),
]);
const EventsField = Type.Array(WebhookEventSchema, {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length,
  uniqueItems: true,
  description:
    "The events it takes; link_click alone unless it opts into lead.created, sale.created, link.split_decided, app.install, app.open, link.broken or link.recovered",
});

export const WebhookSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  kind: KindSchema,
  active: Type.Boolean(),
  created_at: Type.String(),
  last_delivery: Type.Union([DeliverySchema, Type.Null()]),
  dropped: Type.Integer({ description: "Events dropped because the webhook's queue was full (slow or dead receiver)" }),
  events: EventsField,
});
export type Webhook = Static<typeof WebhookSchema>;

export const WebhookReply = Type.Object({ status: Type.Literal("success"), webhook: WebhookSchema });
export type WebhookReply = Static<typeof WebhookReply>;
export const WebhookListReply = Type.Object({
  status: Type.Literal("success"),
  webhooks: Type.Array(WebhookSchema),
  private_receivers: Type.Boolean({ description: "WEBHOOK_ALLOW_PRIVATE: loopback and private-network receivers are accepted" }),
});
export type WebhookListReply = Static<typeof WebhookListReply>;
/** A creation's answer: a custom webhook's secret, once. */
export const WithSecretReply = Type.Object({
  status: Type.Literal("success"),
  webhook: WebhookSchema,
  secret: Type.Optional(Type.String({ description: "whsec_..., shown once" })),
});
export type WithSecretReply = Static<typeof WithSecretReply>;
export const RotatedSecretReply = Type.Object({ status: Type.Literal("success"), webhook: WebhookSchema, secret: Type.String() });
export type RotatedSecretReply = Static<typeof RotatedSecretReply>;
export const DeliveryReply = Type.Object({ status: Type.Literal("success"), delivery: DeliverySchema });
export type DeliveryReply = Static<typeof DeliveryReply>;
export const DeliveryListReply = Type.Object({ status: Type.Literal("success"), deliveries: Type.Array(DeliverySchema) });
export type DeliveryListReply = Static<typeof DeliveryListReply>;

export const CreateWebhookBody = Body({
  name: Type.String({ maxLength: 1000 }),
  url: Type.String({ maxLength: 4096 }),
  kind: Type.Optional(KindSchema),
  events: Type.Optional(EventsField),
});
export type CreateWebhookFields = Static<typeof CreateWebhookBody>;
export const UpdateWebhookBody = Body({
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  url: Type.Optional(Type.String({ maxLength: 4096 })),
  active: Type.Optional(Type.Boolean()),
  events: Type.Optional(EventsField),
});
export type UpdateWebhookFields = Static<typeof UpdateWebhookBody>;
