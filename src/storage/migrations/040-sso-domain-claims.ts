// Single sign-on domains as claims (docs/sso.md): several connections may claim one email domain while it is
// pending, and a partial unique index lets only one of them hold it verified. `failing_since` records when a
// verified domain's re-check first found its TXT record gone (the 72-hour grace before it becomes pending).
// SQLite cannot change a primary key, so its table is rebuilt; PostgreSQL changes it in place. Rows are kept.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

const COLUMNS = "domain, connection_id, txt_token, status, next_action, last_checked_at, verified_at, created_at, next_check_at";

async function sqliteUp(db: Kysely<unknown>): Promise<void> {
  // sso_domains is referred to by no other table, so dropping it with foreign keys on cascades nowhere.
  await sql`BEGIN IMMEDIATE`.execute(db);
  try {
    await sql`CREATE TABLE sso_domains_new (
      domain text NOT NULL,
      connection_id text NOT NULL REFERENCES sso_connections (id) ON DELETE CASCADE,
      txt_token text NOT NULL,
      status text NOT NULL,
      next_action text,
      last_checked_at bigint,
      verified_at bigint,
      created_at bigint NOT NULL,
      next_check_at bigint,
      failing_since bigint,
      CONSTRAINT sso_domains_pk PRIMARY KEY (domain, connection_id)
    )`.execute(db);
    await sql.raw(`INSERT INTO sso_domains_new (${COLUMNS}) SELECT ${COLUMNS} FROM sso_domains`).execute(db);
    await sql`DROP TABLE sso_domains`.execute(db);
    await sql`ALTER TABLE sso_domains_new RENAME TO sso_domains`.execute(db);
    await sql`CREATE INDEX sso_domains_connection ON sso_domains (connection_id)`.execute(db);
    await sql`CREATE UNIQUE INDEX sso_domains_verified ON sso_domains (domain) WHERE status = 'verified'`.execute(db);
    await sql`COMMIT`.execute(db);
  } catch (err) {
    await sql`ROLLBACK`.execute(db);
    throw err;
  }
}

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  // Runs in the migrator's transaction.
  await sql`ALTER TABLE sso_domains DROP CONSTRAINT sso_domains_pkey`.execute(db);
  await sql`ALTER TABLE sso_domains ADD CONSTRAINT sso_domains_pk PRIMARY KEY (domain, connection_id)`.execute(db);
  await sql`ALTER TABLE sso_domains ADD COLUMN failing_since bigint`.execute(db);
  await sql`CREATE UNIQUE INDEX sso_domains_verified ON sso_domains (domain) WHERE status = 'verified'`.execute(db);
}

export function ssoDomainClaims(dialect: Dialect) {
  return {
    up: (db: Kysely<unknown>) => (dialect === "sqlite" ? sqliteUp(db) : postgresUp(db)),
  };
}
