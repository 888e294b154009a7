// Migration 062 on a database with clicks, on both engines: each owner's monthly breakdown rows are the sums of
// its links' (links without an owner left out), and deleting a link takes its rows out of its owner's, as
// migration 022's trigger does for the daily ones.
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";

describe.each(ENGINES)("migration 062 (owner monthly breakdown) on %s", (engine) => {
  let storage: Storage | undefined;
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("sums each owner's links' monthly rows and takes a deleted link's out", async () => {
    db = await createTestDatabase(engine);
    storage = await openTestStorage(db);
    await migrateTo(storage, "061-pg-click-order");
    const k = storage.db;
    await sql`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u1', 'u1@example.com', 'x', 0, 0), ('u2', 'u2@example.com', 'x', 0, 0)`.execute(
      k,
    );
    await sql`INSERT INTO links (id, domain, alias, url, owner_id, click_count, created_at, updated_at) VALUES
      ('l1', '', 'a1', 'https://example.com/', 'u1', 0, 0, 0), ('l2', '', 'a2', 'https://example.com/', 'u1', 0, 0, 0),
      ('l3', '', 'a3', 'https://example.com/', 'u2', 0, 0, 0), ('l4', '', 'a4', 'https://example.com/', NULL, 0, 0, 0)`.execute(k);
    await sql`INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks, visitors) VALUES
      ('l1', '2026-09', 'country', 'NL', 5, 2), ('l2', '2026-09', 'country', 'NL', 7, 3), ('l2', '2026-09', 'country', 'DE', 1, 1),
      ('l1', '2026-10', 'device', 'mobile', 4, 4), ('l3', '2026-09', 'country', 'NL', 9, 9), ('l4', '2026-09', 'country', 'NL', 100, 100)`.execute(k);

    expect(await migrateToLatest(storage)).toContain("062-owner-months");
    const rows = () =>
      k
        .selectFrom("owner_breakdown_month")
        .select(["owner_id", "month", "dimension", "value", "clicks", "visitors"])
        .orderBy("owner_id")
        .orderBy("month")
        .orderBy("dimension")
        .orderBy("value")
        .execute()
        .then((r) => r.map((x) => `${x.owner_id} ${x.month} ${x.dimension}=${x.value} ${Number(x.clicks)}/${Number(x.visitors)}`));
    expect(await rows()).toEqual(["u1 2026-09 country=DE 1/1", "u1 2026-09 country=NL 12/5", "u1 2026-10 device=mobile 4/4", "u2 2026-09 country=NL 9/9"]);

    await k.deleteFrom("links").where("id", "=", "l2").execute();
    expect(await rows()).toEqual(["u1 2026-09 country=DE 0/0", "u1 2026-09 country=NL 5/2", "u1 2026-10 device=mobile 4/4", "u2 2026-09 country=NL 9/9"]);
    // A link without an owner, and an owner deleted with its links, leave nothing behind.
    await k.deleteFrom("links").where("id", "=", "l4").execute();
    await k.deleteFrom("users").where("id", "=", "u2").execute();
    expect(await rows()).toEqual(["u1 2026-09 country=DE 0/0", "u1 2026-09 country=NL 5/2", "u1 2026-10 device=mobile 4/4"]);
  });
});
