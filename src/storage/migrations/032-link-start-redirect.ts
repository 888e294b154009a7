// A link's start date, redirect status and crawlable mark (docs/api.md, Links): before starts_at visitors
// get a "not open yet" page and no click counts; redirect_status null follows REDIRECT_STATUS; crawlable
// links are the only ones /robots.txt allows (index for its list).
import { type Kysely } from "kysely";

export function linkStartRedirect() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("links").addColumn("starts_at", "bigint").execute();
      await db.schema.alterTable("links").addColumn("redirect_status", "integer").execute();
      await db.schema
        .alterTable("links")
        .addColumn("crawlable", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex("links_crawlable").on("links").columns(["domain", "crawlable"]).execute();
    },
  };
}
