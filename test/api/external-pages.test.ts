// Shared statistics and bio pages through an API key (docs/external-api.md, Shares and bio pages) on both engines:
// each route answers what its dashboard twin answers, refuses a key without its scope (403 insufficient_scope, nothing
// written), answers another account's ids as unknown, follows the plan (every key route Business and up), and a key
// limited to folders shares only those folders and links in them and sees only the bio pages whose buttons open
// links in them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { KeyClient } from "../helpers/client.js";
import { type TestAccount, testAccount } from "../helpers/team.js";
import { rowCounts } from "../helpers/routes.js";
import type { ApiKeyScope } from "../../src/contract/api-keys.js";

const SCOPES: readonly ApiKeyScope[] = ["shares:read", "shares:write", "bio_pages:read", "bio_pages:write"];

describe.each(ENGINES)("shares and bio pages through an API key on %s", (engine) => {
  let server: TestServer;
  let n = 0;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  const account = (plan = "business") => testAccount(server, `ext-pages-${engine}-${++n}@example.com`, plan);
  async function keyOf(a: TestAccount, scopes: readonly ApiKeyScope[], extra: Record<string, unknown> = {}): Promise<KeyClient> {
    const r = await a.client.post("/api/keys", { name: `k${++n}`, scopes, ...extra });
    if (r.status !== 201) throw new Error(`key: ${r.status} ${r.text}`);
    return new KeyClient(server.url, r.body.secret as string);
  }
  async function link(a: TestAccount, extra: Record<string, unknown> = {}): Promise<string> {
    const r = await a.client.post("/api/links", { url: `https://example.com/x${++n}`, ...extra });
    if (r.status !== 201) throw new Error(`link: ${r.status} ${r.text}`);
    return r.body.link.id as string;
  }
  async function folder(a: TestAccount, name: string): Promise<string> {
    return (await a.client.post("/api/folders", { name })).body.folder.id as string;
  }
  const bio = (extra: Record<string, unknown> = {}) => ({ slug: `ext-bio-${engine.slice(0, 2)}-${++n}`, title: "Ada", blocks: [], ...extra });

  it("shares a link, a tag and a folder, lists and revokes them, answering as the dashboard's routes", async () => {
    const a = await account();
    const key = await keyOf(a, ["shares:read", "shares:write"]);
    const linkId = await link(a);
    const tag = (await a.client.post("/api/tags", { name: "Spring" })).body.tag.id as string;
    const folderId = await folder(a, "Clients");

    const made = await key.post("/api/external/shares", { link_id: linkId, password: "open sesame", panels: ["countries", "clicks"] });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toEqual({
      status: "success",
      id: made.body.share.id,
      url: made.body.share.url,
      share: {
        id: expect.any(String),
        url: expect.stringMatching(new RegExp(`^${server.ctx.config.origin}/share/[A-Za-z0-9_-]{32}$`)),
        link_id: linkId,
        tag: null,
        folder_id: null,
        name: expect.stringContaining(server.ctx.config.origin),
        panels: ["clicks", "countries"],
        has_password: true,
        expires_at: null,
        created_at: expect.any(String),
      },
    });
    expect((await key.post("/api/external/shares", { tag })).status).toBe(201);
    expect((await key.post("/api/external/shares", { folder_id: folderId })).status).toBe(201);

    const listed = await key.get("/api/external/shares");
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual((await a.client.get("/api/shares")).body);
    expect(listed.body.shares.map((s: { name: string }) => s.name).slice(0, 2)).toEqual(["Clients", "Spring"]);
    expect((await key.get(`/api/external/shares?link_id=${linkId}`)).body.shares.map((s: { id: string }) => s.id)).toEqual([made.body.id]);

    const pagePath = new URL(made.body.url as string).pathname;
    expect((await fetch(server.url + pagePath)).status).toBe(200);
    expect((await key.delete(`/api/external/shares/${made.body.id}`)).body).toEqual({ status: "success" });
    expect((await fetch(server.url + pagePath)).status).toBe(404);
    const again = await key.delete(`/api/external/shares/${made.body.id}`);
    expect([again.status, again.body.code]).toEqual([404, "not_found"]);
  });

  it("creates, reads, edits and deletes a bio page, answering as the dashboard's routes; a slug that is an alias: 409 alias_taken", async () => {
    const a = await account();
    const key = await keyOf(a, ["bio_pages:read", "bio_pages:write"]);
    const linkId = await link(a, { alias: `ext-alias-${engine.slice(0, 2)}-${++n}` });
    const body = bio({ description: "Maker", blocks: [{ type: "link", link_id: linkId, label: "Shop" }] });
    const made = await key.post("/api/external/bio-pages", body);
    expect(made.status, made.text).toBe(201);
    const id = made.body.page.id as string;
    expect(made.body).toEqual((await a.client.get(`/api/bio-pages/${id}`)).body);
    expect(made.body.page).toMatchObject({ slug: body.slug, title: "Ada", description: "Maker", theme: "auto", views: 0, clicks: 0 });
    expect(made.body.page.blocks).toEqual([{ type: "link", link_id: linkId, label: "Shop", short_url: expect.any(String), clicks: 0 }]);
    expect((await fetch(`${server.url}/${body.slug}`)).status).toBe(200);

    expect((await key.get(`/api/external/bio-pages/${id}`)).body).toEqual((await a.client.get(`/api/bio-pages/${id}`)).body);
    expect((await key.get("/api/external/bio-pages")).body).toEqual((await a.client.get("/api/bio-pages")).body);

    const edited = await key.patch(`/api/external/bio-pages/${id}`, { title: "Ada L", theme: "dark" });
    expect(edited.status, edited.text).toBe(200);
    expect([edited.body.page.title, edited.body.page.theme]).toEqual(["Ada L", "dark"]);

    const alias = (await a.client.get(`/api/links/${linkId}`)).body.link.alias as string;
    for (const r of [await key.post("/api/external/bio-pages", bio({ slug: alias })), await key.patch(`/api/external/bio-pages/${id}`, { slug: alias })]) {
      expect([r.status, r.body.code, r.body.details]).toEqual([
        409,
        "alias_taken",
        [{ field: "slug", message: "is already an alias or a bio page on this host" }],
      ]);
    }
    const bad = await key.post("/api/external/bio-pages", bio({ title: "", blocks: [{ type: "link", link_id: "nope", label: "x" }] }));
    expect([bad.status, bad.body.code, bad.body.details.map((d: { field: string }) => d.field)]).toEqual([
      400,
      "invalid_request",
      ["title", "blocks[0].link_id"],
    ]);

    expect((await key.delete(`/api/external/bio-pages/${id}`)).body).toEqual({ status: "success" });
    expect((await fetch(`${server.url}/${body.slug}`)).status).toBe(404);
    expect((await key.get(`/api/external/bio-pages/${id}`)).status).toBe(404);
  });

  it("refuses a key without the route's scope: 403 insufficient_scope naming it, nothing written", async () => {
    const a = await account();
    const linkId = await link(a);
    const shareId = (await a.client.post("/api/shares", { link_id: linkId })).body.id as string;
    const pageId = (await a.client.post("/api/bio-pages", bio())).body.page.id as string;
    // For each scope a key with every other scope.
    const others = new Map<ApiKeyScope, KeyClient>();
    for (const s of SCOPES) others.set(s, await keyOf(a, ["links:create", "links:read", "links:write", "stats:read", ...SCOPES.filter((x) => x !== s)]));
    const calls: Array<[ApiKeyScope, string, string, unknown?]> = [
      ["shares:read", "GET", "/api/external/shares"],
      ["shares:write", "POST", "/api/external/shares", { link_id: linkId }],
      ["shares:write", "DELETE", `/api/external/shares/${shareId}`],
      ["bio_pages:read", "GET", "/api/external/bio-pages"],
      ["bio_pages:read", "GET", `/api/external/bio-pages/${pageId}`],
      ["bio_pages:write", "POST", "/api/external/bio-pages", bio()],
      ["bio_pages:write", "PATCH", `/api/external/bio-pages/${pageId}`, { title: "Changed" }],
      ["bio_pages:write", "DELETE", `/api/external/bio-pages/${pageId}`],
    ];
    const before = await rowCounts(server);
    for (const [scope, method, path, body] of calls) {
      const r = await others.get(scope)!.request(method, path, body);
      expect([r.status, r.body], `${method} ${path}`).toEqual([
        403,
        {
          status: "error",
          code: "insufficient_scope",
          message: `This API key lacks the scope ${scope}; create a key with it on the Security page`,
          required_scopes: [scope],
        },
      ]);
    }
    expect(await rowCounts(server)).toEqual(before);
    expect((await a.client.get(`/api/bio-pages/${pageId}`)).body.page.title).toBe("Ada");
  });

  it("answers another account's share, page and link as unknown: 404 not_found by id, 400 as a target or a button", async () => {
    const owner = await account();
    const otherKey = await keyOf(await account(), SCOPES);
    const linkId = await link(owner);
    const folderId = await folder(owner, "Theirs");
    const tag = (await owner.client.post("/api/tags", { name: "Theirs" })).body.tag.id as string;
    const shareId = (await owner.client.post("/api/shares", { link_id: linkId })).body.id as string;
    const pageId = (await owner.client.post("/api/bio-pages", bio())).body.page.id as string;
    const before = await rowCounts(server);
    for (const [method, path, body] of [
      ["DELETE", `/api/external/shares/${shareId}`],
      ["GET", `/api/external/bio-pages/${pageId}`],
      ["PATCH", `/api/external/bio-pages/${pageId}`, { title: "Mine now" }],
      ["DELETE", `/api/external/bio-pages/${pageId}`],
    ] as const) {
      const r = await otherKey.request(method, path, body);
      expect(`${method} ${path} -> ${r.status} ${r.body.code}`).toBe(`${method} ${path} -> 404 not_found`);
    }
    for (const [field, target] of [
      ["link_id", { link_id: linkId }],
      ["tag", { tag }],
      ["folder_id", { folder_id: folderId }],
    ] as const) {
      const r = await otherKey.post("/api/external/shares", target);
      expect([r.status, r.body.code, r.body.details?.[0]?.field]).toEqual([400, "invalid_request", field]);
    }
    const button = await otherKey.post("/api/external/bio-pages", bio({ blocks: [{ type: "link", link_id: linkId, label: "Theirs" }] }));
    expect([button.status, button.body.details]).toEqual([400, [{ field: "blocks[0].link_id", message: "is not a link of this account" }]]);
    expect((await otherKey.get("/api/external/shares")).body.shares).toEqual([]);
    expect((await otherKey.get("/api/external/bio-pages")).body.pages).toEqual([]);
    expect(await rowCounts(server)).toEqual(before);
  });

  it("follows the plan: a Pro or Free account's key with every scope gets 403 plan_required (Business), a suspended one 403 account_inactive", async () => {
    for (const plan of ["pro", "free"]) {
      const a = await account(plan);
      const key = await keyOf(a, SCOPES);
      for (const [method, path, body] of [
        ["GET", "/api/external/shares"],
        ["POST", "/api/external/shares", { link_id: "x" }],
        ["DELETE", "/api/external/shares/x"],
        ["GET", "/api/external/bio-pages"],
        ["GET", "/api/external/bio-pages/x"],
        ["POST", "/api/external/bio-pages", bio()],
        ["PATCH", "/api/external/bio-pages/x", { title: "t" }],
        ["DELETE", "/api/external/bio-pages/x"],
      ] as const) {
        const r = await key.request(method, path, body);
        expect([r.status, r.body.code, r.body.required_plan], `${plan} ${method} ${path}`).toEqual([403, "plan_required", "business"]);
      }
    }
    const suspended = await account();
    const key = await keyOf(suspended, SCOPES);
    await server.ctx.accounts.setStatus(suspended.email, "suspended");
    const r = await key.post("/api/external/bio-pages", bio());
    expect([r.status, r.body.code]).toEqual([403, "account_inactive"]);
    expect(await server.ctx.storage.db.selectFrom("bio_pages").select("id").where("owner_id", "=", suspended.id).execute()).toEqual([]);
  });

  it("limits a key with folders to them: shares of its folders and their links only, bio pages whose buttons open links in them", async () => {
    const a = await account();
    const mine = await folder(a, "Mine");
    const elsewhere = await folder(a, "Elsewhere");
    const inside = await link(a, { folder_id: mine });
    const outside = await link(a, { folder_id: elsewhere });
    const loose = await link(a);
    const tag = (await a.client.post("/api/tags", { name: "Everywhere" })).body.tag.id as string;
    const key = await keyOf(a, SCOPES, { folder_ids: [mine] });

    const ok = [await key.post("/api/external/shares", { link_id: inside }), await key.post("/api/external/shares", { folder_id: mine })];
    expect(ok.map((r) => r.status)).toEqual([201, 201]);
    const before = await rowCounts(server);
    for (const [target, field, message] of [
      [{ link_id: outside }, "link_id", "No such link"],
      [{ link_id: loose }, "link_id", "No such link"],
      [{ folder_id: elsewhere }, "folder_id", "No such folder"],
      [{ tag }, "tag", "This API key works only in its folders: share a link or a folder of the key, not a tag"],
    ] as const) {
      const r = await key.post("/api/external/shares", target);
      expect([r.status, r.body.code, r.body.details]).toEqual([400, "invalid_request", [{ field, message }]]);
    }
    expect(await rowCounts(server)).toEqual(before);
    // The session's shares of what the key does not reach: not listed, not revoked.
    const hidden = await Promise.all([
      a.client.post("/api/shares", { link_id: outside }),
      a.client.post("/api/shares", { folder_id: elsewhere }),
      a.client.post("/api/shares", { tag }),
    ]);
    expect((await key.get("/api/external/shares")).body.shares.map((s: { id: string }) => s.id).sort()).toEqual(ok.map((r) => r.body.id).sort());
    for (const h of hidden) expect((await key.delete(`/api/external/shares/${h.body.id}`)).status).toBe(404);
    expect((await a.client.get("/api/shares")).body.shares).toHaveLength(5);

    const button = (linkId: string) => ({ type: "link", link_id: linkId, label: "Go" });
    const seen = await key.post("/api/external/bio-pages", bio({ blocks: [button(inside)] }));
    expect(seen.status, seen.text).toBe(201);
    const plain = await key.post("/api/external/bio-pages", bio({ blocks: [{ type: "heading", text: "Hi" }] }));
    expect(plain.status).toBe(201);
    const refused = await key.post("/api/external/bio-pages", bio({ blocks: [button(inside), button(outside)] }));
    expect([refused.status, refused.body.details]).toEqual([400, [{ field: "blocks[1].link_id", message: "is not a link in this API key's folders" }]]);
    const edit = await key.patch(`/api/external/bio-pages/${seen.body.page.id}`, { blocks: [button(loose)] });
    expect([edit.status, edit.body.details]).toEqual([400, [{ field: "blocks[0].link_id", message: "is not a link in this API key's folders" }]]);
    const other = (await a.client.post("/api/bio-pages", bio({ blocks: [button(inside), button(outside)] }))).body.page.id as string;
    expect((await key.get("/api/external/bio-pages")).body.pages.map((p: { id: string }) => p.id)).toEqual([plain.body.page.id, seen.body.page.id]);
    for (const [method, body] of [["GET"], ["PATCH", { title: "Taken over" }], ["DELETE"]] as const) {
      const r = await key.request(method, `/api/external/bio-pages/${other}`, body);
      expect([r.status, r.body.code], method).toEqual([404, "not_found"]);
    }
    expect((await a.client.get(`/api/bio-pages/${other}`)).body.page.title).toBe("Ada");
  });
});
