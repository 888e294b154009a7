// The database matrix: SQLite always; PostgreSQL when TEST_DATABASE_URL is set, in a database of
// its own that each test file creates and drops.
import pg from "pg";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/storage/db.js";

export type EngineName = "sqlite" | "postgres";

if (process.env.SNIP_REQUIRE_POSTGRES && !process.env.TEST_DATABASE_URL) {
  throw new Error("SNIP_REQUIRE_POSTGRES is set but TEST_DATABASE_URL is not: PostgreSQL tests would be skipped");
}

export const ENGINES: EngineName[] = process.env.TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];

export interface TestDatabase {
  /** DATABASE_URL to give snip; undefined means the default SQLite file under DATA_DIR. */
  databaseUrl: string | undefined;
  drop(): Promise<void>;
}

export async function createTestDatabase(engine: EngineName): Promise<TestDatabase> {
  if (engine === "sqlite") return { databaseUrl: undefined, drop: async () => undefined };
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) throw new Error("TEST_DATABASE_URL is not set");
  const name = `snip_t_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Storage on a test database, not migrated: its PostgreSQL database, or a new SQLite file. */
export function openTestStorage(db: TestDatabase): Promise<Storage> {
  return openStorage(
    db.databaseUrl ? { kind: "postgres", url: db.databaseUrl } : { kind: "sqlite", file: join(mkdtempSync(join(tmpdir(), "snip-db-")), "snip.db") },
  );
}
