// The connectors' messages for lead.created, sale.created and link.split_decided (docs/webhooks.md, Events): one
// line each, user-given text escaped for each chat tool, a custom receiver's body the event itself; and the
// events list of the contract is the bus's registry.
import { describe, expect, it } from "vitest";
import { bodyFor } from "../../src/webhooks/payload.js";
import type { OutwardWebhookEvent } from "../../src/webhooks/event-messages.js";
import { WEBHOOK_EVENTS, WebhookEventSchema } from "../../src/contract/webhooks.js";
import { WEBHOOK_EVENT_LABELS } from "../../src/contract/tables.js";
import { OUTWARD_EVENTS } from "../../src/shared/events.js";

const link = { id: "l1", alias: "promo", domain: null, short_url: "https://s.example.com/promo", url: "https://example.com/", folder_id: null };
const sale: OutwardWebhookEvent = {
  version: 1,
  id: "d1",
  type: "sale.created",
  created_at: "2026-01-01T00:00:00.000Z",
  test: false,
  link,
  sale: { event_name: "<Pro> *plan*", amount: 4999, currency: "EUR" },
};

describe("outward webhook events", () => {
  it("a custom receiver gets the event as JSON", () => {
    expect(JSON.parse(bodyFor("custom", sale))).toEqual(sale);
  });

  it("Slack, Discord and Teams get one escaped line", () => {
    expect(JSON.parse(bodyFor("slack", sale))).toEqual({ text: 'Sale "&lt;Pro&gt; *plan*" of 4999 (minor units) EUR from https://s.example.com/promo' });
    expect(JSON.parse(bodyFor("discord", sale))).toEqual({
      content: 'Sale "\\<Pro\\> \\*plan\\*" of 4999 (minor units) EUR from https://s.example.com/promo',
      allowed_mentions: { parse: [] },
    });
    const teams = JSON.parse(bodyFor("teams", { ...sale, type: "lead.created", sale: undefined, lead: { event_name: "Sign_up" }, test: true }));
    expect(teams.attachments[0].content.body).toEqual([
      { type: "TextBlock", text: 'Lead "Sign%5Fup" from https://s.example.com/promo (test event)', wrap: true },
    ]);
    expect(teams.attachments[0].content.actions).toBeUndefined();
    const split = JSON.parse(bodyFor("slack", { ...sale, type: "link.split_decided", sale: undefined, decision: { summary: "variant:2 won" } }));
    expect(split).toEqual({ text: "Split of https://s.example.com/promo decided: variant:2 won" });
  });

  it("the contract's events are link_click and the bus's outward events, and its schema admits exactly them", () => {
    expect(WEBHOOK_EVENTS).toEqual(["link_click", ...OUTWARD_EVENTS]);
    expect(WebhookEventSchema.anyOf.map((s: { const: string }) => s.const)).toEqual([...WEBHOOK_EVENTS]);
    // The dashboard's words for them: one per event, in the same order.
    expect(WEBHOOK_EVENT_LABELS.map((e) => e.event)).toEqual([...WEBHOOK_EVENTS]);
  });
});
