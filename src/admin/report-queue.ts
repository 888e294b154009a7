// The operators' abuse report queue (docs/operator.md): list, dismiss, disable the link, ban its owner,
// each decision audited in its own transaction; reports.ts files them from the public form.
import type { Kysely, Transaction } from "kysely";
import type { Db } from "../storage/db.js";
import type { AbuseReportRow, Database, LinkRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { DomainError, invalid } from "../shared/errors.js";
import { decodeKeyset, encodeKeyset } from "../shared/keyset.js";
import type { LinkService } from "../links/links.js";
import type { LinkKey } from "../links/changes.js";
import type { Actor, AuditLog } from "./audit-log.js";
import { disabledOf, setDisabled } from "./link-moderation.js";
import { REASON_MAX } from "../contract/admin.js";
import type { ReportState } from "./reports.js";
import type { AbuseReport } from "../contract/reports.js";

export interface ReportQueueDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  links: LinkService;
  /** BASE_URL's hostname: summaries name links on it by it. */
  ownHost: string;
  /** Tells every instance's redirect cache, after the commit (a failed notice never fails the decision). */
  linksChanged: (keys: LinkKey[]) => Promise<void>;
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

type ReportRowWithResolver = AbuseReportRow & { resolved_by_email: string | null };

/** "sn.ip/abc" or "abc" (main host): how a report names its link in summaries. */
function linkLabel(domain: string, alias: string, ownHost: string): string {
  return `${domain === "" ? ownHost : domain}/${alias}`;
}

/** The operators' side of abuse reports: the queue and the decisions on it. */
export class ReportQueue {
  constructor(private readonly deps: ReportQueueDeps) {}

  /** Newest first, with each report's link (null once deleted) and how many reports that link has. */
  async list(f: ReportFilter): Promise<{ reports: AbuseReport[]; next_cursor: string | null }> {
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

  async get(id: string): Promise<AbuseReport> {
    const row = await this.deps.db
      .selectFrom("abuse_reports as r")
      .leftJoin("users as resolver", "resolver.id", "r.resolved_by")
      .selectAll("r")
      .select("resolver.email as resolved_by_email")
      .where("r.id", "=", id)
      .executeTakeFirst();
    if (!row) throw new DomainError("not_found", "No such report");
    return (await this.present([row]))[0] as AbuseReport;
  }

  /** Closes the report (and the link's other open reports) without acting on the link. */
  async dismiss(actor: Actor, id: string): Promise<AbuseReport> {
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
  async disableLink(actor: Actor, id: string, choice: DisableChoice): Promise<AbuseReport> {
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
  async banOwner(actor: Actor, id: string, choice: { reason?: string }): Promise<AbuseReport> {
    const changed: LinkKey[] = [];
    await this.deps.db.transaction().execute(async (trx) => {
      const { report, now } = await this.claim(trx, actor, id, "owner_banned");
      const link = await this.reportedLink(trx, report);
      if (link.owner_id === null) throw new DomainError("conflict", "The reported link has no owner (it was created signed out); disable the link instead");
      if (link.owner_id === actor.id) throw new DomainError("conflict", "You cannot ban your own account");
      const owner = await trx.selectFrom("users").select(["id", "email", "status"]).where("id", "=", link.owner_id).executeTakeFirstOrThrow();
      const reason = checkDisableReason(choice.reason, report.reason);
      await trx.updateTable("users").set({ status: "suspended", updated_at: now }).where("id", "=", owner.id).execute();
      const targets = await trx
        .selectFrom("links")
        .select(["id", "domain", "alias"])
        .where("owner_id", "=", owner.id)
        .where("disabled_at", "is", null)
        .execute();
      await setDisabled(
        trx,
        targets.map((t) => t.id),
        { reason, status: 410, at: now },
      );
      changed.push(...targets.map((t) => ({ domain: t.domain, alias: t.alias })));
      const others = await this.resolveOthers(trx, actor, report, "owner_banned", now, owner.id);
      await this.deps.audit.record(trx, actor, now, {
        action: "report.ban_owner",
        targetType: "report",
        targetId: report.id,
        summary: `Report of ${linkLabel(link.domain, link.alias, this.deps.ownHost)} (${report.reason}): owner ${owner.email} suspended, ${targets.length} link(s) disabled: ${reason}`,
        before: { state: "open", owner: { id: owner.id, email: owner.email, status: owner.status } },
        after: {
          state: "owner_banned",
          owner: { id: owner.id, email: owner.email, status: "suspended" },
          links_disabled: targets.map((t) => t.id),
          also_resolved: others,
        },
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
  private async resolveOthers(
    trx: Transaction<Database>,
    actor: Actor,
    report: AbuseReportRow,
    state: ReportState,
    now: number,
    ownerId?: string,
  ): Promise<string[]> {
    if (report.link_id === null) return [];
    let q = trx.selectFrom("abuse_reports").select("id").where("state", "=", "open").where("id", "!=", report.id);
    q = ownerId ? q.where("link_id", "in", trx.selectFrom("links").select("id").where("owner_id", "=", ownerId)) : q.where("link_id", "=", report.link_id);
    const ids = (await q.orderBy("created_at").orderBy("id").execute()).map((r) => r.id);
    if (ids.length > 0) {
      await trx
        .updateTable("abuse_reports")
        .set({ state, resolved_at: now, resolved_by: actor.id })
        .where("id", "in", ids)
        .where("state", "=", "open")
        .execute();
    }
    return ids;
  }

  /** One audit entry per report resolved along with `report`, so that each report's id finds its decision. */
  private async recordOthers(
    trx: Transaction<Database>,
    actor: Actor,
    now: number,
    action: string,
    report: AbuseReportRow,
    others: string[],
    state: ReportState,
  ): Promise<void> {
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
  private async present(rows: ReportRowWithResolver[]): Promise<AbuseReport[]> {
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
    const shown = await this.deps.links.present(links);
    const byId = new Map(links.map((l, i) => [l.id, { ...shown[i]!, owner_email: l.owner_email ?? null }]));
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
    // Reports of links deleted since are counted by the short URL they named, all in one query.
    const orphans = [...new Map(rows.filter((r) => r.link_id === null).map((r) => [`${r.domain}/${r.alias}`, r])).values()];
    const orphanCounts = new Map<string, number>();
    if (orphans.length > 0) {
      const grouped = await db
        .selectFrom("abuse_reports")
        .select((eb) => ["domain", "alias", eb.fn.countAll<number>().as("n")])
        .where("link_id", "is", null)
        .where((eb) =>
          eb(
            eb.refTuple("domain", "alias"),
            "in",
            orphans.map((r) => eb.tuple(r.domain, r.alias)),
          ),
        )
        .groupBy(["domain", "alias"])
        .execute();
      for (const g of grouped) orphanCounts.set(`${g.domain}/${g.alias}`, Number(g.n));
    }
    return rows.map((r) => {
      const l = r.link_id === null ? undefined : byId.get(r.link_id);
      return {
        id: r.id,
        link: l ?? null,
        domain: r.domain === "" ? null : r.domain,
        alias: r.alias,
        url: r.url,
        reason: r.reason,
        details: r.details,
        reporter_email: r.reporter_email,
        source: r.source === "feed" ? ("feed" as const) : ("form" as const),
        state: r.state,
        created_at: iso(Number(r.created_at)),
        resolved_at: iso(r.resolved_at === null ? null : Number(r.resolved_at)),
        resolved_by_email: r.resolved_by_email ?? null,
        reports_for_link: r.link_id === null ? (orphanCounts.get(`${r.domain}/${r.alias}`) ?? 1) : (counts.get(r.link_id) ?? 1),
      };
    });
  }
}

/** An operator's reason for disabling: 1 to 500 characters, by default the report's reason. */
function checkDisableReason(raw: string | undefined, reported: string): string {
  const reason = (raw ?? "").trim() || `Reported as ${reported}`;
  if (reason.length > REASON_MAX) throw invalid("reason", `must be at most ${REASON_MAX} characters`);
  return reason;
}
