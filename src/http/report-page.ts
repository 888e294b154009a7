// The public abuse report pages (docs/operator.md): the form, shown again with its errors and the input kept,
// and the thank-you page, which is the same for every accepted report whatever the link.
import type { FieldError } from "../shared/errors.js";
import { DETAILS_MAX, LINK_INPUT_MAX, REPORT_REASONS, type ReportForm } from "../admin/reports.js";
import { escapeHtml, page } from "./pages.js";

const REASON_LABELS: Record<(typeof REPORT_REASONS)[number], string> = {
  phishing: "Phishing (pretends to be another site to steal logins or payment details)",
  malware: "Malware (downloads or runs harmful software)",
  spam: "Spam",
  illegal: "Illegal content",
  other: "Something else",
};

/** What may not be shown back even escaped (control characters, lone surrogates): the replacement character. */
const UNSHOWABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function shown(value: string): string {
  return escapeHtml(value.replace(UNSHOWABLE, "\uFFFD"));
}

const FIELD_LABELS: Record<string, string> = { link: "Short link", reason: "Reason", details: "Details", email: "Your email" };

/** The report form; `problems` are listed above it, the fields keep what was typed. */
export function reportFormPage(form: ReportForm, problems: FieldError[] = []): string {
  const errors =
    problems.length === 0
      ? ""
      : `<div class="err" role="alert"><p>The report was not sent:</p><ul>${problems
          .map((p) => `<li>${shown(FIELD_LABELS[p.field] ? `${FIELD_LABELS[p.field]}: ${p.message}` : p.message)}</li>`)
          .join("")}</ul></div>`;
  const options = [`<option value=""${form.reason === "" ? " selected" : ""}>Choose a reason</option>`]
    .concat(REPORT_REASONS.map((r) => `<option value="${r}"${form.reason === r ? " selected" : ""}>${escapeHtml(REASON_LABELS[r])}</option>`))
    .join("");
  return page(
    "Report a link",
    `<h1>Report a link</h1><p>Tell the operators of this service about a short link used for phishing, malware, spam or anything illegal.</p>` +
      errors +
      `<form method="post" action="/report">` +
      `<label for="link">Short link</label><input id="link" name="link" type="text" required maxlength="${LINK_INPUT_MAX}" placeholder="https://…/abc123" value="${shown(form.link)}">` +
      `<label for="reason">Reason</label><select id="reason" name="reason" required>${options}</select>` +
      `<label for="details">Details</label><textarea id="details" name="details" maxlength="${DETAILS_MAX}" placeholder="What did the link lead to?">${shown(form.details)}</textarea>` +
      `<label for="email">Your email (optional)</label><input id="email" name="email" type="email" maxlength="254" autocomplete="email" value="${shown(form.email)}">` +
      `<p class="hint">Only the operators of this service see your email, to ask you about the report. The link's owner never does.</p>` +
      `<p class="actions"><button class="btn" type="submit">Send report</button></p></form>`,
  );
}

/** One page for every accepted report: it never says whether the link exists or whose it is. */
export const REPORT_THANKS_PAGE = page(
  "Report received",
  `<h1>Thank you for your report</h1><p>The operators of this service will look at the link and act if it breaks the rules. You need to do nothing more; if you gave your email, they may write to you with questions.</p>` +
    `<p class="actions"><a class="btn" href="/">Go to the home page</a></p>`,
);
