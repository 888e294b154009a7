// The shared statistics page (docs/sharing.md): server-written, no script, every piece of text escaped. The
// series is an inline SVG with a table beside it for screen readers; breakdowns are tables with bars drawn in CSS.
// Only the panels the owner chose are shown, and never anything about a single visitor (no cities, no referring
// pages, no clicks feed): counts per country, device, browser, system and referring site.
import type { Analytics } from "../contract/analytics.js";
import type { SharePanel } from "../contract/shares.js";
import { SHARE_RANGES, type ShareRange } from "../shares/shares.js";
import { escapeHtml, page } from "./pages.js";
import { labelCase } from "../contract/tables.js";

const RANGE_LABELS: Record<ShareRange, string> = { "7d": "7 days", "30d": "30 days", "90d": "90 days", "12mo": "12 months" };

const STYLE =
  ".card{max-width:56rem}.range{display:flex;flex-wrap:wrap;gap:.4rem;margin:0 0 1.25rem}.range a{padding:.3rem .7rem;border:1px solid var(--border-strong);border-radius:999px;text-decoration:none;font-size:.9rem}" +
  ".range a[aria-current]{background:var(--primary-fill);border-color:var(--primary-fill);color:var(--on-fill)}" +
  ".tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem;margin:0 0 1.25rem}.tile{border:1px solid var(--border);border-radius:10px;padding:.75rem .9rem;background:var(--surface-2)}" +
  ".tile b{display:block;font-size:1.6rem;line-height:1.2}.tile span{font-size:.85rem;color:var(--muted)}" +
  "h2{font-size:1.1rem;margin:1.5rem 0 .5rem}.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr));gap:0 1.5rem}" +
  "table{width:100%;border-collapse:collapse;font-size:.92rem}td,th{padding:.3rem .25rem;text-align:left;border-bottom:1px solid var(--border)}th{font-weight:600;color:var(--muted);font-size:.8rem}" +
  "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}.meter{display:block;height:4px;border-radius:2px;background:var(--primary);margin-top:.2rem}" +
  ".chart{width:100%;height:auto;display:block;color:var(--primary)}.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}" +
  ".empty{color:var(--muted)}.axis{display:flex;justify-content:space-between;font-size:.8rem;margin:.3rem 0 0}";

const fmt = new Intl.NumberFormat("en");
let regionNames: Intl.DisplayNames | null = null;

