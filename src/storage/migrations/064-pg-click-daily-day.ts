// PostgreSQL: click_daily indexed by day, for account analytics' top links over a short period (7d, 30d). Their
// candidates are the links whose all-time clicks could reach the period's TOP_Nth sum: thousands of links on an
// account of years, each probed through (link_id, day). A day's rows are written together (the writer inserts a
// link's row at its first click of the day), so the period's rows lie on a few hundred pages that this index finds:
// bench:big's 7d top links read 725 buffers instead of 32,000. The index holds `day` alone, which no update of a
// row changes: the writer's updates of clicks and visitors stay HOT where the page has room (click_daily's pages
// are filled to 100 %, so many are not HOT with or without it). PostgreSQL picks it or the per-link probes by
// its statistics (the probes win for an owner of a few links among many). SQLite's click_daily is read by link
// (its 7d is under its goal: bench/README.md).
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function pgClickDailyDay(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === "postgres") await sql`CREATE INDEX click_daily_day ON click_daily (day)`.execute(db);
    },
  };
}
