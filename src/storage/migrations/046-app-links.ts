// App destinations per link (issue 57, docs/deep-links.md): the App Store id and Android package of the app its
// phone visitors are sent to the store of, the in-app path the app opens, and whether in-app browsers get a way
// out (a link's own choice, else the account's default).
import type { Kysely } from "kysely";

export function appLinks() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("links").addColumn("app_ios_store_id", "text").execute();
      await db.schema.alterTable("links").addColumn("app_android_package", "text").execute();
      await db.schema.alterTable("links").addColumn("app_path", "text").execute();
      // 1 or 0; null: the account's default.
      await db.schema.alterTable("links").addColumn("open_outside", "integer").execute();
      await db.schema
        .alterTable("users")
        .addColumn("open_outside", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
