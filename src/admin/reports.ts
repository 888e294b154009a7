// Abuse reports (docs/operator.md): what a report is (reasons, states) and the public form that files
// them, throttled per client address; the operators' queue that resolves them is report-queue.ts.
import type { Db } from "../storage/db.js";
import { type RateEvents, type WindowState, retryAfterSeconds } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import { DomainError, type FieldError, invalid } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { normalizeEmail } from "../accounts/accounts.js";
import { ALIAS_RE } from "../links/validate.js";
import { isReservedAlias } from "../links/reserved.js";
import type { LinkService } from "../links/links.js";
import { REPORT_STATES, type ReportState } from "../contract/reports.js";
import type { Insertable } from "kysely";
import type { AbuseReportsTable } from "../storage/admin-tables.js";

/** A new open report of `link`: a visitor's (the report form) or the threat feeds' (`source: "feed"`). */
export function openReport(
  link: { id: string; domain: string; alias: string; url: string },
  report: Pick<Insertable<AbuseReportsTable>, "reason" | "details" | "reporter_email" | "source">,
  now: number,
): Insertable<AbuseReportsTable> {
  const { id: link_id, domain, alias, url } = link;
  return { id: newId(), link_id, domain, alias, url, ...report, state: "open", created_at: now, resolved_at: null, resolved_by: null };
}

export const REPORT_REASONS = ["phishing", "malware", "spam", "illegal", "other"] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
export { REPORT_STATES, type ReportState };

export const DETAILS_MAX = 2000;
export const LINK_INPUT_MAX = 2048;
const HOUR = 3_600_000;
/**
 * Refused submissions (400, 413) an address may make per hour: a few typos per accepted report, and no
 * more, so that the form cannot be hammered while staying under the accepted-report limit.
 */
export function failuresPerHour(reportsPerHour: number): number {
  return Math.max(20, 4 * reportsPerHour);
}

export interface ReportInput {
  link?: string;
  reason?: string;
  details?: string;
  email?: string;
}

/** The form's fields as typed, for showing the form again. */
export interface ReportForm {
  link: string;
  reason: string;
  details: string;
  email: string;
}

export interface ReportFormDeps {
  db: Db;
  clock: Clock;
  links: LinkService;
  rate: RateEvents;
  /** BASE_URL's hostname: short URLs there have domain "". */
  ownHost: string;
  /** REPORTS_PER_HOUR: accepted reports per client address. */
  perHour: number;
}

/** Decodes the report form's `link`: a short URL (BASE_URL's host or a verified custom domain), or an alias. */
export interface ReportedLink {
  domain: string;
  alias: string;
}

/** The public report form: throttle, validation, filing. */
export class ReportFormService {
  constructor(private readonly deps: ReportFormDeps) {}

  /**
   * Before reading a submission: 429 (rate_limited with Retry-After) when the address has used its
   * accepted reports or its refused attempts for the hour.
   */
  async checkThrottle(ip: string): Promise<void> {
    const now = this.deps.clock.now();
    const failures = await this.deps.rate.state(`report_fail:${ip}`, now - HOUR);
    if (failures.count >= failuresPerHour(this.deps.perHour)) throw this.limited(failures, now);
    const accepted = await this.deps.rate.state(`report:${ip}`, now - HOUR);
    if (accepted.count >= this.deps.perHour) throw this.limited(accepted, now);
  }

  /** A refused submission (invalid or too large) from `ip`: counted against failuresPerHour. */
  async recordFailure(ip: string): Promise<void> {
    await this.deps.rate.record(`report_fail:${ip}`, this.deps.clock.now());
  }

