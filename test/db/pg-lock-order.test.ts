// Lock order on PostgreSQL, where two transactions taking the same rows in opposite orders deadlock (a 500):
// - a domain's deletion and a bulk delete take the account's lock first, as link creations do: each deleted
//   link counts down the account's link_counts row, and from the second one PostgreSQL checks that row's key
//   against users (FOR KEY SHARE), which would wait on a creation holding the account's lock, itself waiting
//   on the domain's row or on an alias being deleted;
// - an account's deletion locks its links (in id order) before its users row, as the click writer locks a
//   batch's links and then, through the owner roll-ups' key, the users row.
// The other transaction is held open by the test with a pg client, so the order is certain, not a race.
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

  const userId = async (email: string) =>
    (await server.ctx.storage.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id;
  const lockWaits = async () =>
    (
      await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`.execute(
        server.ctx.storage.db,
      )
    ).rows[0]!.n;

  it("waits for the creation, then deletes the domain and its links: no deadlock, no 500", async () => {
    const db = server.ctx.storage.db;
    const ownerId = await userId("lock-owner@example.com");
    const now = Date.now();
    await db
      .insertInto("domains")
      .values({
        id: "domlock000000001",
        owner_id: ownerId,
        hostname: "locks.example",
        status: "verified",
        txt_token: "t",
        next_action: null,
        last_checked_at: now,
        verified_at: now,
        lost_at: null,
        next_check_at: null,
        verify_requested_at: null,
        created_at: now,
      })
      .execute();
    for (const alias of ["one", "two", "three"])
      expect((await owner.post("/api/links", { url: `https://example.com/${alias}`, alias, domain: "locks.example" })).status).toBe(201);

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
    const ownerId = await userId("lock-owner@example.com");
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
        .query(
          `INSERT INTO links (id, owner_id, domain, alias, url, click_count, created_at, updated_at) VALUES ('lockdup000000001', $1, '', 'bulk-a', 'https://example.com/x', 0, 0, 0)`,
          [ownerId],
        )
        .then(
          () => "inserted",
          (err: { code?: string }) => err.code,
        );
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

  it("an account's deletion waits for a click batch holding one of its links: no deadlock, no 500", async () => {
    const gone = await signedInClient(server, "lock-gone@example.com", "free");
    const db = server.ctx.storage.db;
    const ownerId = await userId("lock-gone@example.com");
    const linkIds: string[] = [];
    for (const alias of ["gone-a", "gone-b"]) linkIds.push((await gone.post("/api/links", { url: "https://example.com/", alias })).body.link.id);
    // A click batch as the PostgreSQL writer writes it: its links locked in id order, then the owner's roll-up,
    // whose key check takes the users row.
    const batch = new pg.Client({ connectionString: server.databaseUrl });
    await batch.connect();
    try {
      await batch.query("BEGIN");
      await batch.query("SELECT id FROM links WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE", [linkIds]);
      const deletion = gone.delete("/api/account", { password: "correct horse 1" });
      await waitFor(async () => (await lockWaits()) > 0, { timeoutMs: 5_000 });
      await batch.query(
        `INSERT INTO owner_daily (owner_id, day, clicks, bots, visitors, qr) VALUES ($1, '2026-11-27', 1, 0, 1, 0)
         ON CONFLICT (owner_id, day) DO UPDATE SET clicks = owner_daily.clicks + 1`,
        [ownerId],
      );
      await batch.query("COMMIT");
      const answer = await deletion;
      expect(answer.status, answer.text).toBe(200);
    } finally {
      await batch.end();
    }
    expect(await db.selectFrom("users").select("id").where("id", "=", ownerId).execute()).toEqual([]);
    expect(await db.selectFrom("owner_daily").select("day").where("owner_id", "=", ownerId).execute()).toEqual([]);
  });
});
