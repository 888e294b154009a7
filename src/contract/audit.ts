// The audit log's filters as the team's log and the exports take them (docs/audit.md): the operator's list filters
// (admin.ts, AuditQuery) plus a range of UTC days, and `?owner=` for a team's admins.
import { Type } from "typebox";
import { PageQuery } from "./common.js";

const Day = (which: string) => Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: `${which} day of the range, YYYY-MM-DD in UTC, included` });

const Filters = {
  action: Type.Optional(Type.String({ maxLength: 100, description: "An action exactly (team.role, sso.update, ...)" })),
  actor: Type.Optional(Type.String({ maxLength: 254, description: "A part of the actor's email, any case" })),
  target: Type.Optional(Type.String({ maxLength: 300, description: "A target id exactly" })),
  from: Type.Optional(Day("The first")),
  to: Type.Optional(Day("The last")),
};

const Owner = {
  owner: Type.Optional(Type.String({ maxLength: 64, description: "A team owner's user id: that team, for its admins (404 otherwise, 403 for other roles)" })),
};

/** GET /api/team/audit: the filters, a range, paging. */
export const TeamAuditQuery = Type.Object({ ...Filters, ...Owner, ...PageQuery }, { additionalProperties: false });
/** GET /api/team/audit.csv and .json. */
export const TeamAuditExportQuery = Type.Object({ ...Filters, ...Owner }, { additionalProperties: false });
/** GET /api/admin/audit.csv and .json: every entry of the instance. */
export const AuditExportQuery = Type.Object(Filters, { additionalProperties: false });

/** The formats of an export. */
export type AuditExportFormat = "csv" | "json";

/** The columns of a CSV export, in order; before and after are the entry's JSON text. */
export const AUDIT_CSV_HEADER = [
  "id",
  "at",
  "actor_id",
  "actor_email",
  "actor_role",
  "action",
  "target_type",
  "target_id",
  "summary",
  "before",
  "after",
] as const;

/** The 200 of an export: a file, streamed. */
export function exportReply(format: AuditExportFormat) {
  const type = format === "csv" ? "text/csv" : "application/json";
  const what = format === "csv" ? "text/csv attachment (UTF-8 with BOM, CRLF; a header row)" : "application/json attachment: an array of entries";
  return { description: what, content: { [type]: { schema: Type.Unsafe<unknown>({ type: "string", format: "binary" }) } } };
}
