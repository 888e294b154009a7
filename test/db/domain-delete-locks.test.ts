// On PostgreSQL a domain's deletion must take the account's lock before the domain's row, as link creations
// do. Each link it deletes counts down the account's link_counts row, and from the second one PostgreSQL
// checks that row's key against users (FOR KEY SHARE), which waits on a creation holding the account's lock;
// that creation waits on the domain's row: a deadlock, answered 500. Here the creation is a transaction held
// open by the test, so the order is certain rather than left to a race.
import pg from "pg";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { waitFor } from "../helpers/wait.js";

describe.runIf(ENGINES.includes("postgres"))("deleting links while a creation holds the account (PostgreSQL)", () => {
  let server: TestServer;
  let owner: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ engine: "postgres" });
    owner = await signedInClient(server, "lock-owner@example.com", "business");
  });
  afterAll(async () => {
    await server?.close();
  });

  const lockWaits = async () =>
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`.execute(server.ctx.storage.db)).rows[0]!.n;

  it("waits for the creation, then deletes the domain and its links: no deadlock, no 500", async () => {
    const db = server.ctx.storage.db;
    const { id: ownerId } = await db.selectFrom("users").select("id").where("email", "=", "lock-owner@example.com").executeTakeFirstOrThrow();
    const now = Date.now();
    await db
      .insertInto("domains")
      .values({ id: "domlock000000001", owner_id: ownerId, hostname: "locks.example", status: "verified", txt_token: "t", next_action: null, last_checked_at: now, verified_at: now, lost_at: null, next_check_at: null, verify_requested_at: null, created_at: now })
      .execute();
    for (const alias of ["one", "two", "three"]) expect((await owner.post("/api/links", { url: `https://example.com/${alias}`, alias, domain: "locks.example" })).status).toBe(201);

    // A creation in flight: the account's lock taken (OwnerCaps.hold), the domain's row next (holdDomain).
    const creation = new pg.Client({ connectionString: server.databaseUrl });
    await creation.connect();
    try {
      await creation.query("BEGIN");
      await creation.query("SELECT id FROM users WHERE id = $1 FOR UPDATE", [ownerId]);
      const deletion = owner.delete("/api/domains/domlock000000001");
      await waitFor(async () => (await lockWaits()) > 0, { timeoutMs: 5_000 });
      await creation.query(`UPDATE domains SET status = status WHERE hostname = 'locks.example' AND owner_id = $1 AND status = 'verified'`, [ownerId]);
      await creation.query("COMMIT");
      const answer = await deletion;
      expect(answer.status, answer.text).toBe(200);
    } finally {
      await creation.end();
    }
    expect(await db.selectFrom("links").select("alias").where("domain", "=", "locks.example").execute()).toEqual([]);
    const count = await db.selectFrom("link_counts").select("links").where("owner_id", "=", ownerId).executeTakeFirstOrThrow();
    expect(Number(count.links)).toBe(0);
  });

  it("bulk delete waits for the creation too: a creation reusing an alias being deleted is no deadlock", async () => {
    const db = server.ctx.storage.db;
    const { id: ownerId } = await db.selectFrom("users").select("id").where("email", "=", "lock-owner@example.com").executeTakeFirstOrThrow();
    const ids: string[] = [];
    for (const alias of ["bulk-a", "bulk-b", "bulk-c"]) ids.push((await owner.post("/api/links", { url: `https://example.com/${alias}`, alias })).body.link.id);
    const creation = new pg.Client({ connectionString: server.databaseUrl });
    await creation.connect();
    try {
      await creation.query("BEGIN");
      await creation.query("SELECT id FROM users WHERE id = $1 FOR UPDATE", [ownerId]);
      const deletion = owner.post("/api/links/bulk/delete", { ids });
      await waitFor(async () => (await lockWaits()) > 0, { timeoutMs: 5_000 });
      // The same alias as a link being deleted: the insert waits for the deletion while it is uncommitted.
      const insert = await creation
        .query(`INSERT INTO links (id, owner_id, domain, alias, url, click_count, created_at, updated_at) VALUES ('lockdup000000001', $1, '', 'bulk-a', 'https://example.com/x', 0, 0, 0)`, [ownerId])
        .then(() => "inserted", (err: { code?: string }) => err.code);
      // Under the account's lock the deletion has not started: the alias is still taken.
      expect(insert).toBe("23505");
      await creation.query("ROLLBACK");
      const answer = await deletion;
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.deleted).toBe(3);
    } finally {
      await creation.end();
    }
  });
});
