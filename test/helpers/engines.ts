// The database matrix: SQLite always; PostgreSQL when TEST_DATABASE_URL is set, in a database of
// its own that each test file creates and drops.
import pg from "pg";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/storage/db.js";

export type EngineName = "sqlite" | "postgres";

if (process.env.SNIP_REQUIRE_POSTGRES && !process.env.TEST_DATABASE_URL) {
  throw new Error("SNIP_REQUIRE_POSTGRES is set but TEST_DATABASE_URL is not: PostgreSQL tests would be skipped");
}

export const ENGINES: EngineName[] = process.env.TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];

/** Where test/helpers/template-databases.ts (vitest's globalSetup) left the run's migrated databases. */
export const PG_TEMPLATE_ENV = "SNIP_TEST_PG_TEMPLATE";
export const SQLITE_TEMPLATE_ENV = "SNIP_TEST_SQLITE_TEMPLATE";

export interface TestDatabase {
  /** DATABASE_URL to give snip; undefined means the default SQLite file under DATA_DIR. */
  databaseUrl: string | undefined;
  drop(): Promise<void>;
}

/**
 * A new, empty database; `migrated`: in a test run, a copy of the run's migrated one (PostgreSQL; a SQLite server's
 * file is copied by copyMigratedSqlite); elsewhere (the benchmarks) empty, and the server migrates it.
 */
export async function createTestDatabase(engine: EngineName, { migrated = false } = {}): Promise<TestDatabase> {
  if (engine === "sqlite") return { databaseUrl: undefined, drop: async () => undefined };
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) throw new Error("TEST_DATABASE_URL is not set");
  const name = `snip_t_${randomBytes(6).toString("hex")}`;
  const testRun = process.env[PG_TEMPLATE_ENV];
  await adminQuery(admin, migrated && testRun ? `CREATE DATABASE ${name} TEMPLATE ${testRun}` : `CREATE DATABASE ${name}`);
  // In a test run, a commit does not wait for its WAL to reach the disk: the tests' many small transactions (a link
  // at a time up to a plan's limit) spent most of their time in fsync. Nothing a test sees changes (a commit is
  // visible at once, and only PostgreSQL's own crash could lose one); the benchmarks keep PostgreSQL's default.
  if (testRun) await adminQuery(admin, `ALTER DATABASE ${name} SET synchronous_commit = off`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    drop: () => adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** One statement on PostgreSQL's admin connection (TEST_DATABASE_URL), on a connection of its own. */
export async function adminQuery(admin: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Puts a copy of the run's migrated SQLite database, if there is one, where a server on `dataDir` opens its own. */
export function copyMigratedSqlite(dataDir: string): void {
  const template = process.env[SQLITE_TEMPLATE_ENV];
  if (template) copyFileSync(template, join(dataDir, "snip.db"));
}

/** Storage on a test database, not migrated: its PostgreSQL database, or a new SQLite file. */
export function openTestStorage(db: TestDatabase): Promise<Storage> {
  return openStorage(
    db.databaseUrl ? { kind: "postgres", url: db.databaseUrl } : { kind: "sqlite", file: join(mkdtempSync(join(tmpdir(), "snip-db-")), "snip.db") },
  );
}
