// Per-member folder access (docs/folders.md, Access), on both engines: `none` hides a folder and its links from the
// member on every path (list, counts, search, a link's routes, bulk edits, statistics, analytics and its CSV, the export,
// the live feed, the folder list, the member's API key), `read` refuses every change of them, the role caps the access
// (a viewer given write still reads only); the access routes' refusals (rank, plan, non-members, the owner, malformed
// and hostile input), concurrency (one row, an audit chain) and the row's end with the folder or the membership.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type TestAccount, testAccount } from "../helpers/team.js";
import { visit } from "../helpers/visit.js";
import type { TeamRole } from "../../src/contract/roles.js";

describe.each(ENGINES)("folder access on %s", (engine) => {
  let server: TestServer;
  let n = 0;
  let owner: TestAccount;
  const m = {} as Record<"admin" | "admin2" | "member" | "viewer", TestAccount>;
  let secret: string;
  let shared: string;
  const links = { secret: [] as string[], shared: [] as string[], loose: [] as string[] };

  const db = () => server.ctx.storage.db;
  async function join(ownerId: string, role: TeamRole, plan = "free"): Promise<TestAccount> {
    const a = await testAccount(server, `facc-${engine}-${role}-${++n}@example.com`, plan);
    await db().insertInto("team_members").values({ owner_id: ownerId, member_id: a.id, joined_at: Date.now(), joined_by: "sso", role }).execute();
    return a;
  }
  async function folder(a: TestAccount, name: string): Promise<string> {
    const r = await a.client.post("/api/folders", { name });
    if (r.status !== 201) throw new Error(`folder: ${r.status} ${r.text}`);
    return r.body.folder.id as string;
  }
  async function link(a: TestAccount, alias: string, folderId: string | null): Promise<string> {
    const r = await a.client.post("/api/links", { url: `https://example.com/${alias}`, alias, folder_id: folderId });
    if (r.status !== 201) throw new Error(`link: ${r.status} ${r.text}`);
    return r.body.link.id as string;
  }
  const put = (a: TestAccount, folderId: string, body: unknown) => a.client.request("PUT", `/api/folders/${folderId}/access`, body);
  const listed = async (a: TestAccount, q = "") => {
    const r = await a.client.get(`/api/links?owner=${owner.id}&limit=100${q}`);
    expect(r.status, r.text).toBe(200);
    return { ids: (r.body.links as { id: string }[]).map((l) => l.id).sort(), total: r.body.total as number };
  };
  const auditOf = (memberId: string) =>
    db().selectFrom("admin_audit").selectAll().where("action", "=", "folder.access").where("target_id", "=", memberId).orderBy("id").execute();

  beforeAll(async () => {
    server = await startTestServer({ engine });
    owner = await testAccount(server, `facc-${engine}-owner@example.com`, "enterprise");
    // The member on Business: its API key (the external API needs a paid plan) is tested below.
    for (const role of ["admin", "admin2", "member", "viewer"] as const)
      m[role] = await join(owner.id, role === "admin2" ? "admin" : role, role === "member" ? "business" : "free");
    secret = await folder(owner, "Client secret");
    shared = await folder(owner, "Client shared");
    for (let i = 0; i < 2; i++) links.secret.push(await link(owner, `facc-${engine}-secret-${i}`, secret));
    for (let i = 0; i < 3; i++) links.shared.push(await link(owner, `facc-${engine}-shared-${i}`, shared));
    links.loose.push(await link(owner, `facc-${engine}-loose-0`, null));
    // Clicks: 4 on the hidden folder's links, 1 on the shared folder's, 2 on the loose link.
    for (const [alias, times] of [
      [`facc-${engine}-secret-0`, 3],
      [`facc-${engine}-secret-1`, 1],
      [`facc-${engine}-shared-0`, 1],
      [`facc-${engine}-loose-0`, 2],
    ] as const) {
      for (let i = 0; i < times; i++)
        expect(await visit(server.url, `/${alias}`, { "user-agent": "facc-test", "x-forwarded-for": `203.0.113.${i}` })).toBe(302);
    }
    await server.ctx.clicks.flush();
    expect((await put(owner, secret, { user_id: m.member.id, access: "none" })).status).toBe(200);
    expect((await put(owner, shared, { user_id: m.member.id, access: "read" })).status).toBe(200);
  });
  afterAll(async () => server?.close());

  it("none hides the folder and its links from the list, its counts, filters and search; the owner still sees all", async () => {
    const visible = [...links.shared, ...links.loose].sort();
    expect(await listed(m.member)).toEqual({ ids: visible, total: 4 });
    expect(await listed(owner)).toEqual({ ids: [...links.secret, ...links.shared, ...links.loose].sort(), total: 6 });
    expect(await listed(m.member, `&folder_id=${secret}`)).toEqual({ ids: [], total: 0 });
    expect(await listed(m.member, `&q=${encodeURIComponent("secret")}`)).toEqual({ ids: [], total: 0 });
    expect(await listed(owner, `&q=${encodeURIComponent("secret")}`)).toEqual({ ids: [...links.secret].sort(), total: 2 });
    expect(await listed(m.member, "&folder_id=none")).toEqual({ ids: links.loose, total: 1 });
    expect(await listed(m.member, "&sort=clicks")).toEqual({ ids: visible, total: 4 });
    // Other members are not limited by the member's setting.
    expect((await listed(m.viewer)).total).toBe(6);
    const folders = (await m.member.client.get(`/api/folders?owner=${owner.id}`)).body.folders as { id: string; link_count: number }[];
    expect(folders.map((f) => [f.id, f.link_count])).toEqual([[shared, 3]]);
    expect(((await owner.client.get("/api/folders")).body.folders as unknown[]).length).toBe(2);
  });

  it("none: a hidden link's routes answer 404 as another account's link, and nothing is written", async () => {
    const id = links.secret[0]!;
    const stranger = await testAccount(server, `facc-${engine}-stranger-${++n}@example.com`, "business");
    const strangers = (await stranger.client.get(`/api/links/${id}`)).body;
    for (const [method, path, body] of [
      ["GET", `/api/links/${id}`, undefined],
      ["GET", `/api/links/${id}/stats`, undefined],
      ["GET", `/api/links/${id}/resolve`, undefined],
      ["PATCH", `/api/links/${id}`, { title: "leak" }],
      ["DELETE", `/api/links/${id}`, undefined],
      ["PATCH", "/api/links/bulk", { ids: [id, links.loose[0]], archived: true }],
      ["POST", "/api/links/bulk/delete", { ids: [id] }],
    ] as const) {
      const r = await m.member.client.request(method, path, body);
      expect([method, path, r.status, r.body?.code]).toEqual([method, path, 404, "not_found"]);
    }
    expect(strangers.code).toBe("not_found");
    const row = await db().selectFrom("links").select(["title", "archived_at"]).where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toEqual({ title: null, archived_at: null });
    expect((await db().selectFrom("links").select("archived_at").where("id", "=", links.loose[0]!).executeTakeFirstOrThrow()).archived_at).toBeNull();
    const sparks = await m.member.client.get(`/api/links/sparklines?ids=${links.secret.join(",")},${links.loose[0]}`);
    expect(sparks.status).toBe(200);
    expect(JSON.stringify(sparks.body)).not.toContain(links.secret[0]);
    expect(JSON.stringify(sparks.body)).toContain(links.loose[0]);
    // The hidden folder's own routes.
    expect((await m.admin.client.get(`/api/folders/${secret}/access`)).status).toBe(200);
  });

  it("none: analytics, its CSV and the export leave the hidden folder's links out (exact counts); the live feed is refused", async () => {
    const theirs = (await m.member.client.get(`/api/analytics?range=7d&owner=${owner.id}`)).body;
    const ours = (await owner.client.get("/api/analytics?range=7d")).body;
    expect([ours.range_clicks, theirs.range_clicks]).toEqual([7, 3]);
    expect((theirs.links as { link_id: string }[]).map((l) => l.link_id).sort()).toEqual([links.shared[0], links.loose[0]].sort());
    expect((await m.member.client.get(`/api/analytics?range=7d&owner=${owner.id}&folder_id=${secret}`)).body.range_clicks).toBe(0);
    expect((await m.member.client.get(`/api/analytics?range=7d&owner=${owner.id}&link=${links.secret[0]}`)).body.range_clicks).toBe(0);
    const csv = (await m.member.client.get(`/api/analytics.csv?range=7d&owner=${owner.id}`)).text;
    expect(csv).not.toContain("secret");
    expect(csv).toContain(`facc-${engine}-loose-0`);
    const exported = await m.member.client.get(`/api/links/export?owner=${owner.id}&format=json`);
    expect(exported.status).toBe(200);
    const rows = (JSON.parse(exported.text) as { links: { id: string }[] }).links.map((l) => l.id).sort();
    expect(rows).toEqual([...links.shared, ...links.loose].sort());
    const ownerCsv = (await owner.client.get("/api/links/export")).text.trim().split("\n");
    const memberCsv = (await m.member.client.get(`/api/links/export?owner=${owner.id}`)).text.trim().split("\n");
    expect([ownerCsv.length, memberCsv.length]).toEqual([7, 5]);
    const live = await fetch(`${server.url}/api/analytics/live?owner=${owner.id}`, {
      headers: { cookie: m.member.client.cookie ?? "", accept: "application/json" },
    });
    expect([live.status, ((await live.json()) as { code: string }).code]).toEqual([403, "forbidden"]);
  });

  it("none: the member's API key reaches nothing of the hidden folder", async () => {
    const made = await m.member.client.post("/api/keys", { name: "facc", scopes: ["links:read", "links:write"] });
    expect(made.status, made.text).toBe(201);
    const headers = { authorization: `Bearer ${made.body.secret as string}`, accept: "application/json" };
    const hidden = await fetch(`${server.url}/api/external/links/${links.secret[0]}`, { headers });
    expect(hidden.status).toBe(404);
    const seen = await fetch(`${server.url}/api/external/links/${links.shared[0]}`, { headers });
    expect(seen.status).toBe(200);
    const edit = await fetch(`${server.url}/api/external/links/${links.secret[0]}`, {
      method: "PATCH",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ title: "by key" }),
    });
    expect(edit.status).toBe(404);
  });

  it("read: the member sees the folder's links but changes, moves and bulk-edits none (403); nor files a link in it", async () => {
    const id = links.shared[1]!;
    expect((await m.member.client.get(`/api/links/${id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ["PATCH", `/api/links/${id}`, { title: "nope" }],
      ["PATCH", `/api/links/${id}`, { folder_id: null }],
      ["PATCH", "/api/links/bulk", { ids: [id], archived: true }],
      ["PATCH", "/api/links/bulk", { ids: [links.loose[0]], folder_id: shared }],
      ["PATCH", `/api/links/${links.loose[0]}`, { folder_id: shared }],
    ] as const) {
      const r = await m.member.client.request(method, path, body);
      expect([method, path, r.status, r.body?.code]).toEqual([method, path, 403, "forbidden"]);
    }
    // Into the hidden folder: as a folder that does not exist.
    const into = await m.member.client.patch(`/api/links/${links.loose[0]}`, { folder_id: secret });
    expect([into.status, into.body.code, into.body.details]).toEqual([400, "invalid_request", [{ field: "folder_id", message: "No such folder" }]]);
    const bulkInto = await m.member.client.patch("/api/links/bulk", { ids: [links.loose[0]], folder_id: secret });
    expect([bulkInto.status, bulkInto.body.code]).toEqual([400, "invalid_request"]);
    const rows = await db().selectFrom("links").select(["id", "title", "folder_id", "archived_at"]).where("id", "in", [id, links.loose[0]!]).execute();
    // Compared by id (the engines' collations order mixed-case ids differently).
    const byId = new Map(rows.map((r) => [r.id, [r.title, r.folder_id, r.archived_at]]));
    expect(byId).toEqual(
      new Map([
        [id, [null, shared, null]],
        [links.loose[0]!, [null, null, null]],
      ]),
    );
    // The loose link itself stays editable.
    expect((await m.member.client.patch(`/api/links/${links.loose[0]}`, { note: "fine" })).status).toBe(200);
  });

  it("the role caps the access: a viewer given write reads only; an admin given read deletes nothing there", async () => {
    const f = await folder(owner, `Cap ${++n}`);
    const l = await link(owner, `facc-${engine}-cap-${n}`, f);
    expect((await put(owner, f, { user_id: m.viewer.id, access: "write" })).body.member).toEqual({
      user_id: m.viewer.id,
      email: m.viewer.email,
      role: "viewer",
      access: "write",
      group_access: null,
      effective: "read",
    });
    expect((await m.viewer.client.patch(`/api/links/${l}`, { title: "x" })).status).toBe(403);
    expect((await put(owner, f, { user_id: m.admin.id, access: "read" })).status).toBe(200);
    const del = await m.admin.client.request("DELETE", `/api/links/${l}`);
    expect([del.status, del.body.code]).toEqual([403, "forbidden"]);
    expect(await db().selectFrom("links").select("id").where("id", "=", l).executeTakeFirst()).toEqual({ id: l });
    const table = (await owner.client.get(`/api/folders/${f}/access`)).body.members as {
      user_id: string;
      role: string;
      access: string | null;
      effective: string;
    }[];
    expect(table.map((r) => [r.user_id, r.role, r.access, r.effective]).sort()).toEqual(
      [
        [m.admin.id, "admin", "read", "read"],
        [m.admin2.id, "admin", null, "write"],
        [m.member.id, "member", null, "write"],
        [m.viewer.id, "viewer", "write", "read"],
      ].sort(),
    );
  });

  it("the access routes: who may set whom, the owner never, non-members, plan, malformed and hostile input", async () => {
    const f = await folder(owner, `Routes ${++n}`);
    const code = async (a: TestAccount, body: unknown) => {
      const r = await put(a, f, body);
      return [r.status, r.body?.code];
    };
    expect(await code(m.admin, { user_id: m.member.id, access: "none" })).toEqual([200, undefined]);
    expect(await code(m.admin, { user_id: m.viewer.id, access: "read" })).toEqual([200, undefined]);
    expect(await code(m.admin, { user_id: m.admin2.id, access: "none" })).toEqual([403, "forbidden"]);
    expect(await code(m.admin, { user_id: m.admin.id, access: "none" })).toEqual([403, "forbidden"]);
    expect(await code(m.admin, { user_id: owner.id, access: "none" })).toEqual([403, "forbidden"]);
    expect(await code(owner, { user_id: owner.id, access: "none" })).toEqual([403, "forbidden"]);
    expect(await code(owner, { user_id: m.admin2.id, access: "read" })).toEqual([200, undefined]);
    // The member no longer sees f (the admin set it to none): 404; on a folder it reads, 403.
    expect(await code(m.member, { user_id: m.viewer.id, access: "none" })).toEqual([404, "not_found"]);
    const onShared = await put(m.member, shared, { user_id: m.viewer.id, access: "none" });
    expect([onShared.status, onShared.body.code]).toEqual([403, "forbidden"]);
    expect(await code(m.viewer, { user_id: m.member.id, access: "write" })).toEqual([403, "forbidden"]);
    const stranger = await testAccount(server, `facc-${engine}-out-${++n}@example.com`, "enterprise");
    expect(await code(stranger, { user_id: m.member.id, access: "none" })).toEqual([404, "not_found"]);
    const notMember = await put(owner, f, { user_id: stranger.id, access: "none" });
    expect([notMember.status, notMember.body.code, notMember.body.details?.[0]?.field]).toEqual([400, "invalid_request", "user_id"]);
    for (const body of [
      { user_id: m.member.id, access: "admin" },
      { user_id: m.member.id, access: "default" },
      { user_id: m.member.id },
      { access: "read" },
      { user_id: m.member.id, access: "read", extra: 1 },
      { user_id: "x".repeat(65), access: "read" },
      { user_id: 7, access: "read" },
      { user_id: m.member.id, access: ["read"] },
      "not json",
      null,
    ]) {
      const r = await put(owner, f, body);
      expect([JSON.stringify(body).slice(0, 40), r.status, r.body?.code]).toEqual([JSON.stringify(body).slice(0, 40), 400, "invalid_request"]);
    }
    for (const hostile of ["' OR 1=1 --", "../../etc/passwd", "<script>alert(1)</script>", "\u0000", "x".repeat(64)]) {
      const r = await put(owner, f, { user_id: hostile, access: "none" });
      expect([hostile.slice(0, 20), r.status, r.body?.code]).toEqual([hostile.slice(0, 20), 400, "invalid_request"]);
    }
    expect((await m.member.client.request("PUT", `/api/folders/${"' OR 1=1"}/access`, { user_id: m.viewer.id, access: "none" })).status).toBe(404);
    expect((await owner.client.request("PUT", `/api/folders/no-such/access`, { user_id: m.viewer.id, access: "none" })).status).toBe(404);
    // The rows: the member none, the viewer read, admin2 read, nothing else.
    const rows = await db().selectFrom("folder_access").select(["member_id", "access"]).where("folder_id", "=", f).execute();
    expect(rows.map((r) => [r.member_id, r.access]).sort()).toEqual(
      [
        [m.member.id, "none"],
        [m.viewer.id, "read"],
        [m.admin2.id, "read"],
      ].sort(),
    );
    // Back to the default: DELETE, by an admin within its rank; audited.
    const back = await m.admin.client.request("DELETE", `/api/folders/${f}/access/${m.member.id}`);
    expect([back.status, back.body.member.access, back.body.member.effective]).toEqual([200, null, "write"]);
    expect((await m.admin.client.request("DELETE", `/api/folders/${f}/access/${m.admin2.id}`)).status).toBe(403);
    expect((await owner.client.request("DELETE", `/api/folders/${f}/access/${stranger.id}`)).status).toBe(400);
    const trail = await auditOf(m.member.id);
    const last = trail.filter((e) => JSON.parse(e.after ?? "{}").folder_id === f);
    expect(last.map((e) => [e.team_id, e.actor_id, JSON.parse(e.before ?? "{}").access, JSON.parse(e.after ?? "{}").access])).toEqual([
      [owner.id, m.admin.id, null, "none"],
      [owner.id, m.admin.id, "none", null],
    ]);
  });

  it("Enterprise only: a Business owner's PUT is 403 plan_required (enterprise); DELETE still takes a setting back", async () => {
    const biz = await testAccount(server, `facc-${engine}-biz-${++n}@example.com`, "business");
    const mem = await join(biz.id, "member");
    const f = await folder(biz, "Biz");
    const r = await put(biz, f, { user_id: mem.id, access: "none" });
    expect([r.status, r.body.code, r.body.required_plan]).toEqual([403, "plan_required", "enterprise"]);
    await db().insertInto("folder_access").values({ folder_id: f, owner_id: biz.id, member_id: mem.id, access: "none", updated_at: Date.now() }).execute();
    // A setting made on Enterprise keeps holding after a downgrade (never more rights).
    expect((await mem.client.get(`/api/folders?owner=${biz.id}`)).body.folders).toEqual([]);
    expect((await biz.client.request("DELETE", `/api/folders/${f}/access/${mem.id}`)).status).toBe(200);
    expect(((await mem.client.get(`/api/folders?owner=${biz.id}`)).body.folders as unknown[]).length).toBe(1);
  });

  it("concurrent PUTs leave one row, and each audit entry's before is the previous after", async () => {
    const f = await folder(owner, `Race ${++n}`);
    const target = await join(owner.id, "member");
    const levels = ["none", "read", "write", "none", "read", "write", "read", "none"];
    const answers = await Promise.all(levels.map((access) => put(owner, f, { user_id: target.id, access })));
    expect(answers.map((a) => a.status)).toEqual(levels.map(() => 200));
    const rows = await db().selectFrom("folder_access").selectAll().where("folder_id", "=", f).execute();
    expect(rows).toHaveLength(1);
    const trail = (await auditOf(target.id)).map((e) => [JSON.parse(e.before ?? "{}").access, JSON.parse(e.after ?? "{}").access]);
    for (let i = 1; i < trail.length; i++) expect(trail[i]![0]).toBe(trail[i - 1]![1]);
    expect(trail[0]![0]).toBeNull();
    expect(trail.at(-1)![1]).toBe(rows[0]!.access);
  });

  it("a change holds at once; the row goes with the folder and with the membership", async () => {
    const f = await folder(owner, `Life ${++n}`);
    const l = await link(owner, `facc-${engine}-life-${n}`, f);
    const target = await join(owner.id, "member");
    expect((await target.client.get(`/api/links/${l}`)).status).toBe(200);
    expect((await put(owner, f, { user_id: target.id, access: "none" })).status).toBe(200);
    expect((await target.client.get(`/api/links/${l}`)).status).toBe(404);
    expect((await owner.client.request("DELETE", `/api/folders/${f}/access/${target.id}`)).status).toBe(200);
    expect((await target.client.get(`/api/links/${l}`)).status).toBe(200);
    expect((await put(owner, f, { user_id: target.id, access: "none" })).status).toBe(200);
    expect((await owner.client.request("DELETE", `/api/team/members/${target.id}`)).status).toBe(200);
    expect(await db().selectFrom("folder_access").select("member_id").where("member_id", "=", target.id).execute()).toEqual([]);
    const g = await folder(owner, `Gone ${++n}`);
    expect((await put(owner, g, { user_id: m.viewer.id, access: "none" })).status).toBe(200);
    expect((await owner.client.request("DELETE", `/api/folders/${g}`)).status).toBe(200);
    expect(await db().selectFrom("folder_access").select("member_id").where("folder_id", "=", g).execute()).toEqual([]);
  });
});
