// The database types tied to the migrations (`npm run db:types`, src/storage/db-types-check.ts): the tree's
// description matches freshly migrated databases; a probe migration that adds a column is reported by the check
// and fails the type check naming that table and column; a row type changed without a migration fails it too.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { type Kysely, type Migration } from "kysely";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_COLUMNS } from "../../src/storage/db-columns.js";
import { compareColumns, type Columns, type EngineTables, migratedTables, reconcile, renderColumns } from "../../src/storage/db-types.js";

const CHECKED_IN: Columns = DB_COLUMNS;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const POSTGRES = process.env.TEST_DATABASE_URL;
const run = promisify(execFile);

/** The migrations and then `extra`, on SQLite and (with TEST_DATABASE_URL) PostgreSQL, reconciled. */
async function migrated(extra?: Record<string, Migration>) {
  const [sqlite, postgres] = await Promise.all([
    migratedTables("sqlite", { extra }),
    POSTGRES ? migratedTables("postgres", { postgresUrl: POSTGRES, extra }) : Promise.resolve(null),
  ]);
  return reconcile(sqlite, postgres);
}

/** Each line of `source` that fails to compile, with its first error's text (a type check of this file alone and what it imports). */
function typeErrors(dir: string, source: string): Record<number, string> {
  const file = join(dir, "probe.ts");
  writeFileSync(file, source);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ["node"],
    typeRoots: [join(ROOT, "node_modules/@types")],
  });
  const errors: Record<number, string> = {};
  for (const d of ts.getPreEmitDiagnostics(program)) {
    if (d.file?.fileName !== file || d.start === undefined) throw new Error(`unexpected error: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    errors[d.file.getLineAndCharacterOfPosition(d.start).line + 1] ??= ts.flattenDiagnosticMessageText(d.messageText, "\n").split("\n")[0] ?? "";
  }
  return errors;
}

/** Adds links.probe_note (text, nullable) and nothing else. */
const PROBE: Record<string, Migration> = {
  "999-probe": { up: async (db: Kysely<unknown>) => db.schema.alterTable("links").addColumn("probe_note", "text").execute() },
};

describe("database types generated from the migrations", () => {
  const dir = mkdtempSync(join(tmpdir(), "snip-db-types-"));
  // The tree's migrations, and the same with the probe, side by side (PostgreSQL works while SQLite does).
  let runs: [Awaited<ReturnType<typeof migrated>>, Awaited<ReturnType<typeof migrated>>];
  beforeAll(async () => {
    runs = await Promise.all([migrated(), migrated(PROBE)]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the tree's db-columns.ts is what the migrations make, and the engines agree", async () => {
    const [{ columns, errors }] = runs;
    expect(errors).toEqual([]);
    expect(compareColumns(CHECKED_IN, columns, POSTGRES !== undefined)).toEqual([]);
    if (POSTGRES) expect(renderColumns(columns)).toBe(readFileSync(join(ROOT, "src/storage/db-columns.ts"), "utf8"));
    expect(Object.keys(columns.links ?? {})).toContain("crawlable");
    expect(columns.click_staging?.id).toEqual({ sqlite: "INTEGER", postgres: null, ts: "number", nullable: false, defaulted: true });
  });

  it("a migration that adds a column without its type: the check and the type check name that table and column", async () => {
    const [, { columns, errors }] = runs;
    expect(errors).toEqual([]);
    expect(compareColumns(CHECKED_IN, columns, POSTGRES !== undefined)).toEqual(["links.probe_note: a column of the migrated database, not in db-columns.ts"]);
    // Without PostgreSQL (a laptop), what SQLite shows is compared: the same column is reported.
    expect(compareColumns(CHECKED_IN, columns, false)).toEqual(["links.probe_note: a column of the migrated database, not in db-columns.ts"]);
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
    // Without PostgreSQL the probe has no table of PostgreSQL's alone: the checked-in ones stand for them.
    const pgOnly = Object.entries(CHECKED_IN).filter(([, cols]) => Object.values(cols).every((c) => c.sqlite === null));
    writeFileSync(join(dir, "db-columns.ts"), renderColumns(POSTGRES ? columns : { ...Object.fromEntries(pgOnly), ...columns }));
    const storage = join(ROOT, "src/storage");
    const source = [
      `import type { SchemaProblems } from "${storage}/db-types-check.js";`,
      `import type { Database, TagsTable } from "${storage}/schema.js";`,
      `import type { DbColumns as Checked } from "${storage}/db-columns.js";`,
      `import type { DbColumns as Probed } from "./db-columns.js";`,
      "type Check<DB, Cols> = [SchemaProblems<DB, Cols>] extends [never] ? true : SchemaProblems<DB, Cols>;",
      "export const migrationAlone: Check<Database, Probed> = true;",
      "export const typeAlone: Check<Omit<Database, 'tags'> & { tags: TagsTable & { shade: string } }, Checked> = true;",
      "export const nullable: Check<Omit<Database, 'tags'> & { tags: Omit<TagsTable, 'color'> & { color: string | null } }, Checked> = true;",
      "export const kind: Check<Omit<Database, 'tags'> & { tags: Omit<TagsTable, 'created_at'> & { created_at: string } }, Checked> = true;",
      "export const table: Check<Database & { shades: { id: string } }, Checked> = true;",
      "export const tree: Check<Database, Checked> = true;",
    ].join("\n");
    const bad = (message: string) => `Type 'true' is not assignable to type '"${message}"'.`;
    expect(typeErrors(dir, source)).toEqual({
      6: bad("links.probe_note: a column of the database, missing from the row type"),
      7: bad("tags.shade: in the row type, not a column of the database"),
      8: bad("tags.color: nullable in the row type, not in the database"),
      9: bad("tags.created_at: the database holds a number, the row type another type"),
      10: bad("shades: in Database, not a table of the database"),
    });
  });

  it("a difference between the engines is an error unless ENGINE_DIFFERENCES allows it", () => {
    const col = (type: string, nullable = false) => ({ type, nullable, defaulted: false });
    const sqlite: EngineTables = { a: { id: col("TEXT"), note: col("TEXT", true), n: col("bigint") }, click_staging: { id: col("INTEGER") } };
    const postgres: EngineTables = {
      a: { id: col("text"), note: col("text"), n: col("text"), extra: col("int8") },
      b: { id: col("text") },
      link_click_order: { link_id: col("text") },
    };
    expect(reconcile(sqlite, postgres).errors).toEqual([
      "a.note: nullable on SQLite, not null on PostgreSQL",
      "a.n: number on SQLite (bigint), string on PostgreSQL (text)",
      "a.extra: a column on PostgreSQL only",
      "b: a table on PostgreSQL only",
    ]);
    expect(reconcile(sqlite, null)).toEqual({
      errors: [],
      columns: {
        a: {
          id: { sqlite: "TEXT", postgres: null, ts: "string", nullable: false, defaulted: false },
          n: { sqlite: "bigint", postgres: null, ts: "number", nullable: false, defaulted: false },
          note: { sqlite: "TEXT", postgres: null, ts: "string", nullable: true, defaulted: false },
        },
        click_staging: { id: { sqlite: "INTEGER", postgres: null, ts: "number", nullable: false, defaulted: false } },
      },
    });
    // An allowed column, an entry no difference needs, and a SQL type without a TypeScript kind.
    const allow = [
      { table: "a", column: "note", reason: "test" },
      { table: "a", column: "id", reason: "test" },
    ];
    const one = { a: { id: col("text"), note: col("text"), j: col("jsonb") } };
    expect(reconcile({ a: { id: col("TEXT"), note: col("TEXT", true), j: col("TEXT") } }, one, allow).errors).toEqual([
      "a.j: SQL type jsonb has no TypeScript kind (add it to KINDS in src/storage/db-types.ts)",
      "ENGINE_DIFFERENCES lists a.id, which the engines have alike",
    ]);
  });

  it("db:types --check fails, saying why (the password hidden), when PostgreSQL is required and does not answer", async () => {
    const env = { ...process.env, TEST_DATABASE_URL: "postgres://postgres:secret@127.0.0.1:1/test" };
    const failed = await run(process.execPath, ["--import", "tsx", "scripts/db-types.ts", "--check"], { cwd: ROOT, env }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(
      /^db:types: PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/test is not usable \(.+\); the description needs both engines\.\n$/,
    );
  });
});
