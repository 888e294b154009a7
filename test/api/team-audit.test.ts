// The team's own audit log (docs/audit.md), on both engines: GET /api/team/audit lists the entries whose team is the
// owner's, newest first, with filters and keyset paging; the owner and an admin (?owner=) read it, a member and a viewer
// get 403 forbidden, anyone else 404, an owner below Enterprise 403 plan_required; malformed, oversized and hostile
// queries answer 400 invalid_request, never 5xx.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { testAccount } from "../helpers/team.js";
import { record, teamMember } from "../helpers/audit.js";
import { operator } from "../helpers/operator.js";
import { ApiClient } from "../helpers/client.js";

let n = 0;
const email = (what: string) => `audit-${what}-${++n}-${Date.now().toString(36)}@example.com`;
const DAY = 86_400_000;

describe.each(ENGINES)("the team's audit log on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("lists its own team's entries only, newest first, as the operator's log shows them", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const other = await testAccount(server, email("other"), "enterprise");
    const m = await teamMember(server, owner, "member");
    const o = await teamMember(server, other, "member");
    expect((await owner.client.patch(`/api/team/members/${m.id}`, { role: "viewer" })).status).toBe(200);
    expect((await other.client.patch(`/api/team/members/${o.id}`, { role: "viewer" })).status).toBe(200);
    expect((await owner.client.patch(`/api/team/members/${m.id}`, { role: "admin" })).status).toBe(200);
    expect((await owner.client.post("/api/keys", { name: "not the team's" })).status).toBe(201);

    const r = await owner.client.get("/api/team/audit");
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.entries.map((e: { action: string; target_id: string; after: unknown }) => [e.action, e.target_id, e.after])).toEqual([
      ["team.role", m.id, { owner_id: owner.id, role: "admin" }],
      ["team.role", m.id, { owner_id: owner.id, role: "viewer" }],
    ]);
    const ops = await operator(server, email("op"));
    const all = (await ops.client.get(`/api/admin/audit?target=${m.id}`)).body.entries;
    expect(r.body.entries).toEqual(all);
    expect((await other.client.get("/api/team/audit")).body.entries.map((e: { target_id: string }) => e.target_id)).toEqual([o.id]);
  });

  it("the owner and an admin read it; a member and a viewer 403 forbidden; others 404; below Enterprise 403 plan_required", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const admin = await teamMember(server, owner, "admin");
    const member = await teamMember(server, owner, "member");
    const viewer = await teamMember(server, owner, "viewer");
    const stranger = await testAccount(server, email("stranger"), "enterprise");
    await record(server, owner, Date.now(), { teamId: owner.id, targetId: "x" });
    for (const path of ["/api/team/audit", "/api/team/audit.csv", "/api/team/audit.json"]) {
      expect((await owner.client.get(path)).status, path).toBe(200);
      expect((await admin.client.get(`${path}?owner=${owner.id}`)).status, path).toBe(200);
      for (const who of [member, viewer]) {
        const r = await who.client.get(`${path}?owner=${owner.id}`);
        expect([r.status, r.body.code], path).toEqual([403, "forbidden"]);
      }
      const s = await stranger.client.get(`${path}?owner=${owner.id}`);
      expect([s.status, s.body.code], path).toEqual([404, "not_found"]);
      const anon = await new ApiClient(server.url).get(`${path}?owner=${owner.id}`);
      expect([anon.status, anon.body.code], path).toEqual([401, "unauthenticated"]);
      // An admin without ?owner= reads its own account's team (not Enterprise here): plan_required.
      const own = await admin.client.get(path);
      expect([own.status, own.body.code, own.body.required_plan], path).toEqual([403, "plan_required", "enterprise"]);
    }
    const rows = (await admin.client.get(`/api/team/audit?owner=${owner.id}`)).body.entries;
    expect(rows.map((e: { target_id: string }) => e.target_id)).toEqual(["x"]);

    // The owner moves to Business: the log is refused (and the admin becomes a member: forbidden).
    await server.ctx.storage.db.updateTable("users").set({ plan: "business" }).where("id", "=", owner.id).execute();
    const down = await owner.client.get("/api/team/audit");
    expect([down.status, down.body.code]).toEqual([403, "plan_required"]);
    expect((await admin.client.get(`/api/team/audit?owner=${owner.id}`)).status).toBe(403);
  });

  it("filters by action, actor email (a part, any case, wildcards literal), target and UTC days; pages with a cursor", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const t0 = Date.UTC(2026, 2, 10, 12);
    const a = { id: "ua", email: "Alice_1%@Acme.test" };
    const b = { id: "ub", email: "bob@acme.test" };
    await record(server, a, t0, { teamId: owner.id, action: "team.role", targetId: "m1" });
    await record(server, b, t0 + DAY, { teamId: owner.id, action: "sso.update", targetId: "m2" });
    await record(server, a, t0 + 2 * DAY, { teamId: owner.id, action: "team.role", targetId: "m2" });
    await record(server, b, Date.UTC(2026, 2, 13) - 1, { teamId: owner.id, action: "folder.access", targetId: "m3" });
    await record(server, b, t0 + 3 * DAY, { teamId: "someone-else", action: "team.role", targetId: "m1" });
    const ids = async (q: string) => {
      const r = await owner.client.get(`/api/team/audit?${q}`);
      expect(r.status, r.text).toBe(200);
      return r.body.entries.map((e: { target_id: string; at: string }) => `${e.target_id}@${e.at.slice(5, 10)}`);
    };
    expect(await ids("")).toEqual(["m3@03-12", "m2@03-12", "m2@03-11", "m1@03-10"]);
    expect(await ids("action=team.role")).toEqual(["m2@03-12", "m1@03-10"]);
    expect(await ids("actor=ALICE_1%25")).toEqual(["m2@03-12", "m1@03-10"]);
    expect(await ids("actor=%25")).toEqual(["m2@03-12", "m1@03-10"]);
    expect(await ids("actor=_")).toEqual(["m2@03-12", "m1@03-10"]);
    expect(await ids("target=m2")).toEqual(["m2@03-12", "m2@03-11"]);
    expect(await ids("from=2026-03-11&to=2026-03-11")).toEqual(["m2@03-11"]);
    expect(await ids("from=2026-03-12")).toEqual(["m3@03-12", "m2@03-12"]);
    expect(await ids("to=2026-03-10")).toEqual(["m1@03-10"]);
    expect(await ids("from=2026-03-13")).toEqual([]);

    const seen: string[] = [];
    let cursor: string | null = "";
    type Page = { status: number; body: { entries: { target_id: string }[]; next_cursor: string | null } };
    for (let i = 0; cursor !== null; i++) {
      const r: Page = await owner.client.get(`/api/team/audit?limit=3&cursor=${cursor}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.entries.map((e) => e.target_id));
      cursor = r.body.next_cursor;
      expect(i).toBeLessThan(3);
    }
    expect(seen).toEqual(["m3", "m2", "m2", "m1"]);
  });

  it("refuses malformed, oversized and hostile queries with 400 invalid_request, never 5xx", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const bad = [
      "cursor=abc",
      "cursor=1e5",
      "cursor=9999999999999999",
      "limit=0",
      "limit=101",
      "limit=x",
      "from=2026-02-30",
      "from=2026-3-1",
      "to=yesterday",
      "from=2026-03-02&to=2026-03-01",
      "unknown=1",
      `actor=${"a".repeat(255)}`,
      `target=${"t".repeat(301)}`,
      `action=${"a".repeat(101)}`,
      `owner=${"o".repeat(65)}`,
    ];
    for (const q of bad) {
      for (const path of ["/api/team/audit", "/api/team/audit.csv", "/api/team/audit.json"]) {
        if (path !== "/api/team/audit" && /^(cursor|limit)=/.test(q)) continue;
        const r = await owner.client.get(`${path}?${q}`);
        expect([r.status, r.body?.code], `${path}?${q}`).toEqual([400, "invalid_request"]);
      }
    }
    const hostile = ["actor=' OR 1=1 --", "target=<script>alert(1)</script>", "action=%00", "actor=%E2%80%AE"];
    for (const q of hostile) {
      const r = await owner.client.get(`/api/team/audit?${q}`);
      expect(r.status, q).toBeLessThan(500);
      if (r.status === 200) expect(r.body.entries, q).toEqual([]);
    }
  });

  it("answers concurrent readers while entries are written, each page in order without repeats", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const writes = Array.from({ length: 30 }, (_, i) => record(server, owner, Date.now(), { teamId: owner.id, targetId: `c${i}` }));
    const reads = Array.from({ length: 10 }, () => owner.client.get("/api/team/audit?limit=100"));
    const answers = await Promise.all([...writes, ...reads]);
    for (const r of answers.slice(30) as { status: number; body: { entries: { id: string }[] } }[]) {
      expect(r.status).toBe(200);
      const ids = r.body.entries.map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((x, y) => y - x));
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect((await owner.client.get("/api/team/audit?limit=100")).body.entries).toHaveLength(30);
  });
});
