// Small server-rendered HTML pages (errors, the link-password form, the abuse report form); every piece of text is escaped.

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

export const HTML_CSP =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
/** The link-password form posts to itself and is then redirected to the destination, which form-action also governs. */
export const PASSWORD_FORM_CSP = HTML_CSP.replace("form-action 'self'", "form-action 'self' http: https:");

/** Every answer of a short address is fresh: each visit must reach the service (and be counted). */
export const NO_STORE = "private, no-store";

/** Headers of the link-password page besides the content type (Fastify's route and the fast path). */
export const PASSWORD_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": NO_STORE,
  "x-robots-tag": "noindex",
  "content-security-policy": PASSWORD_FORM_CSP,
};

/** True when the client asks for JSON rather than a page. */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const json = accept.indexOf("application/json");
  if (json === -1) return false;
  const html = accept.indexOf("text/html");
  return html === -1 || json < html;
}

/**
 * The dashboard's palette (web/src/styles.css, one variable per colour with its light and dark value): the
 * public pages follow the system's light or dark setting with the same colours. test/unit/pages.test.ts
 * checks that every value here is the dashboard's.
 */
export const PALETTE: Readonly<Record<string, string>> = {
  "--bg": "light-dark(#f6f7fb, #0f1218)",
  "--surface": "light-dark(#ffffff, #181c25)",
  "--surface-2": "light-dark(#f1f2f7, #222734)",
  "--text": "light-dark(#171a2b, #e7e9f1)",
  "--muted": "light-dark(#5d6378, #a3a9ba)",
  "--border": "light-dark(#e3e5ee, #2d3342)",
  "--border-strong": "light-dark(#cfd3e0, #404759)",
  "--primary": "light-dark(#4f46e5, #a5b4fc)",
  "--primary-fill": "light-dark(#4f46e5, #5b55e8)",
  "--primary-hover": "light-dark(#4338ca, #4b45d8)",
  "--primary-soft": "light-dark(#eef0ff, #272b52)",
  "--on-fill": "#ffffff",
  "--danger-soft": "light-dark(#fef2f2, #341c22)",
  "--danger-border": "light-dark(#fecaca, #6e2e36)",
  "--danger-text": "light-dark(#991b1b, #fca5a5)",
  "--focus": "light-dark(rgba(79, 70, 229, 0.45), rgba(165, 180, 252, 0.6))",
  "--glow": "light-dark(rgba(79, 70, 229, 0.18), rgba(129, 140, 248, 0.3))",
  "--shadow-color": "light-dark(rgba(16, 24, 40, 0.06), rgba(0, 0, 0, 0.35))",
  "--font": 'ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
};

