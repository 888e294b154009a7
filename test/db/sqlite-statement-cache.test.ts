// Kysely's queries on SQLite reuse their prepared statements (src/storage/sqlite-statement-cache.ts):
// one prepare per query text, the least recently used one dropped past the bound, and a shared
// statement that stays right after an error, a schema change, a transaction and concurrent queries.
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { cachingStatements } from "../../src/storage/sqlite-statement-cache.js";

interface T {
  t: { id: number; name: string };
}

let handle: SQLite.Database;
let db: Kysely<T>;
let prepared: string[];

function open(max?: number): void {
  handle = new SQLite(":memory:");
  handle.exec("CREATE TABLE t (id integer PRIMARY KEY, name text NOT NULL UNIQUE)");
  prepared = [];
  const prepare = handle.prepare.bind(handle);
  handle.prepare = ((text: string) => {
    prepared.push(text);
    return prepare(text);
  }) as typeof handle.prepare;
  db = new Kysely<T>({ dialect: new SqliteDialect({ database: cachingStatements(handle, max) }) });
}

afterEach(async () => {
  await db.destroy();
});

const byId = (id: number) => db.selectFrom("t").select(["id", "name"]).where("id", "=", id).executeTakeFirst();

describe("SQLite statements through Kysely", () => {
  it("prepares a query text once, whatever its parameters", async () => {
    open();
    await db.insertInto("t").values({ id: 1, name: "one" }).execute();
    await db.insertInto("t").values({ id: 2, name: "two" }).execute();
    expect(await byId(1)).toEqual({ id: 1, name: "one" });
    expect(await byId(2)).toEqual({ id: 2, name: "two" });
    expect(await byId(3)).toBeUndefined();
    expect(prepared).toEqual([`insert into "t" ("id", "name") values (?, ?)`, `select "id", "name" from "t" where "id" = ?`]);
  });

  it("drops the least recently used statement past its bound, and prepares it again when asked", async () => {
    open(2);
    const a = () => sql`SELECT 1 AS a`.execute(db);
    const b = () => sql`SELECT 2 AS b`.execute(db);
    const c = () => sql`SELECT 3 AS c`.execute(db);
    await a();
    await b();
    await a(); // a is now the most recent: c pushes b out
    await c();
    await a();
    expect(prepared).toEqual(["SELECT 1 AS a", "SELECT 2 AS b", "SELECT 3 AS c"]);
    expect((await b()).rows).toEqual([{ b: 2 }]);
    expect(prepared).toEqual(["SELECT 1 AS a", "SELECT 2 AS b", "SELECT 3 AS c", "SELECT 2 AS b"]);
  });

  it("a statement that failed runs again with other values, and a failed transaction leaves nothing", async () => {
    open();
    await db.insertInto("t").values({ id: 1, name: "one" }).execute();
    await expect(db.insertInto("t").values({ id: 2, name: "one" }).execute()).rejects.toThrow(/UNIQUE/);
    await db.insertInto("t").values({ id: 2, name: "two" }).execute();
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto("t").values({ id: 3, name: "three" }).execute();
        await trx.insertInto("t").values({ id: 4, name: "one" }).execute();
      }),
    ).rejects.toThrow(/UNIQUE/);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("t").values({ id: 5, name: "five" }).execute();
    });
    expect(await db.selectFrom("t").select("id").orderBy("id").execute()).toEqual([{ id: 1 }, { id: 2 }, { id: 5 }]);
  });

  it("a cached statement follows a schema change (a migration between two reads)", async () => {
    open();
    await db.insertInto("t").values({ id: 1, name: "one" }).execute();
    const all = () => sql`SELECT * FROM t`.execute(db);
    expect((await all()).rows).toEqual([{ id: 1, name: "one" }]);
    await sql`ALTER TABLE t ADD COLUMN note text NOT NULL DEFAULT 'n'`.execute(db);
    expect((await all()).rows).toEqual([{ id: 1, name: "one", note: "n" }]);
    expect(prepared.filter((p) => p === "SELECT * FROM t")).toHaveLength(1);
  });

  it("concurrent queries of one text each get their own answer", async () => {
    open();
    await db
      .insertInto("t")
      .values(Array.from({ length: 50 }, (_, i) => ({ id: i + 1, name: `n${i + 1}` })))
      .execute();
    const got = await Promise.all(Array.from({ length: 50 }, (_, i) => byId(i + 1)));
    expect(got.map((r) => r?.name)).toEqual(Array.from({ length: 50 }, (_, i) => `n${i + 1}`));
    expect(prepared.filter((p) => p.startsWith("select"))).toHaveLength(1);
  });

  it("a streamed read runs to its end while the same text is asked again", async () => {
    open();
    await db
      .insertInto("t")
      .values(Array.from({ length: 5 }, (_, i) => ({ id: i + 1, name: `n${i + 1}` })))
      .execute();
    const q = db.selectFrom("t").select("id").orderBy("id");
    const streamed: number[] = [];
    const [, again] = await Promise.all([
      (async () => {
        for await (const row of q.stream()) streamed.push(row.id);
      })(),
      q.execute(),
    ]);
    expect(streamed).toEqual([1, 2, 3, 4, 5]);
    expect(again.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
  });
});
