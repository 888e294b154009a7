// Escapes of the chat connectors' markup (Slack mrkdwn, Discord markdown, Adaptive Card text) for user-given text, and
// the Teams message that wraps an Adaptive Card.
/** Slack mrkdwn: &, < and > are the only control characters (they make links and @-mentions). */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Discord markdown: a backslash before every character it gives a meaning to (and mentions are disabled). */
export function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|>#\-[\]()<@]/g, (c) => `\\${c}`);
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

/** A Teams message holding one Adaptive Card (1.4) of `body` and, when given, its `actions`. */
export function adaptiveCardMessage<B extends unknown[], A extends unknown[]>(body: B, actions?: A) {
  const content = {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    body,
    ...(actions ? { actions } : {}),
  };
  return { type: "message", attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content }] };
}
