// On PostgreSQL the click writer's batch transaction must not make a click-limited visit wait for it:
// a click-limited link's clicks were counted as they were served, so the batch only keeps the link
// from being deleted (FOR KEY SHARE) instead of locking it for update. The batch is slowed down by a
// trigger that sleeps; the click-limit count must finish while the batch is still asleep.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresClickWriter } from "../../src/clicks/pg-writer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { openStorage, type Storage } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";
import { ENGINES, createTestDatabase, type TestDatabase } from "../helpers/engines.js";
import { waitFor } from "../helpers/wait.js";

const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
// The links are inserted in this order into a new database: numbers 1 and 2.
const NUMS: Record<string, number> = { limited: 1, plain: 2 };
const click = (linkId: string, counted: boolean): ClickInput => ({
  linkId,
  linkNum: NUMS[linkId]!,
  at: Date.now(),
  userAgent: UA,
  referer: "",
  ip: "",
  country: null,
  counted,
  destination: null,
});

describe.runIf(ENGINES.includes("postgres"))("PostgreSQL click writer and click-limited visits", () => {
  let db: TestDatabase;
  let storage: Storage;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    storage = await openStorage({ kind: "postgres", url: db.databaseUrl as string });
    await migrateToLatest(storage);
    await sql`INSERT INTO links (id, domain, alias, url, click_count, max_clicks, created_at, updated_at) VALUES
      ('limited', '', 'limited', 'https://example.com/', 0, 100, 0, 0), ('plain', '', 'plain', 'https://example.com/', 0, NULL, 0, 0)`.execute(storage.db);
    await sql`CREATE FUNCTION slow_daily() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(2); RETURN NEW; END $$`.execute(storage.db);
    await sql`CREATE TRIGGER slow_daily BEFORE INSERT ON click_daily FOR EACH STATEMENT EXECUTE FUNCTION slow_daily()`.execute(storage.db);
  });
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  /** Sessions of this test's database waiting for `waitEvent` (PgSleep: the trigger; a lock type: a lock). */
  const waiting = async (column: "wait_event" | "wait_event_type", waitEvent: string) =>
    (
      await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${sql.ref(column)} = ${waitEvent} AND datname = current_database()`.execute(storage.db)
    ).rows[0]!.n > 0;

  /** Until a batch sleeps in its trigger, past the point where it takes its link locks and inserts its raw clicks. */
  async function sleeping(): Promise<void> {
    await waitFor(() => waiting("wait_event", "PgSleep"), { timeoutMs: 2_000, what: "the batch in its trigger" });
  }

  it("counts a click-limited visit while a batch holding that link's clicks is being written", async () => {
    const writer = new PostgresClickWriter(storage.db, new CountryResolver(null));
    let written = false;
    const writing = writer.write(batchOf([click("limited", true), click("plain", false), click("plain", false)])).then(() => (written = true));
    await sleeping();
    expect(written).toBe(false);
    // The click-limit count of a visit (recorder.countLimited on PostgreSQL).
    const counted = await storage.db
      .updateTable("links")
      .set((eb) => ({ click_count: eb("click_count", "+", 1) }))
      .where("id", "=", "limited")
      .where("click_count", "<", 100)
      .executeTakeFirst();
    expect(Number(counted.numUpdatedRows)).toBe(1);
    expect(written).toBe(false);
    await writing;
    const rows = await storage.db.selectFrom("links").select(["id", "click_count"]).orderBy("id").execute();
    // The batch's click of the limited link was counted when served: only the plain link's clicks are added.
    expect(rows.map((r) => [r.id, Number(r.click_count)])).toEqual([
      ["limited", 1],
      ["plain", 2],
    ]);
    const stored = await storage.db
      .selectFrom("clicks")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(3);
  });

  it("a link deleted while a batch holding its clicks is being written takes those clicks along", async () => {
    const writer = new PostgresClickWriter(storage.db, new CountryResolver(null));
    const writing = writer.write(batchOf([click("plain", false), click("plain", false), click("limited", true)]));
    await sleeping();
    // The delete waits for the batch's lock on the link (clicks have no foreign key on PostgreSQL).
    let deleted = false;
    const deleting = storage.db
      .deleteFrom("links")
      .where("id", "=", "plain")
      .execute()
      .then(() => (deleted = true));
    // Until the delete is seen waiting for a lock (the batch's, which sleeps in its trigger meanwhile).
    await waitFor(() => waiting("wait_event_type", "Lock"), { timeoutMs: 2_000, what: "the delete waiting for a lock" });
    expect(deleted).toBe(false);
    await writing;
    await deleting;
    const left = await storage.db
      .selectFrom("clicks")
      .select(["link_num", (eb) => eb.fn.countAll<number>().as("n")])
      .groupBy("link_num")
      .execute();
    expect(left.map((r) => [Number(r.link_num), Number(r.n)])).toEqual([[NUMS.limited, 2]]);
    expect(await storage.db.selectFrom("click_daily").select("link_id").where("link_id", "=", "plain").execute()).toEqual([]);
  });
});
