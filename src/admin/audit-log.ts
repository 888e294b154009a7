// The audit log: one append-only row per operator action, and per account holder's security change to their
// own account (who and in which role, what, when, before and after),
// written in the action's own transaction so that an action and its record land together or not at all.
import { type Kysely, sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { AdminAuditRow, Database } from "../storage/schema.js";
import { iso } from "../shared/clock.js";
import { containsPattern } from "../shared/like.js";
import type { AuditEntry } from "../contract/admin.js";
import type { AuditActorRole } from "../contract/tables.js";

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
  /** Rows with a smaller id (keyset paging, newest first). */
  before?: number;
  limit: number;
}

function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

function parse(text: string | null): unknown {
  return text === null ? null : (JSON.parse(text) as unknown);
}

/** The operator console's actions (docs/operator.md, Audit log); every other action is an account holder's on their own account. */
const OPERATOR_ACTIONS = new Set([
  "account.plan",
  "account.status",
  "account.delete",
  "account.admin",
  "link.disable",
  "link.enable",
  "link.disable_bulk",
  "blocklist.add",
  "blocklist.remove",
  "report.dismiss",
  "report.disable_link",
  "report.ban_owner",
  "apps.update",
  "apps.remove",
]);

/**
 * Who acted: the command line and automatic checks have no account (system); the console's actions are an
 * operator's; a single sign-on connection's removal is its owner's (`before.owner_id`) or an operator's; the
 * rest (two-factor sign-in, passkeys, the team policy, single sign-on set-up) are the account holder's own.
 */
export function actorRole(r: Pick<AdminAuditRow, "actor_id" | "actor_email" | "action" | "summary">, before: unknown): AuditActorRole {
  if (r.actor_id === null) return "system";
  if (OPERATOR_ACTIONS.has(r.action)) return "operator";
  if (r.action === "sso.delete") {
    const owner = typeof before === "object" && before !== null && "owner_id" in before ? before.owner_id : undefined;
    // Entries written before the owner was recorded: the owner's own removal says so in its summary (connections.ts).
    const own = owner === undefined ? r.summary === `${r.actor_email} removed their single sign-on connection` : owner === r.actor_id;
    return own ? "account_holder" : "operator";
  }
  return "account_holder";
}

export function publicAuditEntry(r: AdminAuditRow): AuditEntry {
  const before = parse(r.before);
  return {
    id: String(r.id),
    at: iso(Number(r.at)),
    actor_id: r.actor_id,
    actor_email: r.actor_email,
    actor_role: actorRole(r, before),
    action: r.action,
    target_type: r.target_type,
    target_id: r.target_id,
    summary: r.summary,
    before,
    after: parse(r.after),
  };
}

export class AuditLog {
  constructor(private readonly db: Db) {}

  /** Appends one entry; pass the action's transaction. */
  async record(trx: Kysely<Database>, actor: Actor, at: number, e: AuditRecord): Promise<void> {
    await trx
      .insertInto("admin_audit")
      .values({
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
      })
      .execute();
  }

  /** Newest first; `action` exact, `actor` a substring of the operator's email, `target` a target id. */
  async list(f: AuditFilter): Promise<{ entries: AuditEntry[]; next_cursor: string | null }> {
    let q = this.db
      .selectFrom("admin_audit")
      .selectAll()
      .orderBy("id", "desc")
      .limit(f.limit + 1);
    if (f.action) q = q.where("action", "=", f.action);
    if (f.actor) q = q.where(sql<boolean>`lower(actor_email) like ${containsPattern(f.actor)} escape '\\'`);
    if (f.target) q = q.where("target_id", "=", f.target);
    if (f.before !== undefined) q = q.where("id", "<", f.before);
    const rows = await q.execute();
    const page = rows.slice(0, f.limit);
    return { entries: page.map(publicAuditEntry), next_cursor: rows.length > f.limit ? String(page[page.length - 1]?.id) : null };
  }
}
