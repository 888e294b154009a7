// The webhooks page's calls: subscriptions, their secrets, a test delivery and the delivery log.
import { call, snip } from "../shared/api";
import type { CreateWebhookFields, UpdateWebhookFields } from "@contract/webhooks";

const byId = (id: string) => ({ params: { path: { id } } });

export const webhooksApi = {
  /** The webhooks, and whether WEBHOOK_ALLOW_PRIVATE lets receivers be on loopback and private networks. */
  listWebhooks: () => call(snip.GET("/api/webhooks")),
  createWebhook: (body: CreateWebhookFields) => call(snip.POST("/api/webhooks", { body })),
  updateWebhook: (id: string, body: UpdateWebhookFields) => call(snip.PATCH("/api/webhooks/{id}", { ...byId(id), body })).then((r) => r.webhook),
  deleteWebhook: (id: string) => call(snip.DELETE("/api/webhooks/{id}", byId(id))),
  rotateWebhookSecret: (id: string) => call(snip.POST("/api/webhooks/{id}/secret", byId(id))),
  testWebhook: (id: string) => call(snip.POST("/api/webhooks/{id}/test", byId(id))).then((r) => r.delivery),
  webhookDeliveries: (id: string) => call(snip.GET("/api/webhooks/{id}/deliveries", byId(id))).then((r) => r.deliveries),
};
