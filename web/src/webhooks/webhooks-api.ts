// The webhooks page's calls: subscriptions, their secrets, a test delivery and the delivery log.
import { call, ownerQuery, snip } from "../shared/api";
import type { CreateWebhookFields, UpdateWebhookFields } from "@contract/webhooks";

const byId = (id: string) => ({ params: { path: { id } } });

export const webhooksApi = {
  /** The webhooks, and whether WEBHOOK_ALLOW_PRIVATE lets receivers be on loopback and private networks. */
  listWebhooks: (owner: string | null) => call(snip.GET("/api/webhooks", ownerQuery(owner))),
  /** `owner`: in a team owner's account (an admin's, docs/roles.md); the routes by id need nothing more. */
  createWebhook: (body: CreateWebhookFields, owner: string | null) => call(snip.POST("/api/webhooks", { ...ownerQuery(owner), body })),
  updateWebhook: (id: string, body: UpdateWebhookFields) => call(snip.PATCH("/api/webhooks/{id}", { ...byId(id), body })).then((r) => r.webhook),
  deleteWebhook: (id: string) => call(snip.DELETE("/api/webhooks/{id}", byId(id))),
  rotateWebhookSecret: (id: string) => call(snip.POST("/api/webhooks/{id}/secret", byId(id))),
  testWebhook: (id: string) => call(snip.POST("/api/webhooks/{id}/test", byId(id))).then((r) => r.delivery),
  webhookDeliveries: (id: string) => call(snip.GET("/api/webhooks/{id}/deliveries", byId(id))).then((r) => r.deliveries),
};
