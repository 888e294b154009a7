// SQLite: the raw clicks of links with a few clicks per flush (a long tail) are first appended to
// click_staging, a table with no index, and moved into clicks by the roll-ups, a large chunk per
// transaction. On a long tail a flush touched one page of the clicks index per distinct link, and wrote
// that page again in every flush; a move writes each page once. Ids are AUTOINCREMENT: the oldest
// staged rows are moved first, by id. PostgreSQL writes clicks with each batch and has no such table.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";
import { SQLITE_CLICK_VALUES } from "./006-link-numbers.js";

export function clickStaging(dialect: Dialect) {
  return {
    up: async (db: Kysely<unknown>) => {
      if (dialect !== "sqlite") return;
      await sql.raw(`CREATE TABLE click_staging (id integer PRIMARY KEY AUTOINCREMENT, link_num integer NOT NULL, ${SQLITE_CLICK_VALUES})`).execute(db);
    },
  };
}
