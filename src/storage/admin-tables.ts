// Tables of the operator console: the blocklist's console entries (migration 014), abuse reports and the
// append-only audit log of operator actions (docs/operator.md).
import type { Generated, Selectable } from "kysely";

/** A host (and its subdomains) links may not point to, added in the console (BLOCKLIST_FILE's are in memory). */
export interface BlockedHostsTable {
  host: string;
  note: string;
  created_by: string | null;
  created_at: number;
}

export interface AbuseReportsTable {
  id: string;
  /** Null once the link is deleted. */
  link_id: string | null;
  domain: string;
  alias: string;
  /** The destination when reported. */
  url: string;
  reason: string;
  details: string;
  reporter_email: string | null;
  /** open | dismissed | link_disabled | owner_banned */
  state: string;
  created_at: number;
  resolved_at: number | null;
  resolved_by: string | null;
  /** form (the public form) | feed (a threat feed matched the destination; one open per link). */
  source: Generated<string>;
}

/** Every operator action; append-only (the database refuses UPDATE and DELETE). */
export interface AdminAuditTable {
  id: Generated<number>;
  at: number;
  /** Null for the command line. */
  actor_id: string | null;
  actor_email: string;
  action: string;
  target_type: string;
  target_id: string;
  summary: string;
  /** JSON. */
  before: string | null;
  after: string | null;
  /** The team (its owner's account id) the entry belongs to; null for the instance's and an account's own (migration 052). */
  team_id: string | null;
}

export interface AdminTables {
  blocked_hosts: BlockedHostsTable;
  abuse_reports: AbuseReportsTable;
  admin_audit: AdminAuditTable;
}

export type AbuseReportRow = Selectable<AbuseReportsTable>;
export type AdminAuditRow = Selectable<AdminAuditTable>;
