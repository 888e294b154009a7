// `npm run db:types`: writes src/storage/db-columns.ts from freshly migrated SQLite and PostgreSQL databases
// (a temporary database on TEST_DATABASE_URL's server, else postgres://postgres@127.0.0.1:5432/test, dropped
// after). With --check it writes nothing and fails when the file differs (`npm run typecheck` runs it so).
// PostgreSQL unreachable: SQLite alone is compared, unless SNIP_REQUIRE_POSTGRES=1 or TEST_DATABASE_URL is
// set (CI), where that fails.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compareColumns, type EngineTables, migratedTables, PostgresUnreachable, reconcile, renderColumns } from "../src/storage/db-types.js";

const FILE = fileURLToPath(new URL("../src/storage/db-columns.ts", import.meta.url));
const check = process.argv.includes("--check");
const postgresUrl = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const requirePostgres = process.env.SNIP_REQUIRE_POSTGRES === "1" || process.env.TEST_DATABASE_URL !== undefined;

function fail(lines: string[]): never {
  for (const line of lines) console.error(line);
  process.exit(1);
}

let postgres: EngineTables | null = null;
try {
  postgres = await migratedTables("postgres", { postgresUrl });
} catch (err) {
  if (!(err instanceof PostgresUnreachable)) throw err;
  const shown = new URL(postgresUrl);
  if (shown.password) shown.password = "***";
  const why = `PostgreSQL at ${shown.toString()} is not usable (${err.message})`;
  if (requirePostgres || !check) fail([`db:types: ${why}; the description needs both engines.`]);
  console.warn(`db:types: ${why}: SQLite alone is checked.`);
}

const { columns, errors } = reconcile(await migratedTables("sqlite"), postgres);
if (errors.length > 0)
  fail(["db:types: the engines' schemas differ (allowed differences are in ENGINE_DIFFERENCES, src/storage/db-types.ts):", ...errors.map((e) => `  ${e}`)]);
const source = renderColumns(columns);

if (!check) {
  writeFileSync(FILE, source);
  console.log(`db:types: wrote src/storage/db-columns.ts (${Object.keys(columns).length} tables).`);
} else {
  const { DB_COLUMNS } = await import("../src/storage/db-columns.js");
  const differences = compareColumns(DB_COLUMNS, columns, postgres !== null);
  const run = "run `npm run db:types`, then update the row types in src/storage/ until `npm run typecheck` passes";
  if (differences.length > 0) fail([`src/storage/db-columns.ts differs from the migrated databases: ${run}.`, ...differences.map((d) => `  ${d}`)]);
  if (postgres !== null && readFileSync(FILE, "utf8") !== source)
    fail(["src/storage/db-columns.ts is not as `npm run db:types` writes it (edited by hand?): run `npm run db:types`."]);
}
