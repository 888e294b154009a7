// Tags (docs/api.md, Tags): an owner's labels, unique per owner ignoring case, with colours from a
// palette; members use the owner's tags; the cap holds under concurrency; bad input is a field error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { linkIn, readOutbox, tokenOf } from "../helpers/mail.js";
import { MAX_TAGS_PER_OWNER, defaultColor } from "../../src/tags/tags.js";
import { TAG_COLORS } from "../../src/contract/tags.js";

describe.each(ENGINES)("tags on %s", (engine) => {
  let server: TestServer;
  let n = 0;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  async function account(plan = "free") {
    const email = `tags-${engine}-${++n}@example.com`;
    const client = await signedInClient(server, email, plan);
    return { client, email, id: (await client.get("/api/profile")).body.user.id as string };
  }

  it("create, list in name order with link counts, rename, recolour, delete", async () => {
    const { client: c } = await account();
    expect((await c.get("/api/tags")).body).toEqual({ status: "success", tags: [] });
    const a = await c.post("/api/tags", { name: "  Spring   sale ", color: "green" });
    expect(a.status).toBe(201);
    expect(a.body).toEqual({ status: "success", tag: { id: expect.any(String), name: "Spring sale", color: "green" } });
    const b = await c.post("/api/tags", { name: "Árvíztűrő tükörfúrógép" });
    expect(b.status).toBe(201);
    expect(b.body.tag.color).toBe(defaultColor("Árvíztűrő tükörfúrógép"));
    expect(TAG_COLORS).toContain(b.body.tag.color);
    const list = await c.get("/api/tags");
    expect(list.headers.get("cache-control")).toBe("no-store");
    expect(list.body.tags).toEqual(
      [
        { id: a.body.tag.id, name: "Spring sale", color: "green", link_count: 0 },
        { id: b.body.tag.id, name: "Árvíztűrő tükörfúrógép", color: b.body.tag.color, link_count: 0 },
      ].reverse(),
    ); // alphabetical for a reader (Á with A), whatever the database's collation

    const renamed = await c.patch(`/api/tags/${a.body.tag.id}`, { name: "Autumn sale" });
    expect(renamed.body).toEqual({ status: "success", tag: { id: a.body.tag.id, name: "Autumn sale", color: "green" } });
    const recoloured = await c.patch(`/api/tags/${a.body.tag.id}`, { color: "purple" });
    expect(recoloured.body.tag).toEqual({ id: a.body.tag.id, name: "Autumn sale", color: "purple" });
    // Renaming to the same name in another case is allowed (it is the same tag).
    expect((await c.patch(`/api/tags/${a.body.tag.id}`, { name: "AUTUMN sale" })).status).toBe(200);

    expect((await c.delete(`/api/tags/${a.body.tag.id}`)).body).toEqual({ status: "success" });
    expect((await c.get("/api/tags")).body.tags.map((t: { id: string }) => t.id)).toEqual([b.body.tag.id]);
    expect((await c.delete(`/api/tags/${a.body.tag.id}`)).status).toBe(404);
  });

  it("names are unique per owner ignoring case; another owner may use the same name", async () => {
    const { client: c } = await account();
    const { client: other } = await account();
    expect((await c.post("/api/tags", { name: "Launch" })).status).toBe(201);
    const dup = await c.post("/api/tags", { name: "launch" });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      status: "error",
      code: "conflict",
      message: 'You already have a tag named "launch"',
      details: [{ field: "name", message: "This name is taken by another of your tags" }],
    });
    const second = await c.post("/api/tags", { name: "Second" });
    expect((await c.patch(`/api/tags/${second.body.tag.id}`, { name: "LAUNCH" })).status).toBe(409);
    expect((await other.post("/api/tags", { name: "LAUNCH" })).status).toBe(201);
  });

  it("bad input: 400 invalid_request naming the field; unknown fields and colours refused; nothing stored", async () => {
    const { client: c } = await account();
    const cases: [unknown, string][] = [
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "x".repeat(41) }, "name"],
      [{ name: "bell\u0007here" }, "name"],
      [{ name: "ok", color: "chartreuse" }, "color"],
      [{ name: "ok", extra: 1 }, "extra"],
      [{ name: 42 }, "name"],
      [{}, "name"],
    ];
    for (const [body, field] of cases) {
      const r = await c.post("/api/tags", body);
      expect([JSON.stringify(body), r.status, r.body.code]).toEqual([JSON.stringify(body), 400, "invalid_request"]);
      expect(r.body.details.map((d: { field: string }) => d.field).join(",")).toContain(field);
    }
    expect((await c.post("/api/tags", { name: "é".repeat(40) })).status).toBe(201);
    expect((await c.get("/api/tags")).body.tags).toHaveLength(1);
    // Malformed JSON and a tag id nobody has.
    expect((await c.request("POST", "/api/tags", "{", { "content-type": "application/json" })).status).toBe(400);
    expect((await c.patch("/api/tags/nope", { name: "x" })).status).toBe(404);
  });

  it("others' tags are not found; members list and create the owner's tags but neither rename nor delete them", async () => {
    const owner = await account("business");
    const member = await account();
    const stranger = await account();
    const r = await owner.client.post("/api/team/invitations", { email: member.email });
    expect(r.status).toBe(201);
    const raw = readOutbox(server.outboxDir).find((m) => m.includes(`To: ${member.email}`));
    expect((await member.client.post("/api/invitations/accept", { token: tokenOf(linkIn(raw!, "/app/invitations/accept?token=")) })).status).toBe(200);

    const tag = (await owner.client.post("/api/tags", { name: "Team" })).body.tag;
    expect((await member.client.get(`/api/tags?owner=${owner.id}`)).body.tags.map((t: { name: string }) => t.name)).toEqual(["Team"]);
    const made = await member.client.post(`/api/tags?owner=${owner.id}`, { name: "From member" });
    expect(made.status).toBe(201);
    expect((await owner.client.get("/api/tags")).body.tags.map((t: { name: string }) => t.name)).toEqual(["From member", "Team"]);
    expect((await member.client.get("/api/tags")).body.tags).toEqual([]);
    expect((await member.client.patch(`/api/tags/${tag.id}`, { name: "Mine" })).status).toBe(403);
    expect((await member.client.delete(`/api/tags/${tag.id}`)).status).toBe(403);

    for (const c of [stranger.client]) {
      expect((await c.get(`/api/tags?owner=${owner.id}`)).status).toBe(404);
      expect((await c.post(`/api/tags?owner=${owner.id}`, { name: "x" })).status).toBe(404);
      expect((await c.patch(`/api/tags/${tag.id}`, { name: "x" })).status).toBe(404);
      expect((await c.delete(`/api/tags/${tag.id}`)).status).toBe(404);
    }
    expect((await owner.client.get("/api/tags")).body.tags).toHaveLength(2);
  });

  it(`at most ${MAX_TAGS_PER_OWNER} tags per account, exact under concurrent creation`, async () => {
    const { client: c, id } = await account();
    // Fill to 10 below the cap directly, then race 30 creations for the last 10 places.
    const now = Date.now();
    const rows = Array.from({ length: MAX_TAGS_PER_OWNER - 10 }, (_, i) => ({
      id: `t-${engine}-${i}`,
      owner_id: id,
      name: `pre ${i}`,
      name_key: `pre ${i}`,
      color: "gray",
      created_at: now,
    }));
    for (let i = 0; i < rows.length; i += 100)
      await server.ctx.storage.db
        .insertInto("tags")
        .values(rows.slice(i, i + 100))
        .execute();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => c.post("/api/tags", { name: `race ${i}` })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 403).map((a) => a.body.code)).toEqual(Array(20).fill("limit_reached"));
    expect((await c.get("/api/tags")).body.tags).toHaveLength(MAX_TAGS_PER_OWNER);
  });

  it("signed out: 401 everywhere; writes need the CSRF token", async () => {
    for (const [method, path] of [
      ["GET", "/api/tags"],
      ["POST", "/api/tags"],
      ["PATCH", "/api/tags/x"],
      ["DELETE", "/api/tags/x"],
    ] as const) {
      const r = await fetch(`${server.url}${path}`, { method, headers: { "content-type": "application/json" }, body: method === "GET" ? undefined : "{}" });
      expect([method, r.status]).toEqual([method, method === "GET" ? 401 : 403]);
    }
    const { client: c } = await account();
    expect((await c.post("/api/tags", { name: "x" }, { "x-csrf-token": "wrong" })).status).toBe(403);
  });
});
