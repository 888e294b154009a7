// Everything a link does, in words: where it goes, its limits, its rules, split and fallback, its social card and
// the UTM values its destination carries. The created-link card, the link's own page and the list rows read it.
import type { Link } from "@contract/links";
import type { RuleCondition } from "@contract/targeting";
import { conditionWords } from "@contract/conditions";
import { formatDateTime } from "../dates";
import { formatNumber } from "../numbers";

/** One rule's condition in words, as the registry writes them (contract/conditions/): "country FR or BE, device mobile". */
export function describeCondition(c: RuleCondition): string {
  return conditionWords(c, formatDateTime) || "always";
}

/** The destination's utm_* values ("source newsletter, medium email"), or null. */
export function utmOf(url: string): string | null {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return null;
  }
  const found = [...params].filter(([k]) => k.startsWith("utm_")).map(([k, v]) => `${k.slice(4)} ${v}`);
  return found.length ? found.join(", ") : null;
}

/** The short words the list rows show beside a link: its rules, split and fallback. */
export function behaviourBadges(link: Link): { key: string; label: string; title: string }[] {
  const out: { key: string; label: string; title: string }[] = [];
  if (link.rules.length)
    out.push({
      key: "rules",
      label: `${link.rules.length} ${link.rules.length === 1 ? "rule" : "rules"}`,
      title: link.rules.map((r, i) => `${i + 1}. ${describeCondition(r.if)} → ${r.url}`).join("\n"),
    });
  if (link.split.length)
    out.push({ key: "split", label: `Split ${link.split.map((v) => v.weight).join("/")}`, title: link.split.map((v) => `${v.weight}% → ${v.url}`).join("\n") });
  if (link.expired_url) out.push({ key: "fallback", label: "Fallback", title: `Once expired or used up: ${link.expired_url}` });
  if (link.starts_at && Date.parse(link.starts_at) > Date.now())
    out.push({ key: "starts", label: "Not open yet", title: `Opens ${formatDateTime(link.starts_at)}` });
  return out;
}

type Row = [label: string, value: string, testId: string];

const REDIRECT_WORDS: Record<number, string> = {
  301: "301 permanent (browsers may cache it)",
  302: "302 temporary",
  307: "307 temporary, method kept",
  308: "308 permanent, method kept (browsers may cache it)",
};

/** `tables`: the rules, device destinations and split are shown as tables beside the list (the link's own page), not as rows. */
function rowsOf(link: Link, tables = false): Row[] {
  const rows: Row[] = [["Destination", link.url, "summary-url"]];
  if (link.title) rows.push(["Title", link.title, "summary-title"]);
  rows.push(["Domain", link.domain ?? `${new URL(link.short_url).host} (default)`, "summary-domain"]);
  if (link.tags.length) rows.push(["Tags", link.tags.map((t) => t.name).join(", "), "summary-tags"]);
  if (link.starts_at) rows.push(["Opens", formatDateTime(link.starts_at), "summary-starts"]);
  rows.push(["Expires", link.expires_at ? formatDateTime(link.expires_at) : "Never", "summary-expires"]);
  rows.push([
    "Click limit",
    link.max_clicks == null ? "None" : `${formatNumber(link.max_clicks)} ${link.max_clicks === 1 ? "click" : "clicks"}`,
    "summary-max-clicks",
  ]);
  rows.push(["Password", link.has_password ? "Yes" : "No", "summary-password"]);
  if (link.ios_url && !tables) rows.push(["iOS destination", link.ios_url, "summary-ios"]);
  if (link.android_url && !tables) rows.push(["Android destination", link.android_url, "summary-android"]);
  if (!tables) link.rules.forEach((r, i) => rows.push([`Rule ${i + 1}`, `If ${describeCondition(r.if)} → ${r.url}`, `summary-rule-${i + 1}`]));
  if (link.split.length && !tables) rows.push(["Split", link.split.map((v) => `${v.weight}% → ${v.url}`).join("; "), "summary-split"]);
  if (link.expired_url) rows.push(["Fallback", `Once expired or used up → ${link.expired_url}`, "summary-fallback"]);
  if (link.preview)
    rows.push(["Social card", [link.preview.title, link.preview.description].filter(Boolean).join(" — ") || "An image only", "summary-preview"]);
  const utm = utmOf(link.url);
  if (utm) rows.push(["UTM", utm, "summary-utm"]);
  if (link.redirect_status) rows.push(["Redirect", REDIRECT_WORDS[link.redirect_status] ?? String(link.redirect_status), "summary-redirect-status"]);
  rows.push(["Search engines", link.crawlable ? "May follow it (listed in robots.txt)" : "Asked not to index it", "summary-crawlable"]);
  return rows;
}

/** The link's settings as a list of label and value; long values wrap (the whole address is the point). */
export function LinkSummary({ link, tables = false }: { link: Link; tables?: boolean }) {
  return (
    <dl className="summary" data-testid="created-summary">
      {rowsOf(link, tables).map(([label, value, testId]) => (
        <div key={testId} className="summary-row">
          <dt>{label}</dt>
          <dd className="summary-value" title={value} data-testid={testId}>
            {value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
