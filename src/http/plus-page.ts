// The "+" page (docs/api.md, Where a link goes): `/{alias}+` shows what a short link is before anyone follows
// it. Server-written, no script, every piece of text escaped; the destination is text to read, never a link:
// the only way on is the short link itself (so its rules, limits and click count apply as for any visit).
import type { DestinationCheck, LinkInfo, LinkState, OtherDestination } from "../redirect/link-info.js";
import { escapeHtml, page, reportHref } from "./pages.js";

const STATE_TEXT: Record<LinkState, string> = {
  active: "Active: it opens its destination.",
  scheduled: "Not open yet.",
  expired: "Expired: it no longer opens its destination.",
  limited: "Its click limit is used up: it no longer opens its destination.",
  password: "Protected by a password: its destination is shown only to people who have the password.",
  blocked: "Disabled: it leads to a site this service has blocked as harmful.",
  disabled: "Disabled by the operator of this service.",
};

const OTHER_TEXT: Record<OtherDestination["kind"], string> = {
  rule: "by a redirect rule (country, device, language, time…)",
  split: "in a split test",
  ios: "on iPhone and iPad",
  android: "on Android",
  fallback: "once it has expired or used up its clicks",
};

function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "just now", "5 minutes ago", "3 hours ago", "2 days ago". */
function ago(ms: number, now: number): string {
  const minutes = Math.floor(Math.max(0, now - ms) / 60_000);
  const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"} ago`;
  if (minutes < 1) return "just now";
  if (minutes < 60) return count(minutes, "minute");
  if (minutes < 48 * 60) return count(Math.floor(minutes / 60), "hour");
  return count(Math.floor(minutes / 1440), "day");
}

/** What the last checks of the destination found (docs/health.md), as one sentence; warn: said in the warning colour. */
function healthText(h: DestinationCheck, now: number): { text: string; warn: boolean } {
  const checked = h.checked_at === null ? "" : ago(h.checked_at, now);
  const others = h.others_broken === 0 ? "" : ` ${h.others_broken} of the other destinations ${h.others_broken === 1 ? "is" : "are"} not answering.`;
  if (h.state === "broken" && h.broken_since !== null)
    return { text: `Not answering since ${when(h.broken_since)} (checked ${checked}).${others}`, warn: true };
  if (h.state === "failing") return { text: `Did not answer when checked ${checked}; it is checked again within the hour.${others}`, warn: false };
  if (h.state === "ok") return { text: `Answering when checked ${checked}.${others}`, warn: others !== "" };
  return { text: `Not checked yet.${others}`, warn: others !== "" };
}

/** A term and its description, as the page lists them. */
function fact(term: string, description: string): string {
  return `<dt>${escapeHtml(term)}</dt><dd>${description}</dd>`;
}

/** Styles of the facts list on top of the public pages' own (the page allows inline styles, never scripts). */
const FACTS_STYLE =
  "dl{margin:1rem 0 0}dt{font-weight:600;font-size:.85rem;color:var(--muted);margin:.9rem 0 .15rem}dd{margin:0}" +
  ".dest{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem;background:var(--surface-2);border:1px solid var(--border);border-radius:8px;padding:.5rem .65rem;display:block;overflow-wrap:anywhere;word-break:break-all}" +
  ".others{margin:.3rem 0 0;padding-left:1.1rem}.others li{margin:.35rem 0}.warn{font-weight:600;color:var(--danger-text)}";

/** The page for the short link `shortUrl` (scheme, host and alias, as the visitor typed it without the "+"). */
export function plusPage(shortUrl: string, alias: string, info: LinkInfo, now: number): string {
  const facts: string[] = [fact("Short link", `<span class="dest">${escapeHtml(shortUrl)}</span>`)];
  if (info.url !== null) facts.push(fact("Goes to", `<span class="dest">${escapeHtml(info.url)}</span>`));
  if (info.title) facts.push(fact("Title", escapeHtml(info.title)));
  if (info.others.length > 0) {
    const items = info.others.map((d) => `<li><span class="dest">${escapeHtml(d.url)}</span>${escapeHtml(OTHER_TEXT[d.kind])}</li>`).join("");
    facts.push(fact("Some visitors go elsewhere", `<ul class="others">${items}</ul>`));
  }
  const state = info.state === "scheduled" && info.starts_at !== null ? `Not open yet: it opens on ${when(info.starts_at)}.` : STATE_TEXT[info.state];
  facts.push(fact("Status", `<span${info.state === "blocked" || info.state === "disabled" ? ' class="warn"' : ""}>${escapeHtml(state)}</span>`));
  if (info.health) {
    const h = healthText(info.health, now);
    facts.push(fact("Health", `<span${h.warn ? ' class="warn"' : ""} data-health="${escapeHtml(info.health.state)}">${escapeHtml(h.text)}</span>`));
  }
  if (info.reported) facts.push(fact("Reports", `<span class="warn">${escapeHtml("Reported to the operators of this service; not yet reviewed.")}</span>`));
  if (info.state !== "password") {
    facts.push(fact("Created", escapeHtml(when(info.created_at))));
    const expiry = info.expires_at === null ? "Never" : info.state === "expired" ? `Expired on ${when(info.expires_at)}` : `On ${when(info.expires_at)}`;
    facts.push(fact("Expires", escapeHtml(expiry)));
    if (info.max_clicks !== null) facts.push(fact("Click limit", escapeHtml(`${info.max_clicks} clicks`)));
  }
  const opens = info.state === "active" || info.state === "password";
  const goOn = opens ? `<a class="btn" href="/${escapeHtml(encodeURIComponent(alias))}" rel="nofollow noreferrer">Continue to the link</a>` : "";
  return page(
    "Where this link goes",
    `<h1>Where this link goes</h1><p>This page shows where a short link leads before you open it. Nothing was opened or counted.</p>` +
      `<dl>${facts.join("")}</dl>` +
      `<p class="actions">${goOn}<a href="${escapeHtml(reportHref(alias))}">Report this link</a></p>`,
    undefined,
    FACTS_STYLE,
  );
}
