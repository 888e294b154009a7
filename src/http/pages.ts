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

const STYLE =
  "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f6f7fb;color:#1d2433;display:flex;min-height:100vh;align-items:center;justify-content:center;margin:0}" +
  "main{background:#fff;border-radius:12px;box-shadow:0 2px 12px rgba(0,0,0,.08);padding:2rem 2.5rem;max-width:28rem;text-align:center}" +
  "h1{font-size:1.4rem;margin:0 0 .5rem}p{color:#4a5468}a{color:#3056d3}.code{font-size:3rem;font-weight:700;color:#3056d3;margin:0}" +
  "input,select,textarea{font:inherit;padding:.6rem .8rem;border:1px solid #c8cedb;border-radius:8px;width:100%;box-sizing:border-box;margin:.5rem 0}" +
  "textarea{min-height:7rem;resize:vertical}label{display:block;text-align:left;font-weight:600;margin-top:.6rem}.hint{font-size:.85rem;text-align:left;margin:.2rem 0}.report{font-size:.85rem}" +
  "button{font:inherit;background:#3056d3;color:#fff;border:0;border-radius:8px;padding:.6rem 1.2rem;margin-top:.8rem;cursor:pointer}.err{color:#b42318}";

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)} · snip</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** The public abuse report form, for the link given (an alias, relative to the page's host), or empty. */
export function reportHref(link?: string): string {
  return link ? `/report?link=${encodeURIComponent(link)}` : "/report";
}

/**
 * An error page; `report` (a short link's alias, or "" for none in particular) adds a "Report this link"
 * link to the public abuse report form (docs/operator.md).
 */
export function errorPage(status: number, title: string, message: string, report?: string): string {
  const reportLink = report === undefined ? "" : `<p class="report"><a href="${escapeHtml(reportHref(report))}">Report this link</a></p>`;
  return page(title, `<p class="code">${status}</p><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="/">snip</a></p>${reportLink}`);
}

/** The link-password page (GET of a protected link, and again after a wrong password). */
export function passwordForm(wrong: boolean): string {
  return page(
    "Password required",
    `<h1>This link is protected</h1><p>Enter the link's password to continue.</p>` +
      (wrong ? `<p class="err" role="alert">${escapeHtml("Wrong password. Try again.")}</p>` : "") +
      `<form method="post"><input type="password" name="password" aria-label="Password" autocomplete="off" required maxlength="200" autofocus>` +
      `<button type="submit">Continue</button></form>` +
      // Generic: the fast path builds this page once for every protected link (fast-redirect.ts).
      `<p class="report"><a href="${reportHref()}">Report this link</a></p>`,
  );
}
