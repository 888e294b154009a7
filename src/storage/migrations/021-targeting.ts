// Redirect rules and weighted splits (docs/api.md, Redirect rules): a link's rules and split as JSON text
// (null when none), and where each click went (clicks.destination: rule:N, ios, android, variant:N; null
// for the link's own url, the "default" of statistics).
import { type Kysely } from "kysely";
import type { Dialect } from "../db.js";

export function targeting(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("links").addColumn("rules", "text").execute();
      await db.schema.alterTable("links").addColumn("split", "text").execute();
      await db.schema.alterTable("clicks").addColumn("destination", "text").execute();
      // SQLite's raw clicks wait there until a roll-up moves them into clicks (migration 007).
      if (dialect === "sqlite") await db.schema.alterTable("click_staging").addColumn("destination", "text").execute();
    },
  };
}
