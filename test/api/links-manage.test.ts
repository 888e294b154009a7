// Managing links over HTTP: read, edit (null clears), delete, ownership, list search and pagination, bulk.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { ManualClock } from "../../src/shared/clock.js";

describe.each(ENGINES)("link management on %s", (engine) => {
  let server: TestServer;
  let pro: ApiClient;
  let other: ApiClient;
  let business: ApiClient;
  const go = (path: string) => fetch(server.url + path, { redirect: "manual" });
  // Moved by hand where the order of creation times matters (the list is newest first).
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    server = await startTestServer({ engine, clock });
    pro = await signedInClient(server, "pro@example.com", "pro");
    other = await signedInClient(server, "other@example.com", "pro");
    business = await signedInClient(server, "biz@example.com", "business");
  });
  afterAll(async () => server?.close());

  it("reads, edits (null clears an option) and renames a link", async () => {
    const created = await pro.post("/api/links", {
      url: "https://example.com/a",
      alias: "edit-me",
      max_clicks: 5,
      password: "pw",
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      android_url: "https://play.google.com/x",
    });
    expect(created.status).toBe(201);
    const id = created.body.link.id;
    expect((await pro.get(`/api/links/${id}`)).body.link).toMatchObject({ alias: "edit-me", has_password: true, max_clicks: 5 });

    const r = await pro.patch(`/api/links/${id}`, { max_clicks: null, password: null, expires_at: null, android_url: null, alias: "edited-now" });
    expect(r.status).toBe(200);
    expect(r.body.link).toMatchObject({
      alias: "edited-now",
      max_clicks: null,
      has_password: false,
      expires_at: null,
      android_url: null,
      url: "https://example.com/a",
    });
    expect(r.body.link.short_url).toBe(`${server.config.origin}/edited-now`);
    expect((await go("/edit-me")).status).toBe(404);
    expect((await go("/edited-now")).status).toBe(302);
  });

  it("edit checks: same rules as creation, alias_taken, unknown fields, plan gating", async () => {
    const { body } = await pro.post("/api/links", { url: "https://example.com/b" });
    const id = body.link.id;
    await pro.post("/api/links", { url: "https://example.com/c", alias: "occupied" });
    expect((await pro.patch(`/api/links/${id}`, { alias: "occupied" })).body.code).toBe("alias_taken");
    expect((await pro.patch(`/api/links/${id}`, { url: "javascript:alert(1)" })).body.details[0].field).toBe("url");
    expect((await pro.patch(`/api/links/${id}`, { alias: "no" })).status).toBe(400);
    expect((await pro.patch(`/api/links/${id}`, { click_count: 0 })).status).toBe(400);
    expect((await pro.patch(`/api/links/${id}`, { url: null })).status).toBe(400);
    const free = await signedInClient(server, "free-editor@example.com", "free");
    const mine = (await free.post("/api/links", { url: "https://example.com/free" })).body.link.id;
    const gated = await free.patch(`/api/links/${mine}`, { max_clicks: 3 });
    expect(gated.status).toBe(403);
    expect(gated.body).toMatchObject({ code: "plan_required", required_plan: "pro" });
  });

  it("other users cannot see, edit or delete a link (404), nor can signed-out visitors (401)", async () => {
    const { body } = await pro.post("/api/links", { url: "https://example.com/private", alias: "not-yours" });
    const id = body.link.id;
    expect((await other.get(`/api/links/${id}`)).status).toBe(404);
    expect((await other.patch(`/api/links/${id}`, { url: "https://evil.example/" })).status).toBe(404);
    expect((await other.delete(`/api/links/${id}`)).status).toBe(404);
    const anon = await new ApiClient(server.url).init();
    expect((await anon.get(`/api/links/${id}`)).status).toBe(401);
    expect((await anon.delete(`/api/links/${id}`)).status).toBe(401);
    expect((await go("/not-yours")).headers.get("location")).toBe("https://example.com/private");
  });

  it("delete: 200, then 404 for the API and the short address", async () => {
    const { body } = await pro.post("/api/links", { url: "https://example.com/gone", alias: "to-delete" });
    expect((await go("/to-delete")).status).toBe(302);
    expect((await pro.delete(`/api/links/${body.link.id}`)).status).toBe(200);
    expect((await go("/to-delete")).status).toBe(404);
    expect((await pro.get(`/api/links/${body.link.id}`)).status).toBe(404);
    expect((await pro.delete(`/api/links/${body.link.id}`)).status).toBe(404);
  });

  it("list: own links only, newest first, q on alias and url (wildcards literal), cursor pages", async () => {
    const c = await signedInClient(server, "lister@example.com", "pro");
    const made: string[] = [];
    for (let i = 0; i < 25; i++) {
      const r = await c.post("/api/links", { url: `https://list.example/item-${i}`, alias: `lst-${String(i).padStart(2, "0")}` });
      made.push(r.body.link.id);
      clock.advance(2);
    }
    await c.post("/api/links", { url: "https://list.example/100%_off", alias: "percent" });
    const first = await c.get("/api/links?limit=10");
    expect(first.body.links).toHaveLength(10);
    expect(first.body.links[0].alias).toBe("percent");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { links: { id: string }[]; next_cursor: string | null } } = await c.get(
        `/api/links?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      seen.push(...page.body.links.map((l) => l.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(26);
    expect(new Set(seen).size).toBe(26);
    expect(seen.slice(1)).toEqual([...made].reverse());

    expect((await c.get("/api/links?q=LST-0")).body.links).toHaveLength(10);
    expect((await c.get("/api/links?q=item-2")).body.links.map((l: { alias: string }) => l.alias).sort()).toEqual([
      "lst-02",
      "lst-20",
      "lst-21",
      "lst-22",
      "lst-23",
      "lst-24",
    ]);
    expect((await c.get("/api/links?q=100%25_")).body.links.map((l: { alias: string }) => l.alias)).toEqual(["percent"]);
    expect((await c.get("/api/links?q=%25")).body.links).toHaveLength(1);
    expect((await c.get("/api/links?q=_")).body.links).toHaveLength(1);
    expect((await pro.get("/api/links?q=lst-")).body.links).toHaveLength(0);
    expect((await c.get("/api/links?limit=0")).status).toBe(400);
    expect((await c.get("/api/links?limit=101")).status).toBe(400);
    expect((await c.get("/api/links?cursor=garbage!")).status).toBe(400);
    expect((await c.get("/api/links?sort=alias")).status).toBe(400);
    const last = await c.get("/api/links?limit=100");
    expect(last.body.next_cursor).toBeNull();
  });

  it("bulk: one result per non-empty line, in order, faulty lines reported without stopping others", async () => {
    const urls = ["https://bulk.example/1", "", "javascript:alert(1)", "  https://bulk.example/2  ", "not a url", "\r", "https://bulk.example/3"].join("\n");
    const r = await business.post("/api/links/bulk", { urls });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { line: number; status: string }) => [x.line, x.status])).toEqual([
      [1, "created"],
      [3, "error"],
      [4, "created"],
      [5, "error"],
      [7, "created"],
    ]);
    expect(r.body.results[1]).toMatchObject({ url: "javascript:alert(1)", code: "invalid_request", message: expect.any(String) });
    expect(r.body.results[2].link.url).toBe("https://bulk.example/2");
    expect((await go(`/${r.body.results[0].link.alias}`)).headers.get("location")).toBe("https://bulk.example/1");
  });

  it("bulk: Business and above only, batch size limit, unknown fields", async () => {
    const gated = await pro.post("/api/links/bulk", { urls: "https://example.com/" });
    expect(gated.status).toBe(403);
    expect(gated.body).toMatchObject({ code: "plan_required", required_plan: "business" });
    const tooMany = Array.from({ length: 501 }, (_, i) => `https://bulk.example/many/${i}`).join("\n");
    const over = await business.post("/api/links/bulk", { urls: tooMany });
    expect(over.status).toBe(400);
    expect(over.body.message).toContain("500");
    expect((await business.post("/api/links/bulk", { urls: "\n \n" })).status).toBe(400);
    expect((await business.post("/api/links/bulk", { urls: "https://example.com/", alias: "x" })).status).toBe(400);
    expect((await business.post("/api/links/bulk", { urls: ["https://example.com/"] })).status).toBe(400);
  });
});
