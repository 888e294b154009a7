// A bio page as visitors get it (docs/bio-pages.md): server-written HTML, no script, every piece of the owner's text
// escaped; the theme follows the visitor's light or dark setting (auto), is fixed (light, dark), or takes the owner's
// colours; Open Graph and Twitter tags give the page's social preview. Each button is the link's short URL, so a click
// on it is a visit of the link (its rules, expiry and statistics). The answer is written once per cached page.
import { BIO_SOCIAL_LABELS } from "../contract/tables.js";
import { bioHoverFill, readableBioColours } from "../contract/form-rules.js";
import type { ServedPage } from "../bio/index.js";
import { HTML_CSP, NO_STORE, escapeHtml, page } from "./pages.js";
import { SECURITY_HEADERS } from "./security-headers.js";

const STYLE =
  ".bar{display:none}main{padding:2.5rem 1rem 1.5rem}.card{max-width:34rem;text-align:center;background:transparent;border:0;box-shadow:none;padding:0}" +
  ".pic{display:block;width:96px;height:96px;border-radius:50%;object-fit:cover;margin:0 auto 1rem;background:var(--surface-2)}" +
  "h1{font-size:1.6rem;margin:0 0 .4rem}.desc{white-space:pre-line;color:var(--muted);margin:0 0 1.25rem}" +
  ".blocks{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.75rem}" +
  ".blocks .btn{display:block;width:100%;padding:.9rem 1rem;border-radius:12px;font-size:1rem;overflow-wrap:anywhere}" +
  ".blocks h2{font-size:1.1rem;margin:1rem 0 0}.blocks p{white-space:pre-line;margin:0}" +
  ".social{display:flex;flex-wrap:wrap;justify-content:center;gap:.5rem}.social a{display:inline-block;padding:.35rem .8rem;border:1px solid currentColor;border-radius:999px;font-size:.9rem;font-weight:600;text-decoration:none;color:var(--text)}" +
  ".made{margin:2rem 0 0;font-size:.8rem;color:var(--muted)}.made a{color:inherit}";

/** The theme's rules: a fixed scheme, or the owner's colours in place of the palette's. */
function themeStyle(p: ServedPage): string {
  if (p.theme === "light" || p.theme === "dark") return `:root{color-scheme:${p.theme}}`;
  if (p.theme !== "custom" || p.colors === null) return "";
  // Validated #rrggbb values only (contract/bio-pages.ts): nothing else reaches the style sheet.
  const hex = (v: string) => (/^#[0-9a-fA-F]{6}$/.test(v) ? v : "#000000");
  // Text the owner's colours would make hard to read is drawn black or white instead (docs/bio-pages.md, Themes).
  const c = readableBioColours({
    background: hex(p.colors.background),
    text: hex(p.colors.text),
    button: hex(p.colors.button),
    button_text: hex(p.colors.button_text),
  }).colours;
  return (
    `:root{--bg:${c.background};--text:${c.text};--muted:${c.text};--primary:${c.text};` +
    `--primary-fill:${c.button};--primary-hover:${bioHoverFill(c.button, c.button_text)};--on-fill:${c.button_text};--surface-2:${c.background}}`
  );
}

function items(p: ServedPage): string {
  const out: string[] = [];
  let social: string[] = [];
  const flush = () => {
    if (social.length > 0) out.push(`<li class="social">${social.join("")}</li>`);
    social = [];
  };
  for (const it of p.items) {
    if (it.type === "social") {
      const label = BIO_SOCIAL_LABELS[it.network];
      social.push(`<a href="${escapeHtml(it.url)}" rel="me noopener">${escapeHtml(label)}</a>`);
      continue;
    }
    flush();
    if (it.type === "link") out.push(`<li><a class="btn" href="${escapeHtml(it.href)}">${escapeHtml(it.label)}</a></li>`);
    else if (it.type === "heading") out.push(`<li><h2>${escapeHtml(it.text)}</h2></li>`);
    else out.push(`<li><p>${escapeHtml(it.text)}</p></li>`);
  }
  flush();
  return out.length === 0 ? "" : `<ul class="blocks">${out.join("")}</ul>`;
}

/** The social preview: Open Graph and Twitter tags from the page's title, description and picture. */
function previewTags(p: ServedPage, url: string): string {
  const meta = (attr: "property" | "name", key: string, value: string | null) => (value ? `<meta ${attr}="${key}" content="${escapeHtml(value)}">` : "");
  return (
    meta("name", "description", p.description) +
    meta("property", "og:title", p.title) +
    meta("property", "og:description", p.description) +
    meta("property", "og:image", p.picture_url) +
    meta("property", "og:url", url) +
    `<meta property="og:type" content="profile">` +
    `<meta name="twitter:card" content="summary">` +
    meta("name", "twitter:title", p.title) +
    meta("name", "twitter:description", p.description) +
    meta("name", "twitter:image", p.picture_url)
  );
}

/** The page's HTML; `url`: its own address (og:url). */
export function bioPageHtml(p: ServedPage, url: string): string {
  const picture = p.picture_url ? `<img class="pic" src="${escapeHtml(p.picture_url)}" alt="" width="96" height="96">` : "";
  const body =
    picture +
    `<h1>${escapeHtml(p.title)}</h1>` +
    (p.description ? `<p class="desc">${escapeHtml(p.description)}</p>` : "") +
    items(p) +
    `<p class="made">Made with <a href="/">snip</a></p>`;
  return page(p.title, body, undefined, STYLE + themeStyle(p), { tags: previewTags(p, url), indexed: true });
}

/** The page's CSP: the shared one, with the picture's origin allowed as an image source. */
export function bioPageCsp(p: Pick<ServedPage, "picture_url">): string {
  if (!p.picture_url) return HTML_CSP;
  let origin: string;
  try {
    origin = new URL(p.picture_url).origin;
  } catch {
    return HTML_CSP;
  }
  // An origin is scheme://host[:port]: nothing in it can end the directive.
  return /^https?:\/\/[a-z0-9.:[\]-]+$/i.test(origin) ? HTML_CSP.replace("img-src 'self'", `img-src 'self' ${origin}`) : HTML_CSP;
}

/** The page's answer (body and node:http header list), written once and kept with the cached page. */
export function bioAnswer(p: ServedPage, origin: string): { body: Buffer; headers: string[] } {
  if (p.answer) return p.answer;
  const url = p.domain === "" ? `${origin}/${p.slug}` : `${origin.slice(0, origin.indexOf(":"))}://${p.domain}/${p.slug}`;
  const body = Buffer.from(bioPageHtml(p, url));
  const headers = [
    "cache-control",
    NO_STORE,
    "content-type",
    "text/html; charset=utf-8",
    ...Object.entries(SECURITY_HEADERS).flat(),
    "content-security-policy",
    bioPageCsp(p),
    "content-length",
    String(body.length),
  ];
  p.answer = { body, headers };
  return p.answer;
}
