// The link_click event as docs/webhooks.md gives it (version 1, no IP address; receivers depend on it), and the body each kind receives:
// the service's own JSON for custom receivers, a chat message for the Slack, Discord and Teams connectors.
import type { WebhookKind } from "./address-guard.js";
import { adaptiveCardMessage, escapeDiscord, escapeSlack, teamsText } from "./chat-escapes.js";
import { type OutwardWebhookEvent, outwardChatBody } from "./event-messages.js";

export { escapeDiscord, escapeSlack, teamsText };

export interface LinkClickEvent {
  version: 1;
  id: string;
  type: "link_click";
  created_at: string;
  test: boolean;
  link: { id: string; alias: string; domain: string | null; short_url: string; url: string; folder_id: string | null };
  click: {
    at: string;
    country: string | null;
    device: string;
    os: string | null;
    browser: string | null;
    referrer_host: string | null;
    bot: boolean;
    /** Where the visit went: default (the link's url), rule:N, ios, android or variant:N. */
    destination: string;
    /** "qr" for a scan of the link's QR code (the short URL with ?qr=1), else "link". */
    source: "link" | "qr";
  };
}

/** Every event a webhook may be sent. */
export type WebhookEvent = LinkClickEvent | OutwardWebhookEvent;

/** The JSON body for a webhook of this kind. */
export function bodyFor(kind: WebhookKind, event: WebhookEvent): string {
  if (event.type !== "link_click") return kind === "custom" ? JSON.stringify(event) : outwardChatBody(kind, event);
  switch (kind) {
    case "slack":
      return JSON.stringify(slackMessage(event));
    case "discord":
      return JSON.stringify(discordMessage(event));
    case "teams":
      return JSON.stringify(teamsMessage(event));
    default:
      return JSON.stringify(event);
  }
}

function facts(e: LinkClickEvent): { country: string; device: string; route: string | null } {
  // A click sent to the link's own url says nothing more: messages of links without rules or split stay as they were.
  return { country: e.click.country ?? "unknown", device: e.click.device, route: e.click.destination === "default" ? null : e.click.destination };
}

function testMark(e: LinkClickEvent): string {
  return e.test ? " (test event)" : "";
}

/**
 * Slack: `text` (notifications, mrkdwn, escaped) and `blocks` whose user-given parts are plain_text,
 * which Slack never interprets.
 */
export function slackMessage(e: LinkClickEvent) {
  const { country, device, route } = facts(e);
  return {
    text: escapeSlack(`Click on ${e.link.short_url}${testMark(e)} -> ${e.link.url} (country ${country}, device ${device})`),
    blocks: [
      { type: "header", text: { type: "plain_text", text: `Link clicked${testMark(e)}`, emoji: false } },
      {
        type: "section",
        fields: [
          { type: "plain_text", text: `Short URL: ${e.link.short_url}`, emoji: false },
          { type: "plain_text", text: `Destination: ${e.link.url}`, emoji: false },
          { type: "plain_text", text: `Country: ${country}`, emoji: false },
          { type: "plain_text", text: `Device: ${device}`, emoji: false },
          ...(route === null ? [] : [{ type: "plain_text", text: `Route: ${route}`, emoji: false }]),
        ],
      },
    ],
  };
}

export function discordMessage(e: LinkClickEvent) {
  const { country, device, route } = facts(e);
  return {
    content: `Click on ${escapeDiscord(e.link.short_url)}${testMark(e)}`,
    embeds: [
      {
        title: `Link clicked${testMark(e)}`,
        description: `${escapeDiscord(e.link.short_url)} → ${escapeDiscord(e.link.url)}`,
        fields: [
          { name: "Short URL", value: escapeDiscord(e.link.short_url), inline: false },
          { name: "Destination", value: escapeDiscord(e.link.url), inline: false },
          { name: "Country", value: escapeDiscord(country), inline: true },
          { name: "Device", value: escapeDiscord(device), inline: true },
          ...(route === null ? [] : [{ name: "Route", value: escapeDiscord(route), inline: true }]),
        ],
        timestamp: e.click.at,
      },
    ],
    // No @everyone, role or user pings, whatever a link's text contains.
    allowed_mentions: { parse: [] as string[] },
  };
}

export function teamsMessage(e: LinkClickEvent) {
  const { country, device, route } = facts(e);
  return adaptiveCardMessage(
    [
      { type: "TextBlock", size: "Medium", weight: "Bolder", text: `Link clicked${testMark(e)}`, wrap: true },
      {
        type: "FactSet",
        facts: [
          { title: "Short URL", value: teamsText(e.link.short_url) },
          { title: "Destination", value: teamsText(e.link.url) },
          { title: "Country", value: teamsText(country) },
          { title: "Device", value: teamsText(device) },
          ...(route === null ? [] : [{ title: "Route", value: teamsText(route) }]),
        ],
      },
    ],
    // Buttons open the exact addresses (an action's url is no markdown).
    [
      { type: "Action.OpenUrl", title: "Open destination", url: e.link.url },
      { type: "Action.OpenUrl", title: "Open short link", url: e.link.short_url },
    ],
  );
}
