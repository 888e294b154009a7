// Forms report every wrong field at once: link create and edit, sign-up, webhook creation, schema errors
// (unknown fields, wrong types) and bulk rows with aliases; messages in the user's words.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";

describe.each(ENGINES)("field errors on %s", (engine) => {
  let server: TestServer;
  let pro: ApiClient;
  let biz: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ engine });
    pro = await signedInClient(server, "pro@example.com", "pro");
    biz = await signedInClient(server, "biz@example.com", "business");
    server.ctx.blocklist.setConsoleHosts(["blocked.example"]);
  });
  afterAll(async () => server?.close());

  const past = new Date(Date.now() - 86_400_000).toISOString();

  it("link creation lists every wrong field, in the form's order, and creates nothing", async () => {
    const r = await pro.post("/api/links", {
      url: "example.com",
      alias: "a!",
      ios_url: "https://blocked.example/app",
      expires_at: past,
      max_clicks: 0,
      password: "",
    });
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe("invalid_request");
    expect(r.body.details).toEqual([
      { field: "url", message: "Enter a full URL such as https://example.com" },
      { field: "alias", message: "Use 3 to 64 letters, digits, '-' or '_'" },
      { field: "ios_url", message: "This host (blocked.example) is blocked on this service" },
      { field: "expires_at", message: "This date is in the past; choose a later one" },
      { field: "max_clicks", message: "Enter a whole number from 1 to 1,000,000,000" },
      { field: "password", message: "Enter a password, or leave the field empty for none" },
    ]);
    expect(r.body.message).toBe(r.body.details.map((d: { field: string; message: string }) => `${d.field}: ${d.message}`).join("; "));
    expect((await pro.get("/api/links")).body.links).toEqual([]);
  });

  it("a blocked host alone keeps destination_blocked; with other wrong fields the first one's code leads", async () => {
    const blocked = await pro.post("/api/links", { url: "https://blocked.example/x", android_url: "https://sub.blocked.example/" });
    expect(blocked.status).toBe(400);
    expect(blocked.body).toMatchObject({ code: "destination_blocked" });
    expect(blocked.body.details).toEqual([
      { field: "url", message: "This host (blocked.example) is blocked on this service" },
      { field: "android_url", message: "This host (blocked.example) is blocked on this service" },
    ]);
    const mixed = await pro.post("/api/links", { url: "https://blocked.example/x", max_clicks: -1 });
    expect(mixed.body.code).toBe("destination_blocked");
    expect(mixed.body.details.map((d: { field: string }) => d.field)).toEqual(["url", "max_clicks"]);
  });

  it("a plan refusal comes after the fields before it, and alone when they are right", async () => {
    const free = await signedInClient(server, "free@example.com", "free");
    const both = await free.post("/api/links", { url: "nope", expires_at: past });
    expect(both.status).toBe(400);
    expect(both.body.details).toEqual([{ field: "url", message: "Enter a full URL such as https://example.com" }]);
    const plan = await free.post("/api/links", { url: "https://example.com/", expires_at: past });
    expect(plan.status).toBe(403);
    expect(plan.body.code).toBe("plan_required");
  });

  it("alias taken is 409 alias_taken with its field", async () => {
    expect((await pro.post("/api/links", { url: "https://example.com/", alias: "taken-one" })).status).toBe(201);
    const r = await pro.post("/api/links", { url: "https://example.com/2", alias: "taken-one" });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: "alias_taken", details: [{ field: "alias", message: "This alias is already taken; choose another" }] });
  });

  it("link editing lists every wrong field and changes nothing", async () => {
    const made = await pro.post("/api/links", { url: "https://example.com/keep", alias: "edit-me" });
    const r = await pro.patch(`/api/links/${made.body.link.id}`, { url: "ftp://x", alias: "", expires_at: "tomorrow", max_clicks: 0 });
    expect(r.status, r.text).toBe(400);
    expect(r.body.details).toEqual([
      { field: "url", message: "Enter a full URL such as https://example.com" },
      { field: "alias", message: "An alias cannot be removed; choose another" },
      { field: "expires_at", message: "Enter a date and time such as 2026-11-21T10:00:00.000Z" },
      { field: "max_clicks", message: "Enter a whole number from 1 to 1,000,000,000" },
    ]);
    expect((await pro.get(`/api/links/${made.body.link.id}`)).body.link).toMatchObject({
      url: "https://example.com/keep",
      alias: "edit-me",
      expires_at: null,
      max_clicks: null,
    });
  });

  it("sign-up lists the email, password and name at once", async () => {
    const c = await new ApiClient(server.url).init();
    const r = await c.post("/api/auth/signup", { email: "not-an-email", password: "short", name: "x".repeat(101) });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: "invalid_request" });
    expect(r.body.details).toEqual([
      { field: "email", message: "Enter an email address such as you@example.com" },
      { field: "password", message: "Use at least 10 characters" },
      { field: "name", message: "Use at most 100 characters" },
    ]);
  });

  it("webhook creation lists the name and the address at once", async () => {
    const r = await biz.post("/api/webhooks", { name: " ", url: "http://hooks.example.com/x" });
    expect(r.status, r.text).toBe(400);
    expect(r.body.details.map((d: { field: string }) => d.field)).toEqual(["name", "url"]);
    expect((await biz.get("/api/webhooks")).body.webhooks).toEqual([]);
  });

  it("schema errors list every wrong field, each unknown field on its own, at most 64", async () => {
    const r = await pro.post("/api/links", { url: 5, alias: 3, max_clicks: "x", extra_one: 1, extra_two: 2 });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_request");
    expect(r.body.details.map((d: { field: string }) => d.field).sort()).toEqual(["alias", "extra_one", "extra_two", "max_clicks", "url"]);
    expect(r.body.details.find((d: { field: string }) => d.field === "extra_one").message).toBe("is not a known field");
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`unknown_${i}`, i]));
    const bounded = await pro.post("/api/links", { url: "https://example.com/", ...many });
    expect(bounded.status, bounded.text).toBe(400);
    expect(bounded.body.details, bounded.text).toHaveLength(64);
    const missing = await c0(server).then((c) => c.post("/api/auth/signup", {}));
    expect(missing.body.details.map((d: { field: string }) => d.field).sort()).toEqual(["email", "password"]);
  });

  it("bulk rows of a URL and an alias: one result each, in order, aliases kept, faulty rows reported", async () => {
    const r = await biz.post("/api/links/bulk", {
      links: [
        { url: "https://bulk.example/a", alias: "bulk-a" },
        { url: "https://bulk.example/b" },
        { url: "nope", alias: "bulk-c" },
        { url: "https://bulk.example/d", alias: "bulk-a" },
        { url: "https://bulk.example/e", alias: "  " },
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(
      r.body.results.map((x: { line: number; status: string; alias?: string; code?: string }) => [x.line, x.status, x.alias ?? null, x.code ?? null]),
    ).toEqual([
      [1, "created", "bulk-a", null],
      [2, "created", null, null],
      [3, "error", "bulk-c", "invalid_request"],
      [4, "error", "bulk-a", "alias_taken"],
      [5, "created", null, null],
    ]);
    expect(r.body.results[0].link).toMatchObject({ alias: "bulk-a", url: "https://bulk.example/a" });
    expect(r.body.results[2].details).toEqual([{ field: "url", message: "Enter a full URL such as https://example.com" }]);
    expect((await biz.post("/api/links/bulk", { links: [] })).status).toBe(400);
    expect((await biz.post("/api/links/bulk", { urls: "https://bulk.example/f", links: [{ url: "https://bulk.example/g" }] })).status).toBe(400);
    expect((await biz.post("/api/links/bulk", { links: [{ url: "https://bulk.example/h", other: 1 }] })).status).toBe(400);
    const gated = await pro.post("/api/links/bulk", { links: [{ url: "https://bulk.example/i", alias: "bulk-i" }] });
    expect(gated.body).toMatchObject({ code: "plan_required", required_plan: "business" });
  });
});

const c0 = (server: TestServer) => new ApiClient(server.url).init();