function countryName(code: string): string {
  if (code.length !== 2) return code === "" || code === "unknown" ? "Unknown" : code;
  regionNames ??= new Intl.DisplayNames("en", { type: "region" });
  try {
    return regionNames.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

function tile(value: string, label: string): string {
  return `<div class="tile"><b>${escapeHtml(value)}</b><span>${escapeHtml(label)}</span></div>`;
}

/** A breakdown as a table: the first `max` rows, each with its share of the top row drawn as a bar. */
function breakdown(title: string, column: string, rows: Array<{ label: string; clicks: number }>, max = 10): string {
  if (rows.length === 0) return `<section><h2>${escapeHtml(title)}</h2><p class="empty">No clicks in this period.</p></section>`;
  const top = Math.max(1, ...rows.map((r) => r.clicks));
  const body = rows
    .slice(0, max)
    .map(
      (r) =>
        `<tr><td>${escapeHtml(r.label)}<span class="meter" style="width:${Math.max(2, Math.round((r.clicks / top) * 100))}%"></span></td><td class="n">${fmt.format(r.clicks)}</td></tr>`,
    )
    .join("");
  return `<section><h2>${escapeHtml(title)}</h2><table><thead><tr><th scope="col">${escapeHtml(column)}</th><th scope="col" class="n">Clicks</th></tr></thead><tbody>${body}</tbody></table></section>`;
}

/** The clicks of each point as bars in an SVG (decorative) and the same figures in a table for screen readers. */
function series(a: Analytics): string {
  const points = a.series ?? [];
  if (points.length === 0) return "";
  const top = Math.max(1, ...points.map((p) => p.clicks));
  const w = 800;
  const h = 160;
  const step = w / points.length;
  const bars = points
    .map((p, i) => {
      const bh = Math.round((p.clicks / top) * (h - 4));
      return `<rect x="${(i * step + step * 0.15).toFixed(1)}" y="${h - bh}" width="${(step * 0.7).toFixed(1)}" height="${bh}" rx="1.5" fill="currentColor"/>`;
    })
    .join("");
  const rows = points.map((p) => `<tr><td>${escapeHtml(p.label)}</td><td>${p.clicks}</td></tr>`).join("");
  const ends = `<p class="axis" aria-hidden="true"><span>${escapeHtml(points[0]!.label)}</span><span>${escapeHtml(points[points.length - 1]!.label)}</span></p>`;
  return (
    `<svg class="chart" viewBox="0 0 ${w} ${h + 1}" aria-hidden="true" focusable="false">${bars}<rect x="0" y="${h}" width="${w}" height="1" fill="var(--border-strong)"/></svg>` +
    ends +
    `<table class="sr"><caption>Clicks by ${escapeHtml(a.granularity ?? "day")}</caption><tbody>${rows}</tbody></table>`
  );
}

function revenueText(revenue: Record<string, number>): string {
  const parts = Object.entries(revenue).map(([cur, minor]) => {
    try {
      return new Intl.NumberFormat("en", { style: "currency", currency: cur }).format(minor / 100);
    } catch {
      return `${fmt.format(minor / 100)} ${cur}`;
    }
  });
  return parts.length === 0 ? "0" : parts.join(" + ");
}

export interface SharePageInput {
  name: string;
  /** What is shared, in words ("Link", "Tag", "Folder"). */
  kind: string;
  panels: SharePanel[];
  range: ShareRange;
  analytics: Analytics;
  /** The page's own path, for the range links. */
  path: string;
}

export function sharePage(s: SharePageInput): string {
  const a = s.analytics;
  const show = (p: SharePanel) => s.panels.includes(p);
  const ranges = SHARE_RANGES.map(
    (r) => `<a href="${escapeHtml(`${s.path}?range=${r}`)}"${r === s.range ? ' aria-current="page"' : ""}>${escapeHtml(RANGE_LABELS[r])}</a>`,
  ).join("");
  // Conversions only where there are some: most links do not track them.
  const conversions = show("conversions") && ((a.leads ?? 0) > 0 || (a.sales ?? 0) > 0);
  const tiles = [
    show("clicks") ? tile(fmt.format(a.range_clicks ?? 0), "Clicks") : "",
    show("visitors") ? tile(fmt.format(a.range_visitors ?? 0), "Visitors") : "",
    conversions ? tile(fmt.format(a.leads ?? 0), "Leads") : "",
    conversions ? tile(fmt.format(a.sales ?? 0), "Sales") : "",
    conversions ? tile(revenueText(a.revenue ?? {}), "Revenue") : "",
  ].join("");
  const sections: string[] = [];
  if (show("clicks")) sections.push(series(a));
  const grid: string[] = [];
  if (show("countries"))
    grid.push(
      breakdown(
        "Countries",
        "Country",
        (a.countries ?? []).map((r) => ({ label: countryName(r.country), clicks: r.clicks })),
      ),
    );
  if (show("devices")) {
    grid.push(
      breakdown(
        "Devices",
        "Device",
        (a.devices ?? []).map((r) => ({ label: labelCase(r.device), clicks: r.clicks })),
      ),
    );
    grid.push(
      breakdown(
        "Browsers",
        "Browser",
        (a.browsers ?? []).map((r) => ({ label: labelCase(r.browser), clicks: r.clicks })),
      ),
    );
    grid.push(
      breakdown(
        "Operating systems",
        "System",
        (a.os ?? []).map((r) => ({ label: labelCase(r.os), clicks: r.clicks })),
      ),
    );
  }
  if (show("referrers"))
    grid.push(
      breakdown(
        "Referrers",
        "Site",
        (a.referrers ?? []).map((r) => ({ label: r.referrer === "direct" ? "Direct, email or apps" : r.referrer, clicks: r.clicks })),
      ),
    );
  if (show("clicks") && s.kind !== "Link")
    grid.push(
      breakdown(
        "Links",
        "Short link",
        a.links.map((l) => ({ label: l.short_url, clicks: l.clicks })),
      ),
    );
  sections.push(`<div class="grid">${grid.join("")}</div>`);
  return page(
    `Statistics of ${s.name}`,
    `<p class="fine" style="margin:0 0 .25rem">${escapeHtml(`Shared statistics · ${s.kind}`)}</p><h1>${escapeHtml(s.name)}</h1>` +
      `<nav class="range" aria-label="Period">${ranges}</nav>` +
      `<p class="fine" style="margin:0 0 .75rem">${escapeHtml(`${a.from} to ${a.to} (${a.tz})`)}</p>` +
      (tiles ? `<div class="tiles">${tiles}</div>` : "") +
      sections.join(""),
    undefined,
    STYLE,
  );
}

/** The password form of a protected share; `wrong` after a wrong password. */
export function sharePasswordPage(wrong: boolean): string {
  return page(
    "Password required",
    `<h1>These statistics are protected by a password</h1><p>Enter the password you were given with the address.</p>` +
      (wrong ? `<p class="err" role="alert">Wrong password. Try again.</p>` : "") +
      `<form method="post"><label for="password">Password</label>` +
      `<input type="password" name="password" id="password" autocomplete="off" required maxlength="200" autofocus>` +
      `<p class="actions"><button class="btn" type="submit">Show the statistics</button></p></form>`,
  );
}
