// Folders (docs/folders.md): an account's folders with link counts, unique names ignoring case, Business and up; the
// link field folder_id on create, edit and bulk edit; the list, analytics' and the export's folder_id filter; members
// use the owner's folders; another account's folder is never revealed; caps and names exact under concurrency.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type TestAccount, joinTeam, testAccount } from "../helpers/team.js";
import { MAX_FOLDERS_PER_OWNER } from "../../src/teams/folders.js";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(ENGINES)("folders on %s", (engine) => {
  let server: TestServer;
  let n = 0;
  beforeAll(async () => {
    server = await startTestServer({ engine, env: process.env.FOLDERS_DEBUG ? { LOG_LEVEL: "error" } : {} });
  });
  afterAll(async () => server?.close());

  const account = (plan = "business") => testAccount(server, `folders-${engine}-${++n}@example.com`, plan);
  const db = () => server.ctx.storage.db;

  async function folder(a: TestAccount, name: string): Promise<string> {
    const r = await a.client.post("/api/folders", { name });
    if (r.status !== 201) throw new Error(`folder: ${r.status} ${r.text}`);
    return r.body.folder.id as string;
  }
  async function link(a: TestAccount, extra: Record<string, unknown> = {}): Promise<string> {
    const r = await a.client.post("/api/links", { url: `https://example.com/f${++n}`, ...extra });
    if (r.status !== 201) throw new Error(`link: ${r.status} ${r.text}`);
    return r.body.link.id as string;
  }
  const folderOf = async (id: string) => (await db().selectFrom("links").select("folder_id").where("id", "=", id).executeTakeFirstOrThrow()).folder_id;
  const listed = async (a: TestAccount, q: string) => {
    const r = await a.client.get(`/api/links?${q}`);
    expect(r.status, r.text).toBe(200);
    return { ids: (r.body.links as { id: string }[]).map((l) => l.id).sort(), total: r.body.total as number };
  };

  it("create, list in name order with link counts, rename, delete (its links in no folder)", async () => {
    const a = await account();
    expect((await a.client.get("/api/folders")).body).toEqual({ status: "success", folders: [] });
    const made = await a.client.post("/api/folders", { name: "  Client   Zeta  " });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      status: "success",
      folder: { id: expect.any(String), name: "Client Zeta", created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) },
    });
    const zeta = made.body.folder.id as string;
    const alpha = await folder(a, "álpha");
    const l1 = await link(a, { folder_id: zeta });
    const l2 = await link(a, { folder_id: zeta });
    const l3 = await link(a, { folder_id: zeta, archived: true });
    const l4 = await link(a);
    const list = await a.client.get("/api/folders");
    expect(list.headers.get("cache-control")).toBe("no-store");
    // Name order for a reader (á with a) on either engine; archived links are not counted, as the list leaves them out.
    expect(list.body.folders.map((f: { name: string; link_count: number }) => [f.name, f.link_count])).toEqual([
      ["álpha", 0],
      ["Client Zeta", 2],
    ]);
    const shown = await a.client.get(`/api/links/${l1}`);
    expect(shown.body.link.folder_id).toBe(zeta);

    const renamed = await a.client.patch(`/api/folders/${zeta}`, { name: "Client Omega" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.folder).toMatchObject({ id: zeta, name: "Client Omega" });
    // The same name in another case is the same folder's.
    expect((await a.client.patch(`/api/folders/${zeta}`, { name: "CLIENT omega" })).status).toBe(200);

    const gone = await a.client.delete(`/api/folders/${zeta}`);
    expect(gone.body).toEqual({ status: "success", moved: 3 });
    expect([await folderOf(l1), await folderOf(l2), await folderOf(l3), await folderOf(l4)]).toEqual([null, null, null, null]);
    expect((await a.client.get("/api/folders")).body.folders.map((f: { id: string }) => f.id)).toEqual([alpha]);
    expect((await a.client.delete(`/api/folders/${zeta}`)).status).toBe(404);
    expect((await a.client.patch(`/api/folders/${zeta}`, { name: "Back" })).status).toBe(404);
  });

  it("names are unique per account ignoring case (409 conflict); another account may use the same name", async () => {
    const a = await account();
    const b = await account();
    await folder(a, "Launch");
    const dup = await a.client.post("/api/folders", { name: "launch" });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      status: "error",
      code: "conflict",
      message: 'You already have a folder named "launch"',
      details: [{ field: "name", message: "This name is taken by another of your folders" }],
    });
    const second = await folder(a, "Second");
    expect((await a.client.patch(`/api/folders/${second}`, { name: " LAUNCH " })).status).toBe(409);
    expect((await b.client.post("/api/folders", { name: "LAUNCH" })).status).toBe(201);
  });

  it("bad names and bodies: 400 invalid_request naming the field, nothing stored", async () => {
    const a = await account();
    const cases: [unknown, string][] = [
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "x".repeat(61) }, "name"],
      [{ name: "bell\u0007here" }, "name"],
      [{ name: "two\nlines" }, "name"],
      [{ name: "del\u007f" }, "name"],
      [{ name: "c1\u0085" }, "name"],
      [{ name: 42 }, "name"],
      [{}, "name"],
      [{ name: "ok", color: "red" }, "color"],
      [{ name: "y".repeat(401) }, "name"],
    ];
    for (const [body, field] of cases) {
      const r = await a.client.post("/api/folders", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe("invalid_request");
      expect(JSON.stringify(r.body), JSON.stringify(body)).toContain(field);
    }
    // 60 characters (astral ones counted as one) is the most.
    expect((await a.client.post("/api/folders", { name: "😀".repeat(60) })).status).toBe(201);
    expect((await a.client.get("/api/folders")).body.folders).toHaveLength(1);
    const bad = await a.client.request("POST", "/api/folders", "{not json", { "content-type": "application/json" });
    expect(bad.status).toBe(400);
  });

  it("Business and up: lower plans get 403 plan_required; a downgraded account keeps, lists, empties and deletes its folders", async () => {
    for (const plan of ["free", "pro"]) {
      const low = await account(plan);
      const r = await low.client.post("/api/folders", { name: "Mine" });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: "plan_required", required_plan: "business" });
      expect((await low.client.get("/api/folders")).body.folders).toEqual([]);
    }
    const a = await account();
    const f = await folder(a, "Kept");
    const l = await link(a, { folder_id: f });
    await db().updateTable("users").set({ plan: "pro" }).where("id", "=", a.id).execute();
    expect((await a.client.get("/api/folders")).body.folders).toMatchObject([{ id: f, name: "Kept", link_count: 1 }]);
    expect((await a.client.get(`/api/links?folder_id=${f}`)).body.total).toBe(1);
    expect((await a.client.patch(`/api/folders/${f}`, { name: "Renamed" })).body.code).toBe("plan_required");
    const other = await link(a);
    const put = await a.client.patch(`/api/links/${other}`, { folder_id: f });
    expect([put.status, put.body.code]).toEqual([403, "plan_required"]);
    expect((await a.client.patch(`/api/links/${l}`, { folder_id: null })).status).toBe(200);
    expect(await folderOf(l)).toBeNull();
    expect((await a.client.delete(`/api/folders/${f}`)).body).toEqual({ status: "success", moved: 0 });
  });

  it("the link field: set on create and edit, cleared with null; another account's folder is refused as one that does not exist", async () => {
    const a = await account();
    const b = await account();
    const mine = await folder(a, "Mine");
    const theirs = await folder(b, "Theirs");
    const l = await link(a, { folder_id: mine });
    expect(await folderOf(l)).toBe(mine);
    const cleared = await a.client.patch(`/api/links/${l}`, { folder_id: null });
    expect(cleared.body.link.folder_id).toBeNull();
    expect((await a.client.patch(`/api/links/${l}`, { folder_id: mine })).body.link.folder_id).toBe(mine);

    const unknown = await a.client.post("/api/links", { url: "https://example.com/x", folder_id: "no-such-folder" });
    const foreign = await a.client.post("/api/links", { url: "https://example.com/x", folder_id: theirs });
    for (const r of [unknown, foreign]) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        status: "error",
        code: "invalid_request",
        message: "folder_id: No such folder",
        details: [{ field: "folder_id", message: "No such folder" }],
      });
    }
    const moved = await a.client.patch(`/api/links/${l}`, { folder_id: theirs });
    expect([moved.status, moved.body.message]).toEqual([400, "folder_id: No such folder"]);
    expect(await folderOf(l)).toBe(mine);
    for (const bad of [42, ["x"], { id: mine }, "f".repeat(65)]) {
      expect((await a.client.patch(`/api/links/${l}`, { folder_id: bad })).status, JSON.stringify(bad)).toBe(400);
    }
    // Signed out, no folder.
    const anon = await fetch(`${server.url}/api/links`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(anon.status).toBeLessThan(500);
    // Bulk creation rows take it too.
    const bulk = await a.client.post("/api/links/bulk", {
      links: [
        { url: "https://example.com/b1", folder_id: mine },
        { url: "https://example.com/b2", folder_id: theirs },
      ],
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.results.map((r: { status: string }) => r.status)).toEqual(["created", "error"]);
    expect(bulk.body.results[0].link.folder_id).toBe(mine);
    expect(bulk.body.results[1]).toMatchObject({ code: "invalid_request", details: [{ field: "folder_id", message: "No such folder" }] });
  });

  it("the list filters by folder_id, and folder_id=none gives the links in no folder", async () => {
    const a = await account();
    const f1 = await folder(a, "One");
    const f2 = await folder(a, "Two");
    const in1 = [await link(a, { folder_id: f1 }), await link(a, { folder_id: f1 })];
    const in2 = [await link(a, { folder_id: f2 })];
    const none = [await link(a), await link(a)];
    await link(a, { folder_id: f1, archived: true });
    expect(await listed(a, `folder_id=${f1}`)).toEqual({ ids: [...in1].sort(), total: 2 });
    expect(await listed(a, `folder_id=${f2}`)).toEqual({ ids: in2, total: 1 });
    expect(await listed(a, "folder_id=none")).toEqual({ ids: [...none].sort(), total: 2 });
    expect((await listed(a, `folder_id=${f1}&state=archived`)).total).toBe(1);
    // Another account's folder, or none at all: nothing (its existence not revealed).
    const b = await account();
    const theirs = await folder(b, "Theirs");
    await link(b, { folder_id: theirs });
    expect(await listed(a, `folder_id=${theirs}`)).toEqual({ ids: [], total: 0 });
    expect(await listed(a, "folder_id=nope")).toEqual({ ids: [], total: 0 });
    expect((await a.client.get("/api/links?folder_id=")).status).toBe(400);
    expect((await a.client.get(`/api/links?folder_id=${"x".repeat(65)}`)).status).toBe(400);
  });

  it("bulk edit moves links into a folder or out of every folder, all or nothing", async () => {
    const a = await account();
    const b = await account();
    const f = await folder(a, "Target");
    const theirs = await folder(b, "Theirs");
    const ids = [await link(a), await link(a), await link(a)];
    const r = await a.client.patch("/api/links/bulk", { ids, folder_id: f });
    expect(r.status, r.text).toBe(200);
    expect(r.body.links.map((l: { folder_id: string }) => l.folder_id)).toEqual([f, f, f]);
    const refused = await a.client.patch("/api/links/bulk", { ids, folder_id: theirs, archived: true });
    expect([refused.status, refused.body.message]).toEqual([400, "folder_id: No such folder"]);
    expect(await Promise.all(ids.map(folderOf))).toEqual([f, f, f]);
    expect((await db().selectFrom("links").select("archived_at").where("id", "in", ids).execute()).every((l) => l.archived_at === null)).toBe(true);
    expect((await a.client.patch("/api/links/bulk", { ids: ids.slice(0, 2), folder_id: null })).status).toBe(200);
    expect(await Promise.all(ids.map(folderOf))).toEqual([null, null, f]);
    // Links of another account among the ids: not found, nothing moved.
    const foreignLink = await link(b);
    expect((await a.client.patch("/api/links/bulk", { ids: [ids[0], foreignLink], folder_id: f })).status).toBe(404);
    expect(await folderOf(ids[0]!)).toBeNull();
  });

  it("members list, create and use the owner's folders; only the owner renames or deletes; strangers get 404", async () => {
    const owner = await account();
    const member = await account("free");
    const stranger = await account();
    await joinTeam(server, owner, member);
    const f = await folder(owner, "Team");
    expect((await member.client.get(`/api/folders?owner=${owner.id}`)).body.folders.map((x: { name: string }) => x.name)).toEqual(["Team"]);
    const made = await member.client.post(`/api/folders?owner=${owner.id}`, { name: "From member" });
    expect(made.status).toBe(201);
    expect((await owner.client.get("/api/folders")).body.folders.map((x: { name: string }) => x.name)).toEqual(["From member", "Team"]);
    // The member's own account (Free) has none, and cannot make one.
    expect((await member.client.get("/api/folders")).body.folders).toEqual([]);
    expect((await member.client.post("/api/folders", { name: "Own" })).body.code).toBe("plan_required");
    const l = await link(owner);
    const filed = await member.client.patch(`/api/links/${l}`, { folder_id: f });
    expect([filed.status, filed.body.link?.folder_id]).toEqual([200, f]);
    expect((await member.client.get(`/api/links?owner=${owner.id}&folder_id=${f}`)).body.total).toBe(1);
    expect((await member.client.patch(`/api/folders/${f}`, { name: "Mine" })).status).toBe(403);
    expect((await member.client.delete(`/api/folders/${f}`)).status).toBe(403);
    expect((await stranger.client.get(`/api/folders?owner=${owner.id}`)).status).toBe(404);
    expect((await stranger.client.post(`/api/folders?owner=${owner.id}`, { name: "X" })).status).toBe(404);
    for (const r of [await stranger.client.patch(`/api/folders/${f}`, { name: "X" }), await stranger.client.delete(`/api/folders/${f}`)]) {
      expect(r.body).toEqual({ status: "error", code: "not_found", message: "No such folder" });
    }
  });

  it(`at most ${MAX_FOLDERS_PER_OWNER} folders per account, exact under concurrent creation; one name wins a race`, async () => {
    const a = await account();
    const now = Date.now();
    const rows = Array.from({ length: MAX_FOLDERS_PER_OWNER - 3 }, (_, i) => ({
      id: `f-${engine}-${n}-${i}`,
      owner_id: a.id,
      name: `Pre ${i}`,
      name_key: `pre ${i}`,
      created_at: now,
      updated_at: now,
    }));
    await db().insertInto("folders").values(rows).execute();
    const raced = await Promise.all(Array.from({ length: 12 }, (_, i) => a.client.post("/api/folders", { name: `Race ${i}` })));
    expect(raced.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = raced.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.body.code])).toEqual(Array.from({ length: 9 }, () => [403, "limit_reached"]));
    expect((await a.client.get("/api/folders")).body.folders).toHaveLength(MAX_FOLDERS_PER_OWNER);

    const b = await account();
    const same = await Promise.all(Array.from({ length: 8 }, () => b.client.post("/api/folders", { name: "Same" })));
    expect(same.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });

  it.each([1, 2, 3, 4])("a folder deleted while links are moved into it: no 5xx, and no link left in it (round %i)", async () => {
    const a = await account();
    const f = await folder(a, "Going");
    const earlier = await link(a, { folder_id: f });
    const ids = [earlier, ...(await Promise.all(Array.from({ length: 6 }, () => link(a))))];
    const moves = ids.map((id) => a.client.patch(`/api/links/${id}`, { folder_id: f }));
    const bulk = a.client.patch("/api/links/bulk", { ids, folder_id: f });
    const creates = Array.from({ length: 3 }, () => a.client.post("/api/links", { url: "https://example.com/race", folder_id: f }));
    const del = a.client.delete(`/api/folders/${f}`);
    const all = await Promise.all([...moves, bulk, ...creates, del]);
    for (const r of all) expect([200, 201, 400], r.text).toContain(r.status);
    for (const r of all.filter((x) => x.status === 400)) expect(r.body.details).toEqual([{ field: "folder_id", message: "No such folder" }]);
    expect(await db().selectFrom("links").select("id").where("folder_id", "=", f).execute()).toEqual([]);
    expect(await db().selectFrom("folders").select("id").where("id", "=", f).execute()).toEqual([]);
  });

  it("the export takes folder_id (a folder's links, or none)", async () => {
    const a = await account();
    const f = await folder(a, "Exported");
    await link(a, { folder_id: f, alias: `exp-in-${engine}` });
    await link(a, { alias: `exp-out-${engine}` });
    const rowsOf = async (q: string) => {
      const r = await a.client.get(`/api/links/export?format=json&${q}`);
      expect(r.status).toBe(200);
      return (r.body.links as { alias: string }[]).map((l) => l.alias);
    };
    expect(await rowsOf(`folder_id=${f}`)).toEqual([`exp-in-${engine}`]);
    expect(await rowsOf("folder_id=none")).toEqual([`exp-out-${engine}`]);
    expect((await rowsOf("")).sort()).toEqual([`exp-in-${engine}`, `exp-out-${engine}`]);
    const b = await account();
    expect(await (async () => (await b.client.get(`/api/links/export?format=json&folder_id=${f}`)).body.links)()).toEqual([]);
  });

  async function keyOf(a: TestAccount, body: Record<string, unknown>) {
    const r = await a.client.post("/api/keys", { name: "folders", scopes: ["links:read", "links:write", "stats:read", "export"], ...body });
    return r;
  }
  async function withKey(secret: string, method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { authorization: `Bearer ${secret}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  }

  it("a key limited to folders sees, creates, changes and exports only the links in them", async () => {
    const a = await account();
    const f1 = await folder(a, "Client one");
    const f2 = await folder(a, "Client two");
    const in1 = await link(a, { folder_id: f1 });
    const in2 = await link(a, { folder_id: f2 });
    const loose = await link(a);
    const made = await keyOf(a, { folder_ids: [f1] });
    expect(made.status, made.text).toBe(201);
    expect(made.body.key.folder_ids).toEqual([f1]);
    expect((await a.client.get("/api/keys")).body.keys[0].folder_ids).toEqual([f1]);
    const key = made.body.secret as string;

    const page = await withKey(key, "GET", "/api/external/links");
    expect([page.status, page.body.total, page.body.links.map((l: { id: string }) => l.id)]).toEqual([200, 1, [in1]]);
    expect((await withKey(key, "GET", `/api/external/links?folder_id=${f2}`)).body.total).toBe(0);
    expect((await withKey(key, "GET", "/api/external/links?folder_id=none")).body.total).toBe(0);
    expect((await withKey(key, "GET", `/api/external/links/${in1}`)).status).toBe(200);
    for (const id of [in2, loose]) {
      expect((await withKey(key, "GET", `/api/external/links/${id}`)).body).toEqual({ status: "error", code: "not_found", message: "No such link" });
      expect((await withKey(key, "GET", `/api/external/links/${id}/stats`)).status).toBe(404);
      expect((await withKey(key, "PATCH", `/api/external/links/${id}`, { title: "x" })).status).toBe(404);
      expect((await withKey(key, "DELETE", `/api/external/links/${id}`)).status).toBe(404);
    }
    expect((await withKey(key, "GET", `/api/external/links/${in1}/stats`)).status).toBe(200);
    // It cannot take a link out of its folders.
    for (const folder_id of [f2, null, "nope"]) {
      const r = await withKey(key, "PATCH", `/api/external/links/${in1}`, { folder_id });
      expect([r.status, r.body.details]).toEqual([
        400,
        [{ field: "folder_id", message: "This API key works only in its folders: give folder_id, one of the key's folders" }],
      ]);
    }
    expect(await folderOf(in1)).toBe(f1);
    expect((await withKey(key, "PATCH", `/api/external/links/${in1}`, { title: "Kept" })).body.link).toMatchObject({ title: "Kept", folder_id: f1 });
    // Export: its folders' links only.
    const exported = await fetch(`${server.url}/api/external-export?format=json`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await exported.json()) as { links: { id: string }[] }).links.map((l) => l.id)).toEqual([in1]);
    expect(await folderOf(in2)).toBe(f2);
    expect((await withKey(key, "DELETE", `/api/external/links/${in1}`)).status).toBe(200);

    // Creation: into its only folder by default; another folder refused.
    const creator = (await a.client.post("/api/keys", { name: "create", scopes: ["links:create"], folder_ids: [f2] })).body.secret as string;
    const created = await withKey(creator, "POST", "/api/external-create.php", { url: "https://example.com/by-key" });
    expect([created.status, created.body.link?.folder_id]).toEqual([201, f2]);
    const elsewhere = await withKey(creator, "POST", "/api/external-create.php", { url: "https://example.com/by-key", folder_id: f1 });
    expect([elsewhere.status, elsewhere.body.code]).toEqual([400, "invalid_request"]);
    const two = (await a.client.post("/api/keys", { name: "two", scopes: ["links:create"], folder_ids: [f1, f2] })).body.secret as string;
    expect((await withKey(two, "POST", "/api/external-create.php", { url: "https://example.com/two" })).status).toBe(400);
    expect((await withKey(two, "POST", "/api/external-create.php", { url: "https://example.com/two", folder_id: f1 })).body.link.folder_id).toBe(f1);

    // A key without folders still sees everything; a deleted folder narrows a key, never widens it.
    const all = (await keyOf(a, {})).body.secret as string;
    expect((await withKey(all, "GET", "/api/external/links")).body.total).toBe(4);
    await a.client.delete(`/api/folders/${f2}`);
    expect((await withKey(creator, "POST", "/api/external-create.php", { url: "https://example.com/after" })).status).toBe(400);
  });

  it("a key's folders are the account's, each once; Business and up", async () => {
    const a = await account();
    const b = await account();
    const mine = await folder(a, "Mine");
    const theirs = await folder(b, "Theirs");
    const cases: [unknown, number, string][] = [
      [[theirs], 400, "folder_ids: No such folder"],
      [["nope"], 400, "folder_ids: No such folder"],
      [[mine, theirs], 400, "folder_ids: No such folder"],
      [[mine, mine], 400, "folder_ids: a folder is listed twice"],
      [[], 400, "folder_ids: choose at least one folder, or leave folder_ids out for every link"],
    ];
    for (const [folder_ids, status, message] of cases) {
      const r = await keyOf(a, { folder_ids });
      expect([r.status, r.body.message], JSON.stringify(folder_ids)).toEqual([status, message]);
    }
    for (const bad of ["x", [1], Array.from({ length: 51 }, (_, i) => `f${i}`)]) expect((await keyOf(a, { folder_ids: bad })).status).toBe(400);
    expect((await a.client.get("/api/keys")).body.keys).toEqual([]);
    expect((await keyOf(a, { folder_ids: null })).body.key.folder_ids).toBeNull();
    const pro = await account("pro");
    await db().updateTable("users").set({ plan: "business" }).where("id", "=", pro.id).execute();
    const pf = await folder(pro, "P");
    await db().updateTable("users").set({ plan: "pro" }).where("id", "=", pro.id).execute();
    const gated = await keyOf(pro, { folder_ids: [pf] });
    expect([gated.status, gated.body.code]).toEqual([403, "plan_required"]);
  });
});
