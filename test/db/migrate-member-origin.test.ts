// Migration 041 on a database with teams: a member with an accepted invitation from the owner is "invitation", any
// other (single sign-on made it) is "sso", so existing Enterprise teams keep their two invitations free.
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";

describe.each(ENGINES)("migration 041 (member origin) on %s", (engine) => {
  let storage: Storage | undefined;
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("marks members with an accepted invitation as invitation, the others as sso", async () => {
    db = await createTestDatabase(engine);
    storage = await openTestStorage(db);
    await migrateTo(storage, "038-stream-batches");
    const k = storage.db;
    const user = (id: string) =>
      sql`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (${id}, ${`${id}@example.com`}, 'x', 0, 0)`.execute(k);
    for (const id of ["owner", "other", "invited", "sso"]) await user(id);
    await sql`INSERT INTO team_invitations (id, owner_id, email, state, sent_at, send_confirmed, expires_at, accepted_by, created_at, updated_at)
      VALUES ('i1', 'owner', 'invited@example.com', 'accepted', 1, 1, 2, 'invited', 1, 1), ('i2', 'other', 'sso@example.com', 'accepted', 1, 1, 2, 'sso', 1, 1)`.execute(
      k,
    );
    await sql`INSERT INTO team_members (owner_id, member_id, joined_at) VALUES ('owner', 'invited', 1), ('owner', 'sso', 1), ('other', 'sso', 1)`.execute(k);

    expect(await migrateToLatest(storage)).toContain("041-member-origin");
    const rows = await k.selectFrom("team_members").select(["owner_id", "member_id", "joined_by"]).orderBy("owner_id").orderBy("member_id").execute();
    expect(rows).toEqual([
      { owner_id: "other", member_id: "sso", joined_by: "invitation" },
      { owner_id: "owner", member_id: "invited", joined_by: "invitation" },
      { owner_id: "owner", member_id: "sso", joined_by: "sso" },
    ]);
    // New rows without a value are invitations (the column's default).
    await user("late");
    await sql`INSERT INTO team_members (owner_id, member_id, joined_at) VALUES ('owner', 'late', 2)`.execute(k);
    expect((await k.selectFrom("team_members").select("joined_by").where("member_id", "=", "late").executeTakeFirstOrThrow()).joined_by).toBe("invitation");
  });
});
