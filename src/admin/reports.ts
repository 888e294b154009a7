// Abuse reports (docs/operator.md): anyone may report a short link through the public form; operators work
// the queue (dismiss, disable the link, ban its owner), each decision audited in its own transaction.
import type { Kysely, Transaction } from "kysely";
import type { Db } from "../storage/db.js";
import type { AbuseReportRow, Database, LinkRow } from "../storage/schema.js";
import { type RateEvents, type WindowState, retryAfterSeconds } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { DomainError, type FieldError, invalid } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { decodeKeyset, encodeKeyset } from "../shared/keyset.js";
import { normalizeEmail } from "../accounts/accounts.js";
import { ALIAS_RE } from "../links/validate.js";
import { isReservedAlias } from "../links/reserved.js";
import type { LinkService } from "../links/links.js";
import type { LinkKey } from "../links/changes.js";
import type { Actor, AuditLog } from "./audit-log.js";
import { type AdminLink, REASON_MAX, disabledOf, setDisabled } from "./link-moderation.js";

export const REPORT_REASONS = ["phishing", "malware", "spam", "illegal", "other"] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
export const REPORT_STATES = ["open", "dismissed", "link_disabled", "owner_banned"] as const;
export type ReportState = (typeof REPORT_STATES)[number];

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

export interface ReportDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  links: LinkService;
  rate: RateEvents;
  /** BASE_URL's hostname: short URLs there have domain "". */
  ownHost: string;
  /** REPORTS_PER_HOUR: accepted reports per client address. */
  perHour: number;
  /** Tells every instance's redirect cache, after the commit (a failed notice never fails the decision). */
  linksChanged: (keys: LinkKey[]) => Promise<void>;
}

export interface PublicReport {
  id: string;
  link: AdminLink | null;
  domain: string | null;
  alias: string;
  url: string;
  reason: string;
  details: string;
  reporter_email: string | null;
  state: string;
  created_at: string;
  resolved_at: string | null;
  resolved_by_email: string | null;
  reports_for_link: number;
}

export interface ReportFilter {
  state?: ReportState;
  cursor?: string;
  limit: number;
}

/** A link an operator disables: visitors get `status` (410, or 451 for legal reasons). */
export interface DisableChoice {
  reason?: string;
  status?: 410 | 451;
}

/** Decodes the report form's `link`: a short URL (BASE_URL's host or a verified custom domain), or an alias. */
export interface ReportedLink {
  domain: string;
  alias: string;
}

type ReportRowWithResolver = AbuseReportRow & { resolved_by_email: string | null };

/** "sn.ip/abc" or "abc" (main host): how a report names its link in summaries. */
function linkLabel(domain: string, alias: string, ownHost: string): string {
  return `${domain === "" ? ownHost : domain}/${alias}`;
}

export class ReportService {
  constructor(private readonly deps: ReportDeps) {}

  // ---- the public form ------------------------------------------------------------------------

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
      .values({
        id: newId(),
        link_id: link.id,
        domain: link.domain,
        alias: link.alias,
        url: link.url,
        reason: reason as string,
        details: details as string,
        reporter_email: email ?? null,
        state: "open",
        created_at: now,
        resolved_at: null,
        resolved_by: null,
      })
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

  // ---- the operators' queue -------------------------------------------------------------------

  /** Newest first, with each report's link (null once deleted) and how many reports that link has. */
  async list(f: ReportFilter): Promise<{ reports: PublicReport[]; next_cursor: string | null }> {
    let q = this.deps.db
      .selectFrom("abuse_reports as r")
      .leftJoin("users as resolver", "resolver.id", "r.resolved_by")
      .selectAll("r")
      .select("resolver.email as resolved_by_email")
      .orderBy("r.created_at", "desc")
      .orderBy("r.id", "desc")
      .limit(f.limit + 1);
    if (f.state) q = q.where("r.state", "=", f.state);
    if (f.cursor) {
      const c = decodeKeyset(f.cursor);
      q = q.where((eb) => eb.or([eb("r.created_at", "<", c.createdAt), eb.and([eb("r.created_at", "=", c.createdAt), eb("r.id", "<", c.id)])]));
    }
    const rows = await q.execute();
    const page = rows.slice(0, f.limit);
    const last = page[page.length - 1];
    return { reports: await this.present(page), next_cursor: rows.length > f.limit && last ? encodeKeyset(last) : null };
  }

  async get(id: string): Promise<PublicReport> {
    const row = await this.deps.db
      .selectFrom("abuse_reports as r")
      .leftJoin("users as resolver", "resolver.id", "r.resolved_by")
      .selectAll("r")
      .select("resolver.email as resolved_by_email")
      .where("r.id", "=", id)
      .executeTakeFirst();
    if (!row) throw new DomainError("not_found", "No such report");
    return (await this.present([row]))[0] as PublicReport;
  }

