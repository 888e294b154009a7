// The audit log as the feature folders write to it (admin/audit-log.ts's AuditLog, passed in by context.ts): an entry
// appended in the caller's transaction, so that a change and its entry land together.
import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

export interface AuditWriter {
  record(
    trx: Kysely<Database>,
    actor: { id: string | null; email: string },
    at: number,
    e: { action: string; targetType: "account"; targetId: string; summary: string; before?: unknown; after?: unknown; teamId?: string },
  ): Promise<void>;
}
