// Teams (docs/teams.md): invitations, their emailed tokens (stored hashed,
// replaced ones kept so a stale link can say so), memberships, and links.updated_by (the last editor).
import { type Kysely, sql } from "kysely";

export function teams() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("team_invitations")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("email", "text", (c) => c.notNull())
        // pending | accepted | cancelled
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("sent_at", "bigint", (c) => c.notNull())
        .addColumn("send_confirmed", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("accepted_by", "text", (c) => c.references("users.id").onDelete("set null"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      // One pending invitation per owner and address, whatever the races.
      await sql`CREATE UNIQUE INDEX team_invitations_pending ON team_invitations (owner_id, email) WHERE state = 'pending'`.execute(db);

      await db.schema
        .createTable("team_invitation_tokens")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("invitation_id", "text", (c) => c.notNull().references("team_invitations.id").onDelete("cascade"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("replaced_at", "bigint")
        .execute();
      await db.schema.createIndex("team_invitation_tokens_invitation").on("team_invitation_tokens").column("invitation_id").execute();

      await db.schema
        .createTable("team_members")
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("member_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("joined_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("team_members_pk", ["owner_id", "member_id"])
        .execute();
      await db.schema.createIndex("team_members_member").on("team_members").column("member_id").execute();

      // SQLite accepts a REFERENCES column added to an existing table when its default is NULL.
      await sql`ALTER TABLE links ADD COLUMN updated_by text REFERENCES users (id) ON DELETE SET NULL`.execute(db);
    },
  };
}