  /** Closes the report (and the link's other open reports) without acting on the link. */
  async dismiss(actor: Actor, id: string): Promise<PublicReport> {
    await this.deps.db.transaction().execute(async (trx) => {
      const { report, now } = await this.claim(trx, actor, id, "dismissed");
      const others = await this.resolveOthers(trx, actor, report, "dismissed", now);
      await this.deps.audit.record(trx, actor, now, {
        action: "report.dismiss",
        targetType: "report",
        targetId: report.id,
        summary: `Report of ${linkLabel(report.domain, report.alias, this.deps.ownHost)} (${report.reason}) dismissed`,
        before: { state: "open" },
        after: { state: "dismissed", also_resolved: others },
      });
      await this.recordOthers(trx, actor, now, "report.dismiss", report, others, "dismissed");
    });
    return this.get(id);
  }

  /** Disables the reported link (visitors get 410 or 451) and closes its open reports. */
  async disableLink(actor: Actor, id: string, choice: DisableChoice): Promise<PublicReport> {
    const changed: LinkKey[] = [];
    await this.deps.db.transaction().execute(async (trx) => {
      const { report, now } = await this.claim(trx, actor, id, "link_disabled");
      const link = await this.reportedLink(trx, report);
      const reason = checkDisableReason(choice.reason, report.reason);
      const status = choice.status ?? 410;
      const before = disabledOf(link);
      await setDisabled(trx, [link.id], { reason, status, at: now }, true);
      changed.push({ domain: link.domain, alias: link.alias });
      const others = await this.resolveOthers(trx, actor, report, "link_disabled", now);
      await this.deps.audit.record(trx, actor, now, {
        action: "report.disable_link",
        targetType: "report",
        targetId: report.id,
        summary: `Report of ${linkLabel(link.domain, link.alias, this.deps.ownHost)} (${report.reason}): link disabled (${status}): ${reason}`,
        before: { state: "open", link: { id: link.id, disabled: before } },
        after: { state: "link_disabled", link: { id: link.id, disabled: { reason, status } }, also_resolved: others },
      });
      await this.recordOthers(trx, actor, now, "report.disable_link", report, others, "link_disabled");
    });
    await this.deps.linksChanged(changed);
    return this.get(id);
  }

  /**
   * Suspends the reported link's owner and disables every link of theirs not already disabled (410); the
   * open reports of all those links are resolved with it. Links disabled before keep their own decision.
   */
  async banOwner(actor: Actor, id: string, choice: { reason?: string }): Promise<PublicReport> {
    const changed: LinkKey[] = [];
    await this.deps.db.transaction().execute(async (trx) => {
      const { report, now } = await this.claim(trx, actor, id, "owner_banned");
      const link = await this.reportedLink(trx, report);
      if (link.owner_id === null) throw new DomainError("conflict", "The reported link has no owner (it was created signed out); disable the link instead");
      if (link.owner_id === actor.id) throw new DomainError("conflict", "You cannot ban your own account");
      const owner = await trx.selectFrom("users").select(["id", "email", "status"]).where("id", "=", link.owner_id).executeTakeFirstOrThrow();
      const reason = checkDisableReason(choice.reason, report.reason);
      await trx.updateTable("users").set({ status: "suspended", updated_at: now }).where("id", "=", owner.id).execute();
      const targets = await trx.selectFrom("links").select(["id", "domain", "alias"]).where("owner_id", "=", owner.id).where("disabled_at", "is", null).execute();
      await setDisabled(trx, targets.map((t) => t.id), { reason, status: 410, at: now });
      changed.push(...targets.map((t) => ({ domain: t.domain, alias: t.alias })));
      const others = await this.resolveOthers(trx, actor, report, "owner_banned", now, owner.id);
      await this.deps.audit.record(trx, actor, now, {
        action: "report.ban_owner",
        targetType: "report",
        targetId: report.id,
        summary: `Report of ${linkLabel(link.domain, link.alias, this.deps.ownHost)} (${report.reason}): owner ${owner.email} suspended, ${targets.length} link(s) disabled: ${reason}`,
        before: { state: "open", owner: { id: owner.id, email: owner.email, status: owner.status } },
        after: { state: "owner_banned", owner: { id: owner.id, email: owner.email, status: "suspended" }, links_disabled: targets.map((t) => t.id), also_resolved: others },
      });
      await this.recordOthers(trx, actor, now, "report.ban_owner", report, others, "owner_banned");
    });
    await this.deps.linksChanged(changed);
    return this.get(id);
  }

  /**
   * Moves an open report to `state`, or refuses: 404 unknown, 409 already resolved. A conditional update,
   * so two operators deciding at once cannot both win.
   */
  private async claim(trx: Transaction<Database>, actor: Actor, id: string, state: ReportState): Promise<{ report: AbuseReportRow; now: number }> {
    const now = this.deps.clock.now();
    const res = await trx
      .updateTable("abuse_reports")
      .set({ state, resolved_at: now, resolved_by: actor.id })
      .where("id", "=", id)
      .where("state", "=", "open")
      .executeTakeFirst();
    const report = await trx.selectFrom("abuse_reports").selectAll().where("id", "=", id).executeTakeFirst();
    if (!report) throw new DomainError("not_found", "No such report");
    if (Number(res.numUpdatedRows) === 0) throw new DomainError("conflict", `This report is already resolved (${report.state})`);
    return { report, now };
  }

