// The events a webhook may take beside link_click (docs/webhooks.md, Lead, sale and split events): their JSON for
// custom receivers (signed like link_click) and a one-line chat message for the Slack, Discord and Teams connectors.
import { adaptiveCardMessage, escapeDiscord, escapeSlack, teamsText } from "./chat-escapes.js";

export interface OutwardWebhookEvent {
  version: 1;
  id: string;
  type: "lead.created" | "sale.created" | "link.split_decided" | "app.install" | "app.open" | "link.broken" | "link.recovered";
  created_at: string;
  test: boolean;
  link: { id: string; alias: string; domain: string | null; short_url: string; url: string; folder_id: string | null };
  /** The event's own object: `lead`, `sale` or `decision`. */
  lead?: Record<string, unknown>;
  sale?: Record<string, unknown>;
  decision?: Record<string, unknown>;
  app_event?: Record<string, unknown>;
  /** link.broken and link.recovered: the destination and its last check (docs/health.md, Events). */
  health?: Record<string, unknown>;
}

/** What the chat line says: the short URL and the event's main facts (never a customer's name or email), `esc` on what users gave. */
function line(e: OutwardWebhookEvent, esc: (text: string) => string): string {
  const mark = e.test ? " (test event)" : "";
  const url = esc(e.link.short_url);
  if (e.type === "lead.created") return `Lead "${esc(String(e.lead?.event_name))}" from ${url}${mark}`;
  if (e.type === "sale.created") {
    const amount = Number(e.sale?.amount);
    return `Sale "${esc(String(e.sale?.event_name))}" of ${amount} (minor units) ${esc(String(e.sale?.currency))} from ${url}${mark}`;
  }
  if (e.type === "app.install") return `App installed from ${url} (${esc(String(e.app_event?.match))} match)${mark}`;
  if (e.type === "app.open") return `App opened from ${url}${mark}`;
  if (e.type === "link.broken") return `Destination ${esc(String(e.health?.url))} of ${url} is broken (${esc(String(e.health?.result))})${mark}`;
  if (e.type === "link.recovered") return `Destination ${esc(String(e.health?.url))} of ${url} recovered${mark}`;
  return `Split of ${url} decided${mark}: ${esc(String(e.decision?.summary))}`;
}

export function outwardChatBody(kind: "slack" | "discord" | "teams", e: OutwardWebhookEvent): string {
  if (kind === "slack") return JSON.stringify({ text: line(e, escapeSlack) });
  if (kind === "discord") return JSON.stringify({ content: line(e, escapeDiscord), allowed_mentions: { parse: [] as string[] } });
  return JSON.stringify(adaptiveCardMessage([{ type: "TextBlock", text: line(e, teamsText), wrap: true }]));
}
