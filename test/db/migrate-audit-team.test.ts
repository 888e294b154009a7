// Migration 055 (docs/audit.md, Older entries), on both engines: entries written before migration 052 get their team
// where it can be told (team.role and sso.delete from before.owner_id, team.2fa_policy from the target, single
// sign-on set-up from the connection's owner), the others keep none; the table is append-only again afterwards.
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";
import type { Storage } from "../../src/storage/db.js";

describe.each(ENGINES)("migration 055, the audit entries' team, on %s", (engine) => {
  let storage: Storage | undefined;
  let testDb: TestDatabase | undefined;
  afterAll(async () => {
    await storage?.close();
    await testDb?.drop();
  });

  it("fills the team of the entries that name it, leaves the rest, and the table refuses changes again", async () => {
    testDb = await createTestDatabase(engine);
    storage = await openTestStorage(testDb);
    await migrateTo(storage, "052-audit-team");
    const db = storage.db;
    const t = Date.now();
    await sql`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('owner-sso', 'o@example.com', 'x', 0, 0)`.execute(db);
    await sql`INSERT INTO sso_connections (id, owner_id, issuer, client_id, client_secret_sealed, created_at, updated_at)
      VALUES ('c1', 'owner-sso', 'https://idp.test', 'x', 'x', 0, 0)`.execute(db);
    const row = (action: string, target_type: string, target_id: string, before: unknown) => ({
      at: t,
      actor_id: "u",
      actor_email: "u@example.com",
      action,
      target_type,
      target_id,
      summary: action,
      before: before === undefined ? null : JSON.stringify(before),
      after: null,
      team_id: null,
    });
    await db
      .insertInto("admin_audit")
      .values([
        row("team.role", "account", "m1", { owner_id: "owner-role", role: "member" }),
        row("team.2fa_policy", "account", "owner-2fa", { required: false }),
        row("sso.update", "sso_connection", "c1", { issuer: "https://idp.test" }),
        row("sso.saml_create", "sso_connection", "c1", undefined),
        row("sso.update", "sso_connection", "gone", {}),
        row("sso.delete", "sso_connection", "c9", { owner_id: "owner-del" }),
        row("sso.delete", "sso_connection", "c8", { issuer: "https://old.test" }),
        row("sso.domain_lost", "sso_connection", "c1", null),
        row("account.plan", "account", "m1", { plan: "pro" }),
      ])
      .execute();
    await migrateToLatest(storage);
    const rows = await db.selectFrom("admin_audit").select(["action", "target_id", "team_id"]).orderBy("id").execute();
    expect(rows.map((r) => [r.action, r.target_id, r.team_id])).toEqual([
      ["team.role", "m1", "owner-role"],
      ["team.2fa_policy", "owner-2fa", "owner-2fa"],
      ["sso.update", "c1", "owner-sso"],
      ["sso.saml_create", "c1", "owner-sso"],
      ["sso.update", "gone", null],
      ["sso.delete", "c9", "owner-del"],
      ["sso.delete", "c8", null],
      ["sso.domain_lost", "c1", null],
      ["account.plan", "m1", null],
    ]);
    await expect(db.updateTable("admin_audit").set({ team_id: "x" }).execute()).rejects.toThrow(/append-only/);
    await expect(db.deleteFrom("admin_audit").execute()).rejects.toThrow(/append-only/);
    await expect(sql`UPDATE admin_audit SET summary = 'changed'`.execute(db)).rejects.toThrow(/append-only/);
  });
});
