// The audit log: one append-only row per operator action, and per account holder's security change to their
// own account (who and in which role, what, when, before and after),
// written in the action's own transaction so that an action and its record land together or not at all.
import { type Kysely, sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { AdminAuditRow, Database } from "../storage/schema.js";
import { containsPattern } from "../shared/like.js";
import type { AuditEntry } from "../contract/admin.js";
import { appendAudit, publicAuditEntry } from "../storage/audit-entry.js";

export { actorRole, publicAuditEntry } from "../storage/audit-entry.js";

/** Who acted: an operator's account, or the command line (actor null). */
export interface Actor {
  id: string | null;
  email: string;
}

export const CLI_ACTOR: Actor = { id: null, email: "command line" };

export interface AuditRecord {
  action: string;
  targetType: "account" | "link" | "host" | "blocklist" | "report" | "sso_connection";
  targetId: string;
  summary: string;
  before?: unknown;
  after?: unknown;
  /** The team the entry belongs to (its owner's id), for the team's own audit log. */
  teamId?: string;
}

export interface AuditFilter {
  action?: string;
  actor?: string;
  target?: string;
  /** One team's entries (its owner's id); every entry when absent. */
  teamId?: string;
  /** Entries at or after this time, and before `toMs` (epoch ms). */
  fromMs?: number;
  toMs?: number;
  /** Rows with a smaller id (keyset paging, newest first). */
  before?: number;
  limit: number;
}

function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

export class AuditLog {
  constructor(private readonly db: Db) {}

  /**
   * Appends one entry; pass the action's transaction. The click stream's sinks get it as an `audit` event in the same
   * transaction (docs/stream.md, Audit events): the operator's every entry, an account's its own team's.
   */
  async record(trx: Kysely<Database>, actor: Actor, at: number, e: AuditRecord): Promise<void> {
    const values = {
      at,
      actor_id: actor.id,
      actor_email: actor.email,
      action: e.action,
      target_type: e.targetType,
      target_id: e.targetId,
      summary: e.summary,
      before: json(e.before),
      after: json(e.after),
      team_id: e.teamId ?? null,
    };
    await appendAudit(trx, values);
  }

  /** Newest first; `action` exact, `actor` a substring of the actor's email, `target` a target id. */
  async list(f: AuditFilter): Promise<{ entries: AuditEntry[]; next_cursor: string | null }> {
    const rows = await this.page(f);
    const page = rows.slice(0, f.limit);
    return { entries: page.map(publicAuditEntry), next_cursor: rows.length > f.limit ? String(page[page.length - 1]?.id) : null };
  }

  /** Up to limit + 1 rows of the filter, newest first (one more than a page tells whether another follows). */
  page(f: AuditFilter): Promise<AdminAuditRow[]> {
    let q = this.db
      .selectFrom("admin_audit")
      .selectAll()
      .orderBy("id", "desc")
      .limit(f.limit + 1);
    if (f.teamId !== undefined) q = q.where("team_id", "=", f.teamId);
    if (f.action) q = q.where("action", "=", f.action);
    if (f.actor) q = q.where(sql<boolean>`lower(actor_email) like ${containsPattern(f.actor)} escape '\\'`);
    if (f.target) q = q.where("target_id", "=", f.target);
    if (f.fromMs !== undefined) q = q.where("at", ">=", f.fromMs);
    if (f.toMs !== undefined) q = q.where("at", "<", f.toMs);
    if (f.before !== undefined) q = q.where("id", "<", f.before);
    return q.execute();
  }
}