  private async reportedLink(trx: Kysely<Database>, report: AbuseReportRow): Promise<LinkRow> {
    const link = report.link_id === null ? undefined : await trx.selectFrom("links").selectAll().where("id", "=", report.link_id).executeTakeFirst();
    if (!link) throw new DomainError("conflict", "The reported link no longer exists; dismiss the report");
    return link;
  }

  /** The other open reports of the same link (or, for a ban, of any link of `ownerId`), resolved alike; their ids. */
  private async resolveOthers(trx: Transaction<Database>, actor: Actor, report: AbuseReportRow, state: ReportState, now: number, ownerId?: string): Promise<string[]> {
    if (report.link_id === null) return [];
    let q = trx.selectFrom("abuse_reports").select("id").where("state", "=", "open").where("id", "!=", report.id);
    q = ownerId
      ? q.where("link_id", "in", trx.selectFrom("links").select("id").where("owner_id", "=", ownerId))
      : q.where("link_id", "=", report.link_id);
    const ids = (await q.orderBy("created_at").orderBy("id").execute()).map((r) => r.id);
    if (ids.length > 0) {
      await trx.updateTable("abuse_reports").set({ state, resolved_at: now, resolved_by: actor.id }).where("id", "in", ids).where("state", "=", "open").execute();
    }
    return ids;
  }

  /** One audit entry per report resolved along with `report`, so that each report's id finds its decision. */
  private async recordOthers(trx: Transaction<Database>, actor: Actor, now: number, action: string, report: AbuseReportRow, others: string[], state: ReportState): Promise<void> {
    for (const other of others) {
      await this.deps.audit.record(trx, actor, now, {
        action,
        targetType: "report",
        targetId: other,
        summary: `Resolved with report ${report.id} (${state.replace("_", " ")})`,
        before: { state: "open" },
        after: { state, resolved_with: report.id },
      });
    }
  }

  /** Reports as the console shows them: the link with its owner's email, and the link's report count. */
  private async present(rows: ReportRowWithResolver[]): Promise<PublicReport[]> {
    const db = this.deps.db;
    const linkIds = [...new Set(rows.map((r) => r.link_id).filter((x): x is string => x !== null))];
    const links =
      linkIds.length === 0
        ? []
        : await db
            .selectFrom("links")
            .leftJoin("users as owner", "owner.id", "links.owner_id")
            .selectAll("links")
            .select("owner.email as owner_email")
            .select((eb) => eb.selectFrom("users as editor").select("editor.email").whereRef("editor.id", "=", "links.updated_by").as("updated_by_email"))
            .where("links.id", "in", linkIds)
            .execute();
    const current = await this.deps.links.withCurrentCounts(links);
    const byId = new Map(current.map((l) => [l.id, l]));
    const counts = new Map<string, number>();
    if (linkIds.length > 0) {
      const grouped = await db
        .selectFrom("abuse_reports")
        .select((eb) => ["link_id", eb.fn.countAll<number>().as("n")])
        .where("link_id", "in", linkIds)
        .groupBy("link_id")
        .execute();
      for (const g of grouped) counts.set(String(g.link_id), Number(g.n));
    }
    const orphans = rows.filter((r) => r.link_id === null);
    const orphanCounts = new Map<string, number>();
    for (const r of orphans) {
      const key = `${r.domain}/${r.alias}`;
      if (orphanCounts.has(key)) continue;
      const row = await db
        .selectFrom("abuse_reports")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("link_id", "is", null)
        .where("domain", "=", r.domain)
        .where("alias", "=", r.alias)
        .executeTakeFirstOrThrow();
      orphanCounts.set(key, Number(row.n));
    }
    return rows.map((r) => {
      const l = r.link_id === null ? undefined : byId.get(r.link_id);
      return {
        id: r.id,
        link: l ? { ...this.deps.links.toPublic(l), owner_email: l.owner_email ?? null } : null,
        domain: r.domain === "" ? null : r.domain,
        alias: r.alias,
        url: r.url,
        reason: r.reason,
        details: r.details,
        reporter_email: r.reporter_email,
        state: r.state,
        created_at: iso(Number(r.created_at)),
        resolved_at: iso(r.resolved_at === null ? null : Number(r.resolved_at)),
        resolved_by_email: r.resolved_by_email ?? null,
        reports_for_link: r.link_id === null ? (orphanCounts.get(`${r.domain}/${r.alias}`) ?? 1) : (counts.get(r.link_id) ?? 1),
      };
    });
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

/** An operator's reason for disabling: 1 to 500 characters, by default the report's reason. */
function checkDisableReason(raw: string | undefined, reported: string): string {
  const reason = (raw ?? "").trim() || `Reported as ${reported}`;
  if (reason.length > REASON_MAX) throw invalid("reason", `must be at most ${REASON_MAX} characters`);
  return reason;
}
