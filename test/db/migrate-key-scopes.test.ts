// Migration 026 on a database with API keys: every existing key gets ["links:create"] (the external creation
// API it could use before) and no expiry, and keeps authenticating with that scope.
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";
import { ApiKeyService } from "../../src/accounts/api-keys.js";
import { scopesOf } from "../../src/accounts/key-scopes.js";
import { OwnerCaps } from "../../src/storage/owner-caps.js";
import { RateEvents } from "../../src/storage/rate-events.js";
import { sha256Hex } from "../../src/shared/ids.js";
import { systemClock } from "../../src/shared/clock.js";

describe.each(ENGINES)("migration 026 (key scopes) on %s", (engine) => {
  let storage: Storage | undefined;
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("gives every existing key links:create and no expiry", async () => {
    db = await createTestDatabase(engine);
    storage = await openTestStorage(db);
    await migrateTo(storage, "024-imports");
    const k = storage.db;
    await sql`INSERT INTO users (id, email, password_hash, plan, created_at, updated_at) VALUES ('u1', 'old@example.com', 'x', 'business', 0, 0)`.execute(k);
    const secret = `snip_${"k".repeat(43)}`;
    await sql`INSERT INTO api_keys (id, user_id, name, prefix, secret_hash, created_at, last_used_at, revoked_at) VALUES ('k1', 'u1', 'old', ${secret.slice(0, 12)}, ${sha256Hex(secret)}, 1, NULL, NULL)`.execute(
      k,
    );

    expect(await migrateToLatest(storage)).toContain("026-key-scopes");
    const row = await k.selectFrom("api_keys").selectAll().where("id", "=", "k1").executeTakeFirstOrThrow();
    expect([row.scopes, row.expires_at]).toEqual(['["links:create"]', null]);

    const keys = new ApiKeyService({ storage, caps: new OwnerCaps(k, storage.dialect), clock: systemClock, rate: new RateEvents(k, storage.dialect) });
    const caller = await keys.authenticate(secret);
    expect([caller.user.email, scopesOf(caller.key)]).toEqual(["old@example.com", ["links:create"]]);
  });
});
