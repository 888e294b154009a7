// The columns of every table as freshly migrated SQLite and PostgreSQL databases have them, reconciled into
// one description (src/storage/db-columns.ts, written by `npm run db:types`); db-types-check.ts holds
// schema.ts's row types to it at compile time, so a migration and its type change go together.
import { randomBytes } from "node:crypto";
import { type Migration, sql } from "kysely";
import pg from "pg";
import { type Dialect, openStorage, type Storage } from "./db.js";
import { migrateToLatest } from "./migrate.js";

/** What TypeScript type a column's values read as (int8 is parsed to a number: db.ts). */
export type TsKind = "number" | "string" | "Buffer";

/** One column as one engine sees it. */
export interface EngineColumn {
  type: string;
  nullable: boolean;
  /** An insert may leave it out: a default value or an auto-increment. */
  defaulted: boolean;
}

export type EngineTables = Record<string, Record<string, EngineColumn>>;

/** One column as both engines see it; an engine's type is null for a table that engine does not have. */
export interface ColumnShape {
  sqlite: string | null;
  postgres: string | null;
  ts: TsKind;
  nullable: boolean;
  defaulted: boolean;
}

export type Columns = Record<string, Record<string, ColumnShape>>;

export type EngineDifference = { table: string; column?: string; reason: string };

/**
 * Where the engines may differ, with the reason: a table (every column of it) or one column. Any other
 * difference in the set of tables or columns, in nullability or in the kind of values is an error.
 */
export const ENGINE_DIFFERENCES: EngineDifference[] = [
  {
    table: "click_staging",
    reason: "SQLite only (migration 007): raw clicks of the long tail wait there for a roll-up; PostgreSQL writes clicks with each batch",
  },
  {
    table: "link_click_order",
    reason: "PostgreSQL only (migration 061): the list's sorts by clicks and last click, copied from links by triggers so that links has no index on them",
  },
];

const KINDS: Record<string, TsKind> = {
  integer: "number",
  bigint: "number",
  int4: "number",
  int8: "number",
  real: "number",
  float8: "number",
  text: "string",
  blob: "Buffer",
  bytea: "Buffer",
};

/** The TypeScript kind of a SQL type, or null for a type this list does not know yet (an error the caller reports). */
export function tsKind(sqlType: string): TsKind | null {
  return KINDS[sqlType.toLowerCase()] ?? null;
}

/**
 * Every table's columns (Kysely's introspection; its own migration tables left out). SQLite reports a
 * primary key declared without NOT NULL as nullable; the code never stores null in one, and an INTEGER
 * PRIMARY KEY cannot hold one, so primary-key columns count as not null there as on PostgreSQL.
 */
