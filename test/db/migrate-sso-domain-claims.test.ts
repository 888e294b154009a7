// Migration 040 on a database with SSO domains: every row is kept (failing_since empty), one domain may then be
// claimed by several connections, and only one of them may hold it verified.
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";
import { isUniqueViolation } from "../../src/storage/unique-violation.js";

describe.each(ENGINES)("migration 040 (SSO domain claims) on %s", (engine) => {
  let storage: Storage | undefined;
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("keeps every domain row, lets connections share a pending domain and allows one verified claim per domain", async () => {
    db = await createTestDatabase(engine);
    storage = await openTestStorage(db);
    await migrateTo(storage, "038-stream-batches");
    const k = storage.db;
    for (const n of [1, 2, 3]) {
      await sql`INSERT INTO users (id, email, password_hash, plan, created_at, updated_at) VALUES (${`u${n}`}, ${`o${n}@example.com`}, 'x', 'enterprise', 0, 0)`.execute(
        k,
      );
      await sql`INSERT INTO sso_connections (id, owner_id, issuer, client_id, client_secret_sealed, require_sso, created_at, updated_at) VALUES (${`c${n}`}, ${`u${n}`}, 'https://idp.example.com', 'snip', 'v1.x', 0, 0, 0)`.execute(
        k,
      );
    }
    await sql`INSERT INTO sso_domains (domain, connection_id, txt_token, status, next_action, last_checked_at, verified_at, created_at, next_check_at) VALUES ('one.test', 'c1', 'tok1', 'verified', NULL, 5, 6, 1, 7)`.execute(
      k,
    );
    await sql`INSERT INTO sso_domains (domain, connection_id, txt_token, status, next_action, last_checked_at, verified_at, created_at, next_check_at) VALUES ('two.test', 'c2', 'tok2', 'pending', 'add it', NULL, NULL, 2, NULL)`.execute(
      k,
    );

    expect(await migrateToLatest(storage)).toContain("040-sso-domain-claims");
    const rows = await k.selectFrom("sso_domains").selectAll().orderBy("domain").execute();
    expect(
      rows.map((r) => ({
        ...r,
        last_checked_at: r.last_checked_at === null ? null : Number(r.last_checked_at),
        verified_at: r.verified_at === null ? null : Number(r.verified_at),
        created_at: Number(r.created_at),
        next_check_at: r.next_check_at === null ? null : Number(r.next_check_at),
      })),
    ).toEqual([
      {
        domain: "one.test",
        connection_id: "c1",
        txt_token: "tok1",
        status: "verified",
        next_action: null,
        last_checked_at: 5,
        verified_at: 6,
        created_at: 1,
        next_check_at: 7,
        failing_since: null,
      },
      {
        domain: "two.test",
        connection_id: "c2",
        txt_token: "tok2",
        status: "pending",
        next_action: "add it",
        last_checked_at: null,
        verified_at: null,
        created_at: 2,
        next_check_at: null,
        failing_since: null,
      },
    ]);

    const claim = (domain: string, connection: string, status: "pending" | "verified") =>
      k
        .insertInto("sso_domains")
        .values({
          domain,
          connection_id: connection,
          txt_token: "t",
          status,
          next_action: null,
          last_checked_at: null,
          verified_at: null,
          created_at: 3,
          next_check_at: null,
          failing_since: null,
        })
        .execute();
    // Pending claims beside each other and beside a verified one.
    await claim("two.test", "c1", "pending");
    await claim("one.test", "c2", "pending");
    // One connection claims a domain once; one verified claim per domain.
    expect(
      isUniqueViolation(
        await claim("two.test", "c1", "pending").then(
          () => null,
          (e: unknown) => e,
        ),
      ),
    ).toBe(true);
    expect(
      isUniqueViolation(
        await claim("one.test", "c3", "verified").then(
          () => null,
          (e: unknown) => e,
        ),
      ),
    ).toBe(true);
    await claim("two.test", "c3", "verified");
    expect(await k.selectFrom("sso_domains").select("connection_id").where("domain", "=", "two.test").orderBy("connection_id").execute()).toEqual([
      { connection_id: "c1" },
      { connection_id: "c2" },
      { connection_id: "c3" },
    ]);
    // A connection's removal still takes its claims along.
    await k.deleteFrom("sso_connections").where("id", "=", "c1").execute();
    expect(await k.selectFrom("sso_domains").select(["domain", "connection_id"]).where("connection_id", "=", "c1").execute()).toEqual([]);
  });
});
