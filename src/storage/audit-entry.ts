// An audit entry as the audit log shows it (GET /api/admin/audit, GET /api/team/audit, the exports, the stream's
// `audit` event), and its appending: the row, and in the same transaction the click stream's `audit` event
// (docs/stream.md, Audit events; id audit:<entry id>) for the operator's sinks and the team's own (team_id = owner).
// Here, below the feature folders, so that every folder that appends entries (admin/, accounts/) appends them alike.
import { newId } from "../shared/ids.js";
import type { Insertable } from "kysely";
import type { Db } from "./db.js";
import type { AdminAuditRow, AdminAuditTable } from "./admin-tables.js";
import type { AuditEntry } from "../contract/admin.js";
import type { AuditActorRole } from "../contract/tables.js";
import { iso } from "../shared/clock.js";
import { queueOutward } from "./outward-outbox.js";

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

/** Appends one entry in `trx` (the action's transaction) and queues its stream event there. */
export async function appendAudit(trx: Db, values: Insertable<AdminAuditTable> & { at: number }): Promise<AuditEntry> {
  const { id } = await trx.insertInto("admin_audit").values(values).returning("id").executeTakeFirstOrThrow();
  const row: AdminAuditRow = { actor_id: null, before: null, after: null, team_id: null, ...values, id };
  const entry = publicAuditEntry(row);
  // The entry's number is this database's: with a random part, two databases publishing to one broker (NATS dedupes
  // by this id, a ClickHouse table too) never take one's event for the other's.
  const eventId = `audit:${entry.id}:${newId()}`;
  await queueOutward(trx, { type: "audit", id: eventId, ownerId: row.team_id, at: values.at, link: null, data: { audit: entry } });
  return entry;
}