export async function introspect(storage: Storage): Promise<EngineTables> {
  const tables: EngineTables = {};
  // PostgreSQL's partitions (clicks by month, migration 063) are parts of their table, not tables of the schema.
  const partitions =
    storage.dialect === "postgres"
      ? new Set((await sql<{ name: string }>`SELECT relname AS name FROM pg_class WHERE relispartition`.execute(storage.db)).rows.map((r) => r.name))
      : new Set<string>();
  for (const table of await storage.db.introspection.getTables()) {
    if (partitions.has(table.name)) continue;
    const keys = new Set<string>();
    if (storage.dialect === "sqlite") {
      const rows = await sql<{ name: string }>`select name from pragma_table_info(${table.name}) where pk > 0`.execute(storage.db);
      for (const r of rows.rows) keys.add(r.name);
    }
    tables[table.name] = Object.fromEntries(
      table.columns.map((c) => [
        c.name,
        { type: c.dataType, nullable: c.isNullable && !keys.has(c.name), defaulted: c.hasDefaultValue || c.isAutoIncrementing },
      ]),
    );
  }
  return tables;
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Collects the differences between the engines that `allow` does not list, and the entries of `allow` no difference needed. */
class Differences {
  readonly errors: string[] = [];
  private readonly used = new Set<EngineDifference>();

  constructor(private readonly allow: EngineDifference[]) {}

  add(message: string, table: string, column?: string): void {
    const entry = this.allow.find((d) => d.table === table && (d.column === undefined || d.column === column));
    if (entry) this.used.add(entry);
    else this.errors.push(message);
  }

  unused(): string[] {
    return this.allow
      .filter((d) => !this.used.has(d))
      .map((d) => `ENGINE_DIFFERENCES lists ${d.table}${d.column ? `.${d.column}` : ""}, which the engines have alike`);
  }
}

function shape(table: string, name: string, s: EngineColumn | undefined, p: EngineColumn | undefined, found: Differences): ColumnShape | null {
  const sides = [s, p].filter((c): c is EngineColumn => c !== undefined);
  const kinds = sides.map((c) => tsKind(c.type));
  for (const [i, c] of sides.entries())
    if (kinds[i] === null) found.errors.push(`${table}.${name}: SQL type ${c.type} has no TypeScript kind (add it to KINDS in src/storage/db-types.ts)`);
  if (kinds.includes(null)) return null;
  if (s && p && kinds[0] !== kinds[1]) found.add(`${table}.${name}: ${kinds[0]} on SQLite (${s.type}), ${kinds[1]} on PostgreSQL (${p.type})`, table, name);
  if (s && p && s.nullable !== p.nullable)
    found.add(`${table}.${name}: ${s.nullable ? "nullable" : "not null"} on SQLite, ${p.nullable ? "nullable" : "not null"} on PostgreSQL`, table, name);
  return {
    sqlite: s?.type ?? null,
    postgres: p?.type ?? null,
    ts: kinds[0] as TsKind,
    nullable: sides.some((c) => c.nullable),
    defaulted: sides.every((c) => c.defaulted),
  };
}

/**
 * One description from the two engines' tables (`postgres` null: SQLite alone, each column's PostgreSQL
 * type left null). `errors` names every difference between the engines that `allow` does not list, and
 * every entry of `allow` that no difference needs (with PostgreSQL only).
 */
export function reconcile(sqlite: EngineTables, postgres: EngineTables | null, allow = ENGINE_DIFFERENCES): { columns: Columns; errors: string[] } {
  const found = new Differences(allow);
  const columns: Columns = {};
  for (const table of new Set([...Object.keys(sqlite), ...Object.keys(postgres ?? {})])) {
    const s = sqlite[table];
    const p = postgres?.[table];
    if (postgres && (!s || !p)) found.add(`${table}: a table on ${s ? "SQLite" : "PostgreSQL"} only`, table);
    const out: Record<string, ColumnShape> = {};
    for (const name of new Set([...Object.keys(s ?? {}), ...Object.keys(p ?? {})])) {
      if (s && p && (!s[name] || !p[name])) found.add(`${table}.${name}: a column on ${s[name] ? "SQLite" : "PostgreSQL"} only`, table, name);
      const c = shape(table, name, s?.[name], p?.[name], found);
      if (c) out[name] = c;
    }
    columns[table] = sorted(out);
  }
  return { columns: sorted(columns), errors: postgres ? [...found.errors, ...found.unused()] : found.errors };
}

const HEADER = `// Generated by \`npm run db:types\` (scripts/db-types.ts, src/storage/db-types.ts) from freshly migrated SQLite
// and PostgreSQL databases: every table's columns with each engine's SQL type (null: the engine has no such
// table), the TypeScript kind of its values, whether it is nullable, and whether an insert may leave it out (a
// default or an auto-increment on both engines). Not edited by hand: a migration is followed by
// \`npm run db:types\`; src/storage/db-types-check.ts fails the type check while schema.ts's row types differ.
/* eslint-disable max-lines -- data, one line per column */
`;

/** The source of db-columns.ts. */
export function renderColumns(columns: Columns): string {
  const q = (v: string | null) => (v === null ? "null" : JSON.stringify(v));
  const lines = [HEADER, "export const DB_COLUMNS = {"];
  for (const [table, cols] of Object.entries(columns)) {
    lines.push(`  ${table}: {`);
    for (const [name, c] of Object.entries(cols)) {
      lines.push(`    ${name}: { sqlite: ${q(c.sqlite)}, postgres: ${q(c.postgres)}, ts: ${q(c.ts)}, nullable: ${c.nullable}, defaulted: ${c.defaulted} },`);
    }
    lines.push("  },");
  }
  lines.push("} as const;", "", "export type DbColumns = typeof DB_COLUMNS;", "");
  return lines.join("\n");
}

/**
 * How the migrated databases (`actual`) differ from the checked-in description (`expected`), one line per
 * table or column. `postgres` false: PostgreSQL was not looked at, so its types and defaults are not compared.
 */
export function compareColumns(expected: Columns, actual: Columns, postgres: boolean): string[] {
  const out: string[] = [];
  // Without PostgreSQL, the tables it alone has are not looked for.
  const onSqlite = (cols: Columns): Columns => Object.fromEntries(Object.entries(cols).filter(([, c]) => Object.values(c).some((col) => col.sqlite !== null)));
  const wanted = postgres ? expected : onSqlite(expected);
  if (!postgres) actual = onSqlite(actual);
  const fields = postgres ? (["sqlite", "postgres", "ts", "nullable", "defaulted"] as const) : (["sqlite", "ts", "nullable"] as const);
  for (const table of new Set([...Object.keys(wanted), ...Object.keys(actual)])) {
    const e = wanted[table];
    const a = actual[table];
    if (!e || !a) {
      out.push(`${table}: ${a ? "a table of the migrated database, not in db-columns.ts" : "in db-columns.ts, not a table of the migrated database"}`);
      continue;
    }
    for (const name of new Set([...Object.keys(e), ...Object.keys(a)])) {
      const ec = e[name];
      const ac = a[name];
      if (!ec || !ac)
        out.push(
          `${table}.${name}: ${ac ? "a column of the migrated database, not in db-columns.ts" : "in db-columns.ts, not a column of the migrated database"}`,
        );
      else
        for (const f of fields.filter((f) => ec[f] !== ac[f]))
          out.push(`${table}.${name}: ${f} is ${String(ac[f])} in the migrated database, ${String(ec[f])} in db-columns.ts`);
    }
  }
  return out;
}

/** The PostgreSQL server could not make a temporary database (down, refused, no such role). */
export class PostgresUnreachable extends Error {
  override name = "PostgresUnreachable";
}

/**
 * A PostgreSQL database of its own on the server `adminUrl` names, created for `fn` and dropped after it.
 * Throws PostgresUnreachable before `fn` runs when the server does not make it.
 */
export async function withTemporaryDatabase<T>(adminUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `snip_types_${randomBytes(6).toString("hex")}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`).catch((err: unknown) => {
    throw new PostgresUnreachable(err instanceof Error ? err.message : String(err));
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** The tables of a fresh database of `dialect` after every migration, then `extra` (a test's probe migration). */
export async function migratedTables(dialect: Dialect, options: { postgresUrl?: string; extra?: Record<string, Migration> } = {}): Promise<EngineTables> {
  const run = async (storage: Storage) => {
    try {
      await migrateToLatest(storage, options.extra);
      return await introspect(storage);
    } finally {
      await storage.close();
    }
  };
  if (dialect === "sqlite") return run(await openStorage({ kind: "sqlite", file: ":memory:" }));
  const adminUrl = options.postgresUrl;
  if (!adminUrl) throw new Error("migratedTables: PostgreSQL needs postgresUrl");
  return withTemporaryDatabase(adminUrl, async (url) => run(await openStorage({ kind: "postgres", url })));
}
