// Abuse reports the threat feeds file (docs/operator.md, Threat feeds): `source` says who filed a report (`form`:
// the public form; `feed`: a threat feed matched the link's destination), and a link has at most one open report
// from the feeds, however many instances or reloads find the match.
import { type Kysely, sql } from "kysely";

export function feedReports() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("abuse_reports")
        .addColumn("source", "text", (c) => c.notNull().defaultTo("form"))
        .execute();
      await db.schema
        .createIndex("abuse_reports_open_feed")
        .on("abuse_reports")
        .column("link_id")
        .unique()
        .where(sql.ref("source"), "=", "feed")
        .where(sql.ref("state"), "=", "open")
        .execute();
    },
  };
}