  /**
   * Validates and files a report. `pageDomain` is the links.domain of the host the form was posted to (a
   * bare alias means a link there). A link that does not exist is accepted the same way and stores
   * nothing: the answer never says whether a link exists. Every accepted report, known link or not,
   * takes one of the address's REPORTS_PER_HOUR, so the throttle cannot tell them apart either.
   */
  async submit(input: ReportInput, ip: string, pageDomain: string): Promise<void> {
    const form = reportForm(input);
    const problems: FieldError[] = [];
    const field = <T>(fn: () => T): T | undefined => {
      try {
        return fn();
      } catch (err) {
        if (err instanceof DomainError && err.details) problems.push(...err.details);
        else throw err;
        return undefined;
      }
    };
    const target = field(() => this.parseLink(form.link, pageDomain));
    const reason = field(() => checkReason(form.reason));
    const details = field(() => checkDetails(form.details));
    const email = field(() => (form.email.trim() === "" ? null : normalizeEmail(form.email)));
    const host = target ? await this.servedHost(target.domain) : true;
    if (!host) problems.push({ field: "link", message: "is not a short link of this service" });
    if (problems.length > 0) throw new DomainError("invalid_request", problems.map((p) => `${p.field}: ${p.message}`).join("; "), problems);

    const now = this.deps.clock.now();
    const slot = await this.deps.rate.take(`report:${ip}`, now - HOUR, this.deps.perHour, now);
    if ("full" in slot) throw this.limited(slot.full, now);
    const t = target as ReportedLink;
    // The visitors' view of the link (a custom domain's only while verified); reserved words are nobody's.
    const link = isReservedAlias(t.alias) ? null : await this.deps.links.find(t.domain, t.alias);
    if (!link) return;
    await this.deps.db
      .insertInto("abuse_reports")
      .values(openReport(link, { reason: reason as string, details: details as string, reporter_email: email ?? null }, now))
      .execute();
  }

  /** An alias (on the page's host) or a short URL, with or without its scheme; syntax only. */
  parseLink(raw: string, pageDomain: string): ReportedLink {
    const text = raw.trim();
    if (text === "") throw invalid("link", "is required: paste the short link you want to report");
    if (text.length > LINK_INPUT_MAX) throw invalid("link", `must be at most ${LINK_INPUT_MAX} characters`);
    if (ALIAS_RE.test(text)) return { domain: pageDomain, alias: text };
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
    } catch {
      throw invalid("link", "must be a short link, e.g. https://example.com/abc123, or its code");
    }
    const alias = url.pathname.replace(/^\//, "").replace(/\/$/, "");
    if ((url.protocol !== "http:" && url.protocol !== "https:") || !ALIAS_RE.test(alias)) {
      throw invalid("link", "must be a short link, e.g. https://example.com/abc123, or its code");
    }
    const host = url.hostname.toLowerCase().replace(/\.$/, "");
    return { domain: host === this.deps.ownHost.toLowerCase() ? "" : host, alias };
  }

  /** BASE_URL's host, or a custom domain that serves links (verified): public knowledge, like the domain's DNS. */
  private async servedHost(domain: string): Promise<boolean> {
    if (domain === "") return true;
    const row = await this.deps.db.selectFrom("domains").select("hostname").where("hostname", "=", domain).where("status", "=", "verified").executeTakeFirst();
    return row !== undefined;
  }

  private limited(state: WindowState, now: number): DomainError {
    return new DomainError("rate_limited", "Too many reports from this address; try again later", undefined, undefined, retryAfterSeconds(state, HOUR, now));
  }
}

/** The form's fields as strings (missing ones empty), newlines as the textarea holds them. */
export function reportForm(input: ReportInput): ReportForm {
  return {
    link: input.link ?? "",
    reason: input.reason ?? "",
    // Browsers submit a textarea's line breaks as CRLF; its maxlength counts them as one character.
    details: (input.details ?? "").replace(/\r\n?/g, "\n"),
    email: input.email ?? "",
  };
}

function checkReason(reason: string): ReportReason {
  if (!(REPORT_REASONS as readonly string[]).includes(reason)) throw invalid("reason", `choose one of ${REPORT_REASONS.join(", ")}`);
  return reason as ReportReason;
}

function checkDetails(details: string): string {
  const text = details.trim();
  if (text.length > DETAILS_MAX) throw invalid("details", `must be at most ${DETAILS_MAX} characters (you wrote ${text.length})`);
  return text;
}
