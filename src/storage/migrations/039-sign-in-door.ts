// The one door to every account (docs/security.md): how each session was made (its way in) and when its
// owner last proved who they are (sudo mode), and each account's own security activity (90 days).
import type { Kysely } from "kysely";

export function signInDoor() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Sessions made before this have no way recorded (null: not single sign-on) and no recent proof.
      await db.schema.alterTable("sessions").addColumn("way", "text").execute();
      await db.schema.alterTable("sessions").addColumn("reauth_at", "bigint").execute();
      await db.schema
        .createTable("security_events")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("way", "text")
        .addColumn("outcome", "text", (c) => c.notNull())
        .addColumn("browser", "text")
        .addColumn("os", "text")
        .addColumn("country", "text")
        .addColumn("detail", "text")
        .execute();
      await db.schema.createIndex("security_events_user_at").on("security_events").columns(["user_id", "at"]).execute();
      await db.schema.createIndex("security_events_at").on("security_events").column("at").execute();
    },
  };
}
