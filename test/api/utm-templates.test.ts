// UTM templates (docs/api.md, UTM templates): an owner's saved utm_* values, names unique per owner ignoring
// case; members use the owner's templates; the cap holds under concurrency; bad input is a field error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { linkIn, readOutbox, tokenOf } from "../helpers/mail.js";
import { MAX_UTM_TEMPLATES_PER_OWNER } from "../../src/utm/templates.js";

const EMPTY = { utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null };

describe.each(ENGINES)("UTM templates on %s", (engine) => {
  let server: TestServer;
  let n = 0;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  async function account(plan = "free") {
    const email = `utm-${engine}-${++n}@example.com`;
    const client = await signedInClient(server, email, plan);
    return { client, email, id: (await client.get("/api/profile")).body.user.id as string };
  }

  it("save, list in name order, delete", async () => {
    const { client: c } = await account();
    const empty = await c.get("/api/utm-templates");
    expect(empty.body).toEqual({ status: "success", templates: [] });
    expect(empty.headers.get("cache-control")).toBe("no-store");

    const before = Date.now();
    const a = await c.post("/api/utm-templates", {
      name: "  Spring   newsletter ",
      utm_source: " newsletter ",
      utm_medium: "email",
      utm_campaign: "spring-2026",
      utm_term: "",
      utm_content: null,
    });
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      status: "success",
      template: {
        id: expect.any(String),
        name: "Spring newsletter",
        ...EMPTY,
        utm_source: "newsletter",
        utm_medium: "email",
        utm_campaign: "spring-2026",
        created_at: expect.any(String),
      },
    });
    expect(Date.parse(a.body.template.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const b = await c.post("/api/utm-templates", { name: "Ádvert on X", utm_source: "x", utm_content: "bänner ✓" });
    expect(b.status).toBe(201);
    const c3 = await c.post("/api/utm-templates", { name: "partner 10", utm_term: "shoes" });
    const c2 = await c.post("/api/utm-templates", { name: "partner 9", utm_term: "socks" });

    const list = await c.get("/api/utm-templates");
    // Alphabetical for a reader (Á with A, 9 before 10), whatever the database's collation.
    expect(list.body.templates.map((t: { name: string }) => t.name)).toEqual(["Ádvert on X", "partner 9", "partner 10", "Spring newsletter"]);
    expect(list.body.templates[0]).toEqual({ ...b.body.template, ...EMPTY, utm_source: "x", utm_content: "bänner ✓" });
    expect(list.body.templates[3]).toEqual(a.body.template);

    expect((await c.delete(`/api/utm-templates/${c3.body.template.id}`)).body).toEqual({ status: "success" });
    expect((await c.get("/api/utm-templates")).body.templates.map((t: { id: string }) => t.id)).toEqual([
      b.body.template.id,
      c2.body.template.id,
      a.body.template.id,
    ]);
    expect((await c.delete(`/api/utm-templates/${c3.body.template.id}`)).status).toBe(404);
    // The deleted name is free again.
    expect((await c.post("/api/utm-templates", { name: "Partner 10", utm_term: "hats" })).status).toBe(201);
  });

  it("names are unique per owner ignoring case (409 conflict); another owner may use the same name", async () => {
    const { client: c } = await account();
    const { client: other } = await account();
    expect((await c.post("/api/utm-templates", { name: "Launch", utm_source: "a" })).status).toBe(201);
    const dup = await c.post("/api/utm-templates", { name: "  LAUNCH ", utm_source: "b" });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      status: "error",
      code: "conflict",
      message: 'You already have a UTM template named "LAUNCH"',
      details: [{ field: "name", message: "This name is taken by another of your templates" }],
    });
    expect((await other.post("/api/utm-templates", { name: "launch", utm_source: "c" })).status).toBe(201);
    expect((await c.get("/api/utm-templates")).body.templates.map((t: { utm_source: string }) => t.utm_source)).toEqual(["a"]);
  });

  it("bad input: 400 invalid_request naming the field; unknown fields refused; nothing stored", async () => {
    const { client: c } = await account();
    const cases: [unknown, string][] = [
      [{ name: "", utm_source: "a" }, "name"],
      [{ name: "   ", utm_source: "a" }, "name"],
      [{ name: "x".repeat(41), utm_source: "a" }, "name"],
      [{ name: "bell\u0007here", utm_source: "a" }, "name"],
      [{ name: "ok", utm_source: "x".repeat(201) }, "utm_source"],
      [{ name: "ok", utm_medium: "é".repeat(201) }, "utm_medium"],
      [{ name: "ok", utm_campaign: "tab\there" }, "utm_campaign"],
      [{ name: "ok", utm_term: "line\nbreak" }, "utm_term"],
      [{ name: "ok", utm_content: "x".repeat(2001) }, "utm_content"],
      [{ name: "ok" }, "utm_source"],
      [{ name: "ok", utm_source: "   ", utm_medium: "" }, "utm_source"],
      [{ name: "ok", utm_source: "a", utm_id: "b" }, "utm_id"],
      [{ name: "ok", utm_source: 42 }, "utm_source"],
      [{ name: ["ok"], utm_source: "a" }, "name"],
      [{ utm_source: "a" }, "name"],
      [[], ""],
      ["just text", ""],
    ];
    for (const [body, field] of cases) {
      const r = await c.post("/api/utm-templates", body, typeof body === "string" ? { "content-type": "application/json" } : undefined);
      expect([JSON.stringify(body), r.status, r.body.code]).toEqual([JSON.stringify(body), 400, "invalid_request"]);
      if (field) expect(r.body.details.map((d: { field: string }) => d.field).join(",")).toContain(field);
    }
    // Every wrong field at once.
    const many = await c.post("/api/utm-templates", { name: "", utm_source: "x".repeat(201), utm_term: "a\tb" });
    expect(many.body.details).toEqual([
      { field: "name", message: "Enter a name for the template" },
      { field: "utm_source", message: "Use at most 200 characters" },
      { field: "utm_term", message: "Remove the control characters" },
    ]);
    expect((await c.get("/api/utm-templates")).body.templates).toEqual([]);
    // The longest name and values are taken.
    const longest = await c.post("/api/utm-templates", { name: "é".repeat(40), utm_source: "😀".repeat(200) });
    expect(longest.status).toBe(201);
    expect(longest.body.template.utm_source).toBe("😀".repeat(200));
    expect((await c.request("POST", "/api/utm-templates", "{", { "content-type": "application/json" })).status).toBe(400);
    expect((await c.delete(`/api/utm-templates/${"x".repeat(65)}`)).status).toBe(400);
    expect((await c.delete("/api/utm-templates/nope")).status).toBe(404);
    expect((await c.get("/api/utm-templates?owner=nobody&extra=1")).status).toBe(400);
  });

  it("members list and save the owner's templates but do not delete them; others get not_found", async () => {
    const owner = await account("business");
    const member = await account();
    const stranger = await account();
    const r = await owner.client.post("/api/team/invitations", { email: member.email });
    expect(r.status).toBe(201);
    const raw = readOutbox(server.outboxDir).find((m) => m.includes(`To: ${member.email}`));
    expect((await member.client.post("/api/invitations/accept", { token: tokenOf(linkIn(raw!, "/app/invitations/accept?token=")) })).status).toBe(200);

    const own = (await owner.client.post("/api/utm-templates", { name: "Team", utm_source: "team" })).body.template;
    expect((await member.client.get(`/api/utm-templates?owner=${owner.id}`)).body.templates).toEqual([own]);
    const made = await member.client.post(`/api/utm-templates?owner=${owner.id}`, { name: "From member", utm_medium: "social" });
    expect(made.status).toBe(201);
    expect((await owner.client.get("/api/utm-templates")).body.templates.map((t: { name: string }) => t.name)).toEqual(["From member", "Team"]);
    // The member's own templates stay apart.
    expect((await member.client.get("/api/utm-templates")).body.templates).toEqual([]);
    const del = await member.client.delete(`/api/utm-templates/${own.id}`);
    expect([del.status, del.body.code]).toEqual([403, "forbidden"]);

    for (const [path, method] of [
      [`/api/utm-templates?owner=${owner.id}`, "GET"],
      [`/api/utm-templates?owner=${owner.id}`, "POST"],
      [`/api/utm-templates/${own.id}`, "DELETE"],
    ] as const) {
      const res = await stranger.client.request(method, path, method === "POST" ? { name: "x", utm_source: "x" } : undefined);
      expect([method, res.status, res.body.code]).toEqual([method, 404, "not_found"]);
    }
    // Sharing paused (the owner's plan no longer has teams): the member's access goes with it.
    await server.ctx.storage.db.updateTable("users").set({ plan: "free" }).where("id", "=", owner.id).execute();
    expect((await member.client.get(`/api/utm-templates?owner=${owner.id}`)).status).toBe(404);
    expect((await member.client.post(`/api/utm-templates?owner=${owner.id}`, { name: "Late", utm_source: "x" })).status).toBe(404);
    expect((await owner.client.get("/api/utm-templates")).body.templates).toHaveLength(2);
    expect((await owner.client.delete(`/api/utm-templates/${made.body.template.id}`)).status).toBe(200);
  });

  it(`at most ${MAX_UTM_TEMPLATES_PER_OWNER} templates per account, exact under concurrent saves`, async () => {
    const { client: c, id } = await account();
    const now = Date.now();
    const rows = Array.from({ length: MAX_UTM_TEMPLATES_PER_OWNER - 10 }, (_, i) => ({
      id: `u-${engine}-${i}`,
      owner_id: id,
      name: `pre ${i}`,
      name_key: `pre ${i}`,
      ...EMPTY,
      utm_source: "s",
      created_at: now,
    }));
    await server.ctx.storage.db.insertInto("utm_templates").values(rows).execute();
    // 30 saves race for the last 10 places; two of them share a name, so at most one of that pair is stored.
    const names = Array.from({ length: 30 }, (_, i) => (i === 29 ? "race 0" : `race ${i}`));
    const answers = await Promise.all(names.map((name) => c.post("/api/utm-templates", { name, utm_source: "s" })));
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(10);
    const refused = answers.filter((a) => a.status !== 201).map((a) => `${a.status} ${a.body.code}`);
    expect(refused.every((r) => r === "403 limit_reached" || r === "409 conflict")).toBe(true);
    expect(refused).toHaveLength(20);
    expect(new Set(created.map((a) => a.body.template.name.toLowerCase())).size).toBe(10);
    expect((await c.get("/api/utm-templates")).body.templates).toHaveLength(MAX_UTM_TEMPLATES_PER_OWNER);
    const over = await c.post("/api/utm-templates", { name: "one more", utm_source: "s" });
    expect(over.status).toBe(403);
    expect(over.body).toEqual({
      status: "error",
      code: "limit_reached",
      message: `An account has at most ${MAX_UTM_TEMPLATES_PER_OWNER} UTM templates; delete some first`,
    });
  });

  it("signed out: 401 on reading, 403 on writes without the CSRF token", async () => {
    for (const [method, path] of [
      ["GET", "/api/utm-templates"],
      ["POST", "/api/utm-templates"],
      ["DELETE", "/api/utm-templates/x"],
    ] as const) {
      const r = await fetch(`${server.url}${path}`, { method, headers: { "content-type": "application/json" }, body: method === "GET" ? undefined : "{}" });
      expect([method, r.status]).toEqual([method, method === "GET" ? 401 : 403]);
    }
    const { client: c } = await account();
    expect((await c.post("/api/utm-templates", { name: "x", utm_source: "x" }, { "x-csrf-token": "wrong" })).status).toBe(403);
    expect((await c.get("/api/utm-templates")).body.templates).toEqual([]);
  });
});
