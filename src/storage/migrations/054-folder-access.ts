// Per-member folder access (issue 58, docs/folders.md, Access): an Enterprise owner limits a member of its team
// to `none` or `read` on one of its folders, or states `write`; no row: the member's role decides. The row goes with
// the folder (cascade) and with the membership (cascade on team_members' key: a member who leaves and comes back
// starts again from the default).
import type { Kysely } from "kysely";

export function folderAccess() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("folder_access")
        .addColumn("folder_id", "text", (c) => c.notNull().references("folders.id").onDelete("cascade"))
        .addColumn("owner_id", "text", (c) => c.notNull())
        .addColumn("member_id", "text", (c) => c.notNull())
        .addColumn("access", "text", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("folder_access_pk", ["folder_id", "member_id"])
        .addForeignKeyConstraint("folder_access_membership", ["owner_id", "member_id"], "team_members", ["owner_id", "member_id"], (fk) =>
          fk.onDelete("cascade"),
        )
        .execute();
      // Every request of a member reads its limits in one owner's team.
      await db.schema.createIndex("folder_access_member").on("folder_access").columns(["owner_id", "member_id"]).execute();
    },
  };
}