const STYLE =
  `:root{color-scheme:light dark;${Object.entries(PALETTE)
    .map(([k, v]) => `${k}:${v}`)
    .join(";")}}` +
  "*,*::before,*::after{box-sizing:border-box}[hidden]{display:none!important}" +
  "body{margin:0;font-family:var(--font);font-size:16px;line-height:1.5;background:var(--bg);color:var(--text);min-height:100vh;display:flex;flex-direction:column}" +
  // The dashboard's header: the logo and the name, linking to the home page.
  ".bar{background:var(--surface);border-bottom:1px solid var(--border)}.bar>div{max-width:1080px;margin:0 auto;padding:0 1.25rem;min-height:60px;display:flex;align-items:center}" +
  ".logo{display:inline-flex;align-items:center;gap:.45rem;font-weight:800;font-size:1.35rem;letter-spacing:-.03em;color:var(--text);text-decoration:none}" +
  ".logo-mark{display:inline-grid;place-items:center;width:30px;height:30px;border-radius:8px;background:var(--primary-fill);color:var(--on-fill);font-size:1rem}" +
  "main{flex:1;display:flex;align-items:flex-start;justify-content:center;padding:3rem 1.25rem}" +
  ".card{background:var(--surface);border:1px solid var(--border);border-radius:12px;box-shadow:0 1px 3px var(--shadow-color);padding:2rem;width:100%;max-width:32rem;min-width:0;overflow-wrap:anywhere}" +
  "h1{font-size:1.5rem;line-height:1.25;letter-spacing:-.01em;margin:0 0 .75rem}p{margin:0 0 .9rem;color:var(--muted)}a{color:var(--primary)}" +
  ".actions{display:flex;flex-wrap:wrap;gap:.75rem 1.25rem;align-items:center;margin:1.25rem 0 0}" +
  ".btn{display:inline-block;font:inherit;font-weight:600;font-size:.95rem;background:var(--primary-fill);color:var(--on-fill);border:0;border-radius:8px;padding:.65rem 1.1rem;cursor:pointer;text-decoration:none}.btn:hover{background:var(--primary-hover)}" +
  ":focus-visible{outline:3px solid var(--focus);outline-offset:2px}" +
  "label{display:block;font-weight:600;font-size:.9rem;margin:1rem 0 .3rem}" +
  "input,select,textarea{font:inherit;width:100%;padding:.6rem .75rem;border:1px solid var(--border-strong);border-radius:8px;background:var(--surface);color:var(--text)}" +
  "input:focus,select:focus,textarea:focus{outline:none;border-color:var(--primary);box-shadow:0 0 0 3px var(--glow)}" +
  "textarea{min-height:7rem;resize:vertical}.hint{font-size:.85rem;margin:.4rem 0 0}" +
  ".show{display:inline-flex;align-items:center;gap:.4rem;font-weight:500;margin:.5rem 0 0;color:var(--muted)}.show input{width:auto;margin:0}" +
  ".err{background:var(--danger-soft);border:1px solid var(--danger-border);color:var(--danger-text);border-radius:8px;padding:.6rem .8rem}.err p,.err li{color:inherit}.err p{margin:0}.err ul{margin:.3rem 0 0;padding-left:1.2rem}" +
  ".fine{font-size:.8rem;margin:1.5rem 0 0;color:var(--muted)}" +
  "@media (max-width:480px){main{padding:1.5rem 1rem}.card{padding:1.25rem}}";

/** The icon of every page (web/public/favicon.svg, the same bytes; the server serves it at /favicon.svg on every host). */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#4f46e5"/><text x="16" y="22" font-size="17" font-weight="700" text-anchor="middle" fill="#fff" font-family="system-ui,sans-serif">s</text></svg>';

/** What a page may add to its head: tags (already escaped), and whether search engines may index it. */
export interface PageHead {
  tags?: string;
  indexed?: boolean;
}

/** A public page: the dashboard's header, then one card; `style`: the page's own rules after the shared ones. */
export function page(title: string, body: string, script?: string, style = "", head: PageHead = {}): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark">${head.indexed ? "" : `<meta name="robots" content="noindex">`}` +
    `<title>${escapeHtml(title)} · snip</title>${head.tags ?? ""}<link rel="icon" type="image/svg+xml" href="/favicon.svg"><style>${STYLE}${style}</style>${script ? `<script src="${script}" defer></script>` : ""}</head>` +
    `<body><header class="bar"><div><a class="logo" href="/"><span class="logo-mark" aria-hidden="true">✂</span>snip</a></div></header>` +
    `<main><div class="card">${body}</div></main></body></html>`
  );
}

/** The public abuse report form, for the link given (an alias, relative to the page's host), or empty. */
export function reportHref(link?: string): string {
  return link ? `/report?link=${encodeURIComponent(link)}` : "/report";
}

/** What a public error page says: the headline and what happened, in words, and what the visitor can do. */
export interface PageText {
  /** Short, for the window title ("Link expired"). */
  title: string;
  /** The headline ("This link has expired"). */
  heading: string;
  /** What happened and what the visitor can do. */
  text: string;
}

/** Any address outside the app, the API and the short links that does not exist. */
export const NOT_FOUND_PAGE: PageText = {
  title: "Not found",
  heading: "Nothing here",
  text: "There is no page at this address. Check it for typos, or start again from the home page.",
};

/**
 * An error page; `report` (a short link's alias, or "" for none in particular) adds a "Report this link"
 * link to the public abuse report form (docs/operator.md). The status shows only as a small error code
 * under the text, for whoever helps the visitor.
 */
export function errorPage(status: number, t: PageText, report?: string): string {
  const reportLink = report === undefined ? "" : `<a href="${escapeHtml(reportHref(report))}">Report this link</a>`;
  return page(
    t.title,
    `<h1>${escapeHtml(t.heading)}</h1><p>${escapeHtml(t.text)}</p>` +
      `<p class="actions"><a class="btn" href="/">Go to the home page</a>${reportLink}</p><p class="fine">Error code ${status}</p>`,
  );
}

