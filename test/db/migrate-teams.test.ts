// Migration 011 on a database with links: existing links get updated_by null; deleting an editor clears
// updated_by, deleting an owner takes its invitations, tokens and memberships along; one pending
// invitation per owner and address.
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";

describe.each(ENGINES)("migration 011 (teams) on %s", (engine) => {
  let storage: Storage | undefined;
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("adds the team tables and links.updated_by with their references", async () => {
    db = await createTestDatabase(engine);
    storage = await openTestStorage(db);
    await migrateTo(storage, "007-click-staging");
    const k = storage.db;
    const user = (id: string) =>
      sql`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (${id}, ${`${id}@example.com`}, 'x', 0, 0)`.execute(k);
    await user("owner");
    await user("editor");
    await sql`INSERT INTO links (id, domain, alias, url, owner_id, created_at, updated_at) VALUES ('l1', '', 'kept', 'https://example.com/', 'owner', 0, 0)`.execute(
      k,
    );

    expect(await migrateToLatest(storage)).toContain("011-teams");
    expect(await k.selectFrom("links").select(["alias", "updated_by"]).execute()).toEqual([{ alias: "kept", updated_by: null }]);

    await k.updateTable("links").set({ updated_by: "editor" }).where("id", "=", "l1").execute();
    await k.insertInto("team_members").values({ owner_id: "owner", member_id: "editor", joined_at: 1 }).execute();
    const invitation = {
      owner_id: "owner",
      email: "x@example.com",
      state: "pending",
      sent_at: 1,
      send_confirmed: 1,
      expires_at: 2,
      accepted_by: null,
      created_at: 1,
      updated_at: 1,
    };
    await k
      .insertInto("team_invitations")
      .values({ ...invitation, id: "i1" })
      .execute();
    await k.insertInto("team_invitation_tokens").values({ token_hash: "h1", invitation_id: "i1", created_at: 1, replaced_at: null }).execute();
    await expect(
      k
        .insertInto("team_invitations")
        .values({ ...invitation, id: "i2" })
        .execute(),
    ).rejects.toThrow();
    // Another state for the same address is fine (a cancelled one, then a new invitation).
    await k
      .insertInto("team_invitations")
      .values({ ...invitation, id: "i3", state: "cancelled" })
      .execute();

    await k.deleteFrom("users").where("id", "=", "editor").execute();
    expect((await k.selectFrom("links").select("updated_by").executeTakeFirstOrThrow()).updated_by).toBeNull();
    expect(await k.selectFrom("team_members").selectAll().execute()).toEqual([]);
    await k.deleteFrom("users").where("id", "=", "owner").execute();
    expect(await k.selectFrom("team_invitations").selectAll().execute()).toEqual([]);
    expect(await k.selectFrom("team_invitation_tokens").selectAll().execute()).toEqual([]);
  });
});
