// Deprovisioning through SCIM on one instance, under load on another, both on one PostgreSQL database: the person's
// requests on instance B (their session on the team's links, their API key) are refused from the moment instance A
// answered the PATCH, and within a second at worst (docs/scim.md, Deprovisioning). B reads sessions, keys and team
// memberships from the database on every request: no cache keeps them alive.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient } from "../helpers/client.js";
import { hashPassword } from "../../src/accounts/passwords.js";
import { PATCH, USER, membership, scim, scimTeam, type ScimTeam } from "../helpers/scim.js";

const SHARED = { SESSION_SECRET: "scim-two-instances-".padEnd(48, "x") };

interface Hit {
  started: number;
  ended: number;
  status: number;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)("SCIM deactivation across two PostgreSQL instances", () => {
  let a: TestServer;
  let b: TestServer;
  let team: ScimTeam;

  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres", env: SHARED });
    b = await startTestServer({ databaseUrl: a.databaseUrl, env: SHARED });
    team = await scimTeam(a, "two-inst.test");
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("a user deactivated on A is refused on B within a second, while B is under load", async () => {
    const email = "lee@two-inst.test";
    const created = await scim(a, team.token, "POST", "/Users", { schemas: [USER], userName: email });
    expect(created.status, created.text).toBe(201);
    expect(await membership(a, team.ownerId, email)).not.toBeNull();
    const account = (await a.ctx.accounts.byEmail(email))!;
    await a.ctx.storage.db
      .updateTable("users")
      .set({ password_hash: await hashPassword("correct horse 1"), plan: "business" })
      .where("id", "=", account.id)
      .execute();
    // Signed in on B, with a key made on B.
    const person = new ApiClient(b.url);
    expect((await person.login(email)).status).toBe(200);
    const key = (await person.post("/api/keys", { name: "two", scopes: ["links:read"] })).body.secret as string;
    const teamLinks = `/api/links?owner=${team.ownerId}`;
    const first = await person.get(teamLinks);
    expect(first.status, first.text).toBe(200);
    const byKey = () => fetch(`${b.url}/api/external/links`, { headers: { authorization: `Bearer ${key}` } });
    expect((await byKey()).status).toBe(200);

    // Load on B: 6 loops of the person's own requests (session and key) and 2 of the owner's.
    const hits: { session: Hit[]; key: Hit[] } = { session: [], key: [] };
    let stop = false;
    const loop = async (kind: "session" | "key" | "owner") => {
      const ownerOnB = new ApiClient(b.url);
      ownerOnB.cookie = team.owner.cookie;
      while (!stop) {
        const started = performance.now();
        const status =
          kind === "session" ? (await person.get(teamLinks)).status : kind === "key" ? (await byKey()).status : (await ownerOnB.get("/api/team")).status;
        if (kind !== "owner") hits[kind].push({ started, ended: performance.now(), status });
      }
    };
    const loops = [...["session", "session", "session", "key", "key", "key", "owner", "owner"].map((k) => loop(k as "session" | "key" | "owner"))];
    // Until both kinds have been served at least once (a loaded machine may take longer than a moment).
    const served = () => (["session", "key"] as const).every((k) => hits[k].some((h) => h.status === 200));
    for (const until = Date.now() + 10_000; !served() && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 100));
    const sent = performance.now();
    const off = await scim(a, team.token, "PATCH", `/Users/${created.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { active: false } }],
    });
    const answered = performance.now();
    expect(off.status, off.text).toBe(200);
    await new Promise((r) => setTimeout(r, 1_200));
    stop = true;
    await Promise.all(loops);

    for (const kind of ["session", "key"] as const) {
      const list = hits[kind];
      // Served before the change, refused after it.
      expect(
        list.some((h) => h.ended < sent && h.status === 200),
        kind,
      ).toBe(true);
      // Every request B began after A answered was refused: 401, the first ones at least; a key refused again and again
      // from one address then meets the failed-key throttle (429), a refusal too.
      const after = list.filter((h) => h.started > answered);
      expect(after.length, kind).toBeGreaterThan(5);
      expect(after[0]!.status, kind).toBe(401);
      expect(
        [...new Set(after.map((h) => h.status))].filter((s) => s !== 401 && !(kind === "key" && s === 429)),
        kind,
      ).toEqual([]);
      // And the first refusal came within a second of A's answer.
      const firstRefused = list.find((h) => h.status === 401)!;
      expect(firstRefused.ended - answered, kind).toBeLessThan(1_000);
    }
    expect(await membership(b, team.ownerId, email)).toBeNull();
  });
});
