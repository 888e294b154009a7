// Start-up before PostgreSQL is up (docs/operations.md, Start-up): a service manager often starts snip
// with or before its database. snip waits with backoff for DATABASE_WAIT_S, says once what it waits for
// (host, port and database, never the password), then gives up with one clear line.
import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";
import { isDatabaseUnavailable } from "./unavailable.js";

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5_000;

/** host:port/database of a postgres:// URL: what a log line may show of it. */
export function postgresTarget(url: string): string {
  const u = new URL(url);
  return `${u.hostname || "localhost"}:${u.port || "5432"}/${decodeURIComponent(u.pathname.replace(/^\//, "")) || "(default database)"}`;
}

/** Resolves once `select 1` answers; a refusal that is not "not now" (a wrong password) fails at once. */
export async function waitForPostgres(
  db: Kysely<unknown>,
  url: string,
  waitMs: number,
  log?: Pick<Logger, "warn">,
  sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)),
): Promise<void> {
  const deadline = Date.now() + waitMs;
  let delay = FIRST_DELAY_MS;
  let said = false;
  for (;;) {
    try {
      await sql`select 1`.execute(db);
      return;
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `PostgreSQL at ${postgresTarget(url)} did not answer within ${Math.round(waitMs / 1000)} s (DATABASE_WAIT_S): ${(err as Error).message}`,
          { cause: err },
        );
      }
      if (!said) {
        log?.warn(
          { database: postgresTarget(url), wait_s: Math.round(waitMs / 1000) },
          `waiting for PostgreSQL at ${postgresTarget(url)} (up to ${Math.round(waitMs / 1000)} s, DATABASE_WAIT_S)`,
        );
        said = true;
      }
      await sleep(Math.min(delay, left));
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  }
}
