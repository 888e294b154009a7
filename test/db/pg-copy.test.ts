// PostgreSQL's click writer sends a batch's raw clicks by COPY … FROM STDIN in COPY's text format
// (src/storage/pg-copy.ts), on the connection of the batch's transaction. Every string must arrive as it
// was (backslashes, tabs, newlines, a literal "\N", characters outside ASCII), NULL as NULL; a COPY that
// fails must roll back the whole transaction, the statements before it included; and the clicks a
// writer stores must be the batch's, value for value. The writer's unnest() parameters are array literals of
// its own (src/storage/pg-arrays.ts): what PostgreSQL unnests must be what was sent, whatever the strings.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresClickWriter } from "../../src/clicks/pg-writer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { openStorage, type Storage } from "../../src/storage/db.js";
import { copyText, transactionWithCopy } from "../../src/storage/pg-copy.js";
import { arrayLiteral, columnLiteral } from "../../src/storage/pg-arrays.js";
import { ENGINES, createTestDatabase, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import { UA } from "../helpers/visit.js";

/** Strings COPY's text format would take for something else if they were sent as they are. */
const HOSTILE = ["a\\b", "tab\there", "line\nbreak", "cr\rhere", "\\N", "\\.", "back\\\\slashes\\", "ünïcødé 🔗 ß", "", " spaced ", "\\t not a tab"];

it("writes COPY's text format: NULL as \\N, the four special characters escaped, numbers as they are", () => {
  expect(copyText([["a\\b", "tab\there", null, 12, "line\nbreak\r", "\\N"]])).toBe("a\\\\b\ttab\\there\t\\N\t12\tline\\nbreak\\r\t\\\\N\n");
  expect(copyText([[1], [2]])).toBe("1\n2\n");
  expect(copyText([])).toBe("");
});

it("writes array literals: numbers and plain strings joined, others quoted and escaped, null as NULL", () => {
  expect(arrayLiteral([])).toBe("{}");
  expect(arrayLiteral([3, -1, 0])).toBe("{3,-1,0}");
  expect(arrayLiteral(["a", "b c", ""])).toBe('{"a","b c",""}');
  expect(arrayLiteral(["a", null, 'q"b', "s\\t"])).toBe('{"a",NULL,"q\\"b","s\\\\t"}');
  expect(arrayLiteral([1, "1"])).toBe('{1,"1"}');
  expect(columnLiteral([{ k: "x" }, { k: "y" }], "k")).toBe('{"x","y"}');
});

describe.runIf(ENGINES.includes("postgres"))("COPY in the click writer's transaction (PostgreSQL)", () => {
  let db: TestDatabase;
  let storage: Storage;
  beforeAll(async () => {
    db = await createTestDatabase("postgres", { migrated: true });
    storage = await openTestStorage(db);
    await sql`CREATE TABLE copy_probe (n bigint NOT NULL, s text)`.execute(storage.db);
    await sql`CREATE TABLE copy_before (n bigint NOT NULL)`.execute(storage.db);
    await sql`INSERT INTO links (id, domain, alias, url, click_count, created_at, updated_at) VALUES ('copied', '', 'copied', 'https://example.com/', 0, 0, 0)`.execute(
      storage.db,
    );
  });
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("stores every string exactly as given, and NULL as NULL", async () => {
    const rows = [...HOSTILE.map((s, i) => [i, s] as const), [HOSTILE.length, null] as const];
    await transactionWithCopy(storage.db, (_trx, copy) => copy("copy_probe", ["n", "s"], rows));
    const stored = await sql<{ n: string; s: string | null }>`SELECT n, s FROM copy_probe ORDER BY n`.execute(storage.db);
    expect(stored.rows.map((r) => [Number(r.n), r.s])).toEqual(rows.map((r) => [...r]));
  });

  it("array literals: what unnest() returns is what was sent, hostile strings, NULL, an empty array and large numbers too", async () => {
    const strings = [...HOSTILE, 'quo"te', '"', "com,ma", "{braces}", "NULL", "null", "(paren)", null, "\\"];
    const texts = await sql<{ s: string | null }>`SELECT s FROM unnest(${arrayLiteral(strings)}::text[]) WITH ORDINALITY AS u(s, n) ORDER BY n`.execute(
      storage.db,
    );
    expect(texts.rows.map((r) => r.s)).toEqual(strings);
    // All plain: the joined path.
    const plain = ["2026-12-08", "lnk_AbC09", "", " x "];
    const joined = await sql<{ s: string }>`SELECT s FROM unnest(${arrayLiteral(plain)}::text[]) WITH ORDINALITY AS u(s, n) ORDER BY n`.execute(storage.db);
    expect(joined.rows.map((r) => r.s)).toEqual(plain);
    const numbers = [0, -5, 1796689843931, Number.MAX_SAFE_INTEGER, 7];
    const ints = await sql<{ v: string }>`SELECT v::text FROM unnest(${arrayLiteral(numbers)}::bigint[]) WITH ORDINALITY AS u(v, n) ORDER BY n`.execute(
      storage.db,
    );
    expect(ints.rows.map((r) => r.v)).toEqual(numbers.map(String));
    const none = await sql<{ c: string }>`SELECT count(*) AS c FROM unnest(${arrayLiteral([])}::text[])`.execute(storage.db);
    expect(Number(none.rows[0]!.c)).toBe(0);
  });

  it("a COPY that fails rolls back the statements before it in its transaction, and the pool's connection serves the next", async () => {
    await sql`DELETE FROM copy_probe`.execute(storage.db);
    const failing = transactionWithCopy(storage.db, async (trx, copy) => {
      await sql`INSERT INTO copy_before (n) VALUES (1)`.execute(trx);
      await copy(
        "copy_probe",
        ["n", "s"],
        [
          [1, "kept?"],
          ["not a number", "x"],
        ],
      );
    });
    await expect(failing).rejects.toThrow(/invalid input syntax for type bigint/);
    const counts = await sql<{
      before: string;
      probe: string;
    }>`SELECT (SELECT count(*) FROM copy_before) AS before, (SELECT count(*) FROM copy_probe) AS probe`.execute(storage.db);
    expect(counts.rows[0]).toEqual({ before: 0, probe: 0 });
    // Several transactions at once, each on its own connection.
    await Promise.all([1, 2, 3].map((n) => transactionWithCopy(storage.db, (_trx, copy) => copy("copy_probe", ["n", "s"], [[n, `t${n}`]]))));
    const after = await sql<{ n: string }>`SELECT n FROM copy_probe ORDER BY n`.execute(storage.db);
    expect(after.rows.map((r) => Number(r.n))).toEqual([1, 2, 3]);
  });

  it("refuses a Kysely that is not one of openPostgresDb's pools", async () => {
    const sqlite = await openStorage({ kind: "sqlite", file: ":memory:" });
    try {
      await expect(transactionWithCopy(sqlite.db, async () => undefined)).rejects.toThrow(/not a PostgreSQL database of openPostgresDb/);
    } finally {
      await sqlite.close();
    }
  });

  it("the writer stores a batch's clicks value for value, each in its column (referrers as describe.ts normalises them)", async () => {
    const at = Date.UTC(2026, 11, 7, 12);
    const referers = ["https://ref.example/a\\b?q=1", "https://ünïcødé.example/päth", "https://ref.example/%5CN"];
    const inputs: ClickInput[] = referers.map((referer, i) => ({
      linkId: "copied",
      linkNum: 1,
      at: at + i,
      userAgent: UA.windows,
      referer,
      ip: `192.0.2.${i + 1}`,
      country: "NL",
      counted: false,
      destination: i === 0 ? null : `rule:${i}`,
      qr: i === 2,
      utm: i === 1 ? "utm_source=a%5Cb&utm_campaign=%F0%9F%94%97" : null,
    }));
    await new PostgresClickWriter(storage.db, new CountryResolver(null)).write(batchOf(inputs));
    const stored = await sql<Record<string, unknown>>`SELECT link_num, at, country, referrer, referrer_url, destination, qr, utm, is_bot, counted, new_visitor
      FROM clicks ORDER BY at`.execute(storage.db);
    expect(stored.rows.map((r) => ({ ...r, link_num: Number(r.link_num), at: Number(r.at) }))).toEqual([
      {
        link_num: 1,
        at,
        country: "NL",
        referrer: "ref.example",
        referrer_url: "https://ref.example/a/b",
        destination: null,
        qr: 0,
        utm: null,
        is_bot: 0,
        counted: 0,
        new_visitor: 1,
      },
      {
        link_num: 1,
        at: at + 1,
        country: "NL",
        referrer: "xn--ncd-dma1a9cya.example",
        referrer_url: "https://xn--ncd-dma1a9cya.example/p%C3%A4th",
        destination: "rule:1",
        qr: 0,
        utm: "utm_source=a%5Cb&utm_campaign=%F0%9F%94%97",
        is_bot: 0,
        counted: 0,
        new_visitor: 1,
      },
      {
        link_num: 1,
        at: at + 2,
        country: "NL",
        referrer: "ref.example",
        referrer_url: "https://ref.example/%5CN",
        destination: "rule:2",
        qr: 1,
        utm: null,
        is_bot: 0,
        counted: 0,
        new_visitor: 1,
      },
    ]);
    const count = await sql<{ click_count: string }>`SELECT click_count FROM links WHERE id = 'copied'`.execute(storage.db);
    expect(Number(count.rows[0]!.click_count)).toBe(3);
  });
});
