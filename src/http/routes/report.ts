// The public abuse report form (docs/operator.md): GET /report shows it, POST /report files a report.
// Server-rendered, no JavaScript, no session: anyone may report, throttled per client address.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../app-type.js";
import { formBodies } from "../form-body.js";
import type { AppContext } from "../../context.js";
import { DomainError, type FieldError } from "../../shared/errors.js";
import { reportForm } from "../../admin/reports.js";
import { HTML_CSP, NO_STORE, errorPage, prefersJson } from "../pages.js";
import { REPORT_THANKS_PAGE, reportFormPage } from "../report-page.js";
import { errors } from "../../contract/common.js";
import { ReportFormBody, ReportFormQuery } from "../../contract/reports.js";
import { sendError, toDomainError } from "../errors.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "config" | "redirects" | "reportForm">;

/** Room for 2,000 characters of details percent-encoded (up to 9 bytes each) and the other fields; nothing more. */
export const REPORT_FORM_LIMIT = 32 * 1024;

const PAGE_HEADERS = { "cache-control": NO_STORE, "x-robots-tag": "noindex", "content-security-policy": HTML_CSP };

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).type("text/html; charset=utf-8").send(body);
}

/** The submitted fields, whatever their types, as the form shows them again. */
function keptInput(body: unknown): { link?: string; reason?: string; details?: string; email?: string } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return {};
  const b = body as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? v.slice(0, 20_000) : undefined);
  return { link: text(b.link), reason: text(b.reason), details: text(b.details), email: text(b.email) };
}

/**
 * A cross-site form post is refused: with no session there is no CSRF token to check, so a page elsewhere
 * could otherwise file reports from its visitors' addresses (and use up their throttle). Browsers send
 * Origin on every POST; tools that send none are not browsers and gain nothing from forging it.
 */
function checkOrigin(ctx: Deps, req: FastifyRequest): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  let host: string | null = null;
  try {
    host = origin === "null" ? null : new URL(origin).host.toLowerCase();
  } catch {
    host = null;
  }
  // An HTTP/1.0 request may come without Host.
  const own = typeof req.host === "string" ? req.host.toLowerCase() : "";
  if (host !== null && (host === own || host === ctx.config.baseUrl.host.toLowerCase())) return;
  throw new DomainError("forbidden", "Reports can only be sent from this site's own form");
}

/** Refusals as pages for browsers (the form again for invalid input), as the contract's JSON for the rest. */
async function refuse(ctx: Deps, req: FastifyRequest, reply: FastifyReply, err: unknown): Promise<FastifyReply> {
  const de = toDomainError(err);
  // A refused submission counts against the address's bound on failures (a 403 or 429 was never read).
  if (req.method === "POST" && (de.code === "invalid_request" || de.code === "payload_too_large")) {
    await ctx.reportForm.recordFailure(req.ip).catch((e: unknown) => req.log.warn({ err: e }, "report failure not recorded"));
  }
  if (de.code === "internal_error" || prefersJson(req.headers.accept)) return sendError(req, reply, err);
  switch (de.code) {
    case "invalid_request": {
      const problems: FieldError[] = de.details?.length ? de.details : [{ field: "form", message: de.message }];
      return html(reply, 400, reportFormPage(reportForm(req.method === "POST" ? keptInput(req.body) : keptInput(req.query)), problems));
    }
    case "payload_too_large":
      return html(
        reply,
        413,
        errorPage(413, {
          title: "Report too long",
          heading: "This report is too long",
          text: "The report is larger than this form accepts. Go back, shorten the details and send it again.",
        }),
      );
    case "rate_limited":
      if (de.retryAfter !== undefined) reply.header("retry-after", String(de.retryAfter));
      return html(
        reply,
        429,
        errorPage(429, {
          title: "Too many reports",
          heading: "Too many reports from your address",
          text: "Too many reports were sent from your address in a short time. Wait a while, then send it again.",
        }),
      );
    case "forbidden":
      return html(
        reply,
        403,
        errorPage(403, {
          title: "Report refused",
          heading: "This report was not accepted",
          text: "Reports can only be sent from this site's own form. Open the report form and send it from there.",
        }),
      );
    default:
      return sendError(req, reply, err);
  }
}

export async function reportRoutes(app: App, ctx: Deps): Promise<void> {
  await app.register(async (plain) => {
    const scope = plain as unknown as App;
    // The form posts urlencoded; a parser of its own, small, for this scope only (as the link-password form).
    formBodies(scope, REPORT_FORM_LIMIT);
    scope.setErrorHandler((err, req, reply) => refuse(ctx, req, reply, err));

    scope.get(
      "/report",
      {
        schema: {
          tags: ["reports"],
          summary: "The abuse report form (HTML), prefilled with ?link= (a short URL or an alias)",
          querystring: ReportFormQuery,
          response: errors(400),
        },
      },
      async (req, reply) => html(reply, 200, reportFormPage(reportForm({ link: req.query.link }))),
    );

    scope.post(
      "/report",
      {
        bodyLimit: REPORT_FORM_LIMIT,
        // Not a session action: anonymous, outside /api; cross-site posts are refused by Origin instead.
        config: { csrf: false },
        // Before the body is read: a cross-site post or an address past its throttle costs no parsing.
        onRequest: async (req) => {
          checkOrigin(ctx, req);
          await ctx.reportForm.checkThrottle(req.ip);
        },
        schema: {
          tags: ["reports"],
          summary: "File an abuse report (form fields link, reason, details, email): the same thank-you page whether or not the link exists",
          body: ReportFormBody,
          response: errors(400, 403, 413, 429),
        },
      },
      async (req, reply) => {
        // A bare alias is a link on this page's host (HTTP/1.0 may send no Host: the main host, then).
        const host = typeof req.hostname === "string" ? req.hostname : "";
        await ctx.reportForm.submit(req.body, req.ip, host === "" ? "" : ctx.redirects.domainFor(host));
        return html(reply, 200, REPORT_THANKS_PAGE);
      },
    );
  });
}