/** The script of the password page's show/hide control: a file from 'self', so the CSP needs no inline script. */
export const PASSWORD_SCRIPT_PATH = "/_snip/password-form.js";
export const PASSWORD_SCRIPT =
  "// Shows the show/hide control of the link-password form and switches the field's type.\n" +
  'var f=document.getElementById("password"),c=document.getElementById("show-password");' +
  'if(f&&c){c.parentNode.hidden=false;c.addEventListener("change",function(){f.type=c.checked?"text":"password";f.focus();});}\n' +
  "// Carries the visit's own referrer to the click (the form's post would name this page instead); a page shown\n" +
  "// again after a wrong password keeps the one it was given.\n" +
  'var r=document.getElementById("ref");if(r&&!r.hasAttribute("data-kept"))r.value=document.referrer.slice(0,2048);\n';

/** The link-password page (GET of a protected link, and again after a wrong password). */
export function passwordForm(wrong: boolean, ref: string | null = null): string {
  return page(
    "Password required",
    `<h1>This link is protected by a password</h1><p>Enter the password you were given with the link to continue to its destination.</p>` +
      (wrong ? `<p class="err" role="alert">${escapeHtml("Wrong password. Try again.")}</p>` : "") +
      `<form method="post">` +
      // The visit's referrer: filled in by the script on the first page, kept from the post after a wrong password.
      (ref === null ? `<input type="hidden" name="ref" id="ref">` : `<input type="hidden" name="ref" id="ref" data-kept value="${escapeHtml(ref)}">`) +
      `<label for="password">Password</label>` +
      `<input type="password" name="password" id="password" autocomplete="off" required maxlength="200" autofocus>` +
      // Hidden until the script runs: without it the control could not work.
      `<label class="show" hidden><input type="checkbox" id="show-password">Show</label>` +
      `<p class="actions"><button class="btn" type="submit">Continue</button>` +
      // Generic: the fast path builds this page once for every protected link (fast-redirect.ts).
      `<a href="${reportHref()}">Report this link</a></p></form>`,
    PASSWORD_SCRIPT_PATH,
  );
}

/** What a link-preview crawler gets: the owner's card as Open Graph and Twitter tags, and a refresh to the destination. */
export function previewPage(card: { title: string | null; description: string | null; image: string | null }, location: string, shortUrl: string): string {
  const meta = (attr: "property" | "name", key: string, value: string | null) => (value ? `<meta ${attr}="${key}" content="${escapeHtml(value)}">` : "");
  const title = card.title ?? shortUrl;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    meta("property", "og:title", title) +
    meta("property", "og:description", card.description) +
    meta("property", "og:image", card.image) +
    meta("property", "og:url", shortUrl) +
    `<meta property="og:type" content="website">` +
    `<meta name="twitter:card" content="${card.image ? "summary_large_image" : "summary"}">` +
    meta("name", "twitter:title", title) +
    meta("name", "twitter:description", card.description) +
    meta("name", "twitter:image", card.image) +
    meta("name", "description", card.description) +
    `<meta http-equiv="refresh" content="0;url=${escapeHtml(location)}"></head>` +
    `<body><p><a href="${escapeHtml(location)}">${escapeHtml(title)}</a></p></body></html>`
  );
}

/**
 * What an iPhone visitor in an in-app browser (Instagram, Facebook, TikTok...) gets for a link with open_outside
 * (docs/deep-links.md, A way out of in-app browsers): a button that opens the destination in Safari (Safari's own
 * x-safari-https:// scheme, which those web views hand to the system), the App Store listing when the link has an
 * iOS app (the store then offers Open or Get), and the plain destination. No script.
 */
export function openOutsidePage(destination: string, safari: string | null, store: string | null): string {
  const button = (href: string, text: string) => `<a class="btn" href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
  return page(
    "Open in your browser",
    `<h1>Open this link outside the app</h1><p>This app's browser cannot open other apps, and you are not signed in here. Open the link in Safari${store === null ? "" : " or in its app"}.</p>` +
      `<p class="actions">${safari === null ? "" : button(safari, "Open in Safari")}${store === null ? "" : button(store, "Open the app")}</p>` +
      `<p class="fine">Or stay here: <a href="${escapeHtml(destination)}">${escapeHtml(destination)}</a></p>`,
  );
}
