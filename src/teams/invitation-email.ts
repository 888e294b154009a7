// The invitation email: a text part and an HTML part, every user-supplied value escaped in the HTML.
import type { MailMessage } from "../mail/mailer.js";
import type { UserRow } from "../storage/schema.js";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** "Ann Smith (ann@example.com)" or the bare address when the inviter has no name. */
function inviterLabel(inviter: Pick<UserRow, "name" | "email">): string {
  return inviter.name ? `${inviter.name} (${inviter.email})` : inviter.email;
}

export function invitationEmail(inviter: Pick<UserRow, "name" | "email">, to: string, link: string, validDays: number): MailMessage {
  const who = inviterLabel(inviter);
  const text =
    `Hello,\n\n${who} invited you to join their team on snip. As a member you can view and edit their short links ` +
    `and see their statistics; your own account and plan stay as they are.\n\n` +
    `Accept the invitation by opening this link (valid for ${validDays} days):\n\n${link}\n\n` +
    `No snip account yet? Create one with this address (${to}) from that page: the invitation waits while you confirm your email.\n\n` +
    `If you did not expect this invitation, ignore this message.\n`;
  const href = escapeHtml(link);
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">` +
    `<p>Hello,</p>` +
    `<p><strong>${escapeHtml(who)}</strong> invited you to join their team on snip. As a member you can view and edit their short links ` +
    `and see their statistics; your own account and plan stay as they are.</p>` +
    `<p><a href="${href}">Accept the invitation</a> (valid for ${validDays} days), or open this address:<br>${href}</p>` +
    `<p>No snip account yet? Create one with this address (${escapeHtml(to)}) from that page: the invitation waits while you confirm your email.</p>` +
    `<p>If you did not expect this invitation, ignore this message.</p>` +
    `</body></html>`;
  return { to, subject: `${inviter.name || inviter.email} invited you to their team on snip`, text, html };
}
