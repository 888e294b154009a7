// The link_click event as docs/webhooks.md gives it (version 1, no IP address; receivers depend on it), and the body each kind receives:
// the service's own JSON for custom receivers, a chat message for the Slack, Discord and Teams connectors.
import type { WebhookKind } from "./address-guard.js";

export interface LinkClickEvent {
  version: 1;
  id: string;
  type: "link_click";
  created_at: string;
  test: boolean;
  link: { id: string; alias: string; domain: string | null; short_url: string; url: string };
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

/** The JSON body for a webhook of this kind. */
export function bodyFor(kind: WebhookKind, event: LinkClickEvent): string {
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

/** Slack mrkdwn: &, < and > are the only control characters (they make links and @-mentions). */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
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

/** Discord markdown: a backslash before every character it gives a meaning to (and mentions are disabled). */
export function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|>#\-[\]()<@]/g, (c) => `\\${c}`);
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

/**
 * Adaptive Card text (Teams): a subset of markdown where `*` and `_` make emphasis, `[text](url)` a link and
 * `-` or `1.` a list. Teams shows backslash escapes literally (a URL escaped that way is unreadable and not
 * clickable), so URLs stay raw and only those characters are percent-encoded: the same resource for `_` and
 * `~` (unreserved), and in practice for the others; `<`, `>`, `` ` `` and `\` are not valid in a URL anyway.
 */
export function teamsText(text: string): string {
  return text.replace(/[*_[\]()~`<>\\]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function teamsMessage(e: LinkClickEvent) {
  const { country, device, route } = facts(e);
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: [
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
          actions: [
            { type: "Action.OpenUrl", title: "Open destination", url: e.link.url },
            { type: "Action.OpenUrl", title: "Open short link", url: e.link.short_url },
          ],
        },
      },
    ],
  };
}
