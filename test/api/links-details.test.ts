// What a link carries besides its addresses (docs/api.md, Links): title, note, tags by name, archive mark,
// fallback URL and preview card; their checks and plan rules on create, edit, bulk rows and the external API;
// members using the owner's tags; many links archived, tagged and deleted at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { linkIn, readOutbox, tokenOf } from "../helpers/mail.js";

const names = (tags: { name: string }[]) => tags.map((t) => t.name);

describe.each(ENGINES)("link details on %s", (engine) => {
  let server: TestServer;
  let n = 0;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  async function account(plan = "pro") {
    const email = `details-${engine}-${++n}@example.com`;
    const client = await signedInClient(server, email, plan);
    return { client, email, id: (await client.get("/api/profile")).body.user.id as string };
  }

  it("create and read back title, note, tags (created by name, deduplicated, in name order), fallback and preview", async () => {
    const { client: c } = await account();
    await c.post("/api/tags", { name: "Spring", color: "green" });
    const r = await c.post("/api/links", {
      url: "https://example.com/sale",
      alias: "sale-details",
      title: "  Spring sale  ",
      note: "For the newsletter\nof May",
      tags: ["spring", "Newsletter", "NEWSLETTER"],
      expired_url: "https://example.com/over",
      preview: { title: "Sale!", description: "Half price", image: "https://cdn.example.com/card.png" },
    });
    expect(r.status, r.text).toBe(201);
    const link = r.body.link;
    expect(link).toMatchObject({
      title: "Spring sale",
      note: "For the newsletter\nof May",
      archived: false,
      expired_url: "https://example.com/over",
      preview: { title: "Sale!", description: "Half price", image: "https://cdn.example.com/card.png" },
      last_click_at: null,
    });
    // The existing tag keeps its name and colour; the new one is created once.
    expect(link.tags).toEqual([
      { id: expect.any(String), name: "Newsletter", color: expect.any(String) },
      { id: expect.any(String), name: "Spring", color: "green" },
    ]);
    expect(names((await c.get("/api/tags")).body.tags)).toEqual(["Newsletter", "Spring"]);
    expect((await c.get(`/api/links/${link.id}`)).body.link).toEqual(link);
    const listed = (await c.get("/api/links")).body.links.find((l: { id: string }) => l.id === link.id);
    expect(listed.tags).toEqual(link.tags);

    // A plain link has empty details.
    const plain = (await c.post("/api/links", { url: "https://example.com/plain" })).body.link;
    expect(plain).toMatchObject({ title: null, note: null, tags: [], archived: false, expired_url: null, preview: null });
  });

  it("edit: tags replaced (and cleared with []), null clears title, note, fallback and preview; archive and restore", async () => {
    const { client: c } = await account();
    const link = (
      await c.post("/api/links", {
        url: "https://example.com/e",
        title: "T",
        note: "N",
        tags: ["a", "b"],
        expired_url: "https://example.com/x",
        preview: { title: "P" },
      })
    ).body.link;
    let r = await c.patch(`/api/links/${link.id}`, { tags: ["b", "c"] });
    expect(r.status, r.text).toBe(200);
    expect(names(r.body.link.tags)).toEqual(["b", "c"]);
    r = await c.patch(`/api/links/${link.id}`, { title: null, note: "", expired_url: null, preview: null });
    expect(r.body.link).toMatchObject({ title: null, note: null, expired_url: null, preview: null });
    expect(names(r.body.link.tags)).toEqual(["b", "c"]);
    r = await c.patch(`/api/links/${link.id}`, { archived: true });
    expect(r.body.link.archived).toBe(true);
    // Archived links keep redirecting.
    expect((await fetch(`${server.url}/${link.alias}`, { redirect: "manual" })).status).toBe(302);
    r = await c.patch(`/api/links/${link.id}`, { archived: false, tags: [] });
    expect(r.body.link).toMatchObject({ archived: false, tags: [] });
    // Deleting a tag takes it off its links.
    await c.patch(`/api/links/${link.id}`, { tags: ["gone-soon", "stays"] });
    const tag = (await c.get("/api/tags")).body.tags.find((t: { name: string }) => t.name === "gone-soon");
    expect((await c.delete(`/api/tags/${tag.id}`)).status).toBe(200);
    expect(names((await c.get(`/api/links/${link.id}`)).body.link.tags)).toEqual(["stays"]);
  });

  it("every wrong detail is reported at once with its field; nothing is written", async () => {
    const { client: c } = await account();
    const before = (await c.get("/api/tags")).body.tags.length;
    const r = await c.post("/api/links", {
      url: "https://example.com/bad",
      title: "x".repeat(201),
      note: "y".repeat(1001),
      tags: Array.from({ length: 11 }, (_, i) => `t${i}`),
      expired_url: "ftp://example.com/",
      preview: { title: "ok", description: "d".repeat(501), image: "http://example.com/not-https.png" },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_request");
    expect(r.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      "expired_url",
      "note",
      "preview.description",
      "preview.image",
      "tags",
      "title",
    ]);
    expect(r.body.details.find((d: { field: string }) => d.field === "tags").message).toBe("A link has at most 10 tags");
    expect((await c.get("/api/tags")).body.tags.length).toBe(before);
    for (const [body, field] of [
      [{ title: "two\nlines" }, "title"],
      [{ tags: [""] }, "tags"],
      [{ tags: ["x".repeat(41)] }, "tags"],
      [{ preview: { image: "javascript:alert(1)" } }, "preview.image"],
    ] as const) {
      const bad = await c.post("/api/links", { url: "https://example.com/", ...body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.details[0].field).toBe(field);
    }
    // Wrong types are refused by the schema.
    expect((await c.post("/api/links", { url: "https://example.com/", tags: "a" })).status).toBe(400);
    expect((await c.post("/api/links", { url: "https://example.com/", preview: { title: "x", extra: 1 } })).status).toBe(400);
    expect((await c.post("/api/links", { url: "https://example.com/", archived: "yes" })).status).toBe(400);
  });

  it("plans: fallback and preview need Pro (403 plan_required); title, note and tags are for everyone; signed out none", async () => {
    const { client: free } = await account("free");
    const fb = await free.post("/api/links", { url: "https://example.com/", expired_url: "https://example.com/x" });
    expect(fb.status).toBe(403);
    expect(fb.body).toMatchObject({ code: "plan_required", required_plan: "pro" });
    const pv = await free.post("/api/links", { url: "https://example.com/", preview: { title: "x" } });
    expect(pv.body).toMatchObject({ code: "plan_required", required_plan: "pro" });
    const ok = await free.post("/api/links", { url: "https://example.com/", title: "Mine", note: "n", tags: ["free"] });
    expect(ok.status, ok.text).toBe(201);
    const anon = await new ApiClient(server.url).init();
    const a = await anon.post("/api/links", { url: "https://example.com/", title: "x" });
    expect(a.status).toBe(401);
    expect(a.body.code).toBe("unauthenticated");
  });

  it("members tag the owner's links with the owner's tags; the owner's plan rules apply", async () => {
    const owner = await account("business");
    const member = await account("free");
    expect((await owner.client.post("/api/team/invitations", { email: member.email })).status).toBe(201);
    const raw = readOutbox(server.outboxDir).find((m) => m.includes(`To: ${member.email}`));
    expect((await member.client.post("/api/invitations/accept", { token: tokenOf(linkIn(raw!, "/app/invitations/accept?token=")) })).status).toBe(200);
    await owner.client.post("/api/tags", { name: "Team" });
    const link = (await owner.client.post("/api/links", { url: "https://example.com/t" })).body.link;
    const r = await member.client.patch(`/api/links/${link.id}`, { tags: ["team", "New from member"], expired_url: "https://example.com/fb" });
    expect(r.status, r.text).toBe(200);
    expect(names(r.body.link.tags)).toEqual(["New from member", "Team"]);
    expect(names((await owner.client.get("/api/tags")).body.tags)).toEqual(["New from member", "Team"]);
    expect((await member.client.get("/api/tags")).body.tags).toEqual([]);
  });

  it("bulk rows and the external API take the details under the same rules", async () => {
    const { client: c } = await account("business");
    const r = await c.post("/api/links/bulk", {
      links: [
        { url: "https://example.com/1", title: "One", tags: ["bulk"], note: "first" },
        { url: "https://example.com/2", preview: { title: "Two", image: "http://insecure.example.com/x.png" } },
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results[0]).toMatchObject({ status: "created", link: { title: "One", note: "first", tags: [{ name: "bulk" }] } });
    expect(r.body.results[1]).toMatchObject({ status: "error", code: "invalid_request", details: [{ field: "preview.image" }] });
    const key = (await c.post("/api/keys", { name: "k" })).body.secret;
    const ext = await fetch(`${server.url}/api/external-create.php`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        url: "https://example.com/ext",
        title: "Ext",
        tags: ["api"],
        expired_url: "https://example.com/ext-over",
        preview: { title: "Card" },
      }),
    });
    const body = await ext.json();
    expect(ext.status, JSON.stringify(body)).toBe(201);
    expect(body.link).toMatchObject({
      title: "Ext",
      tags: [{ name: "api" }],
      expired_url: "https://example.com/ext-over",
      preview: { title: "Card", description: null, image: null },
    });
  });

  it("bulk edit: archive, restore, add and remove tags for many links, all or nothing; bulk delete by the owner only", async () => {
    const owner = await account("business");
    const c = owner.client;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await c.post("/api/links", { url: `https://example.com/b${i}`, tags: i < 5 ? ["old"] : [] })).body.link.id);
    let r = await c.patch("/api/links/bulk", { ids, archived: true, add_tags: ["Campaign"], remove_tags: ["old"] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.links.map((l: { id: string }) => l.id)).toEqual(ids);
    for (const l of r.body.links) expect(l).toMatchObject({ archived: true, tags: [{ name: "Campaign" }] });
    r = await c.patch("/api/links/bulk", { ids: ids.slice(0, 3), archived: false });
    expect(r.body.links.map((l: { archived: boolean }) => l.archived)).toEqual([false, false, false]);

    // One link that is not the caller's: 404 and nothing changed.
    const other = await account();
    const foreign = (await other.client.post("/api/links", { url: "https://example.com/f" })).body.link.id;
    r = await c.patch("/api/links/bulk", { ids: [ids[0], foreign], add_tags: ["Nope"] });
    expect(r.status).toBe(404);
    expect(names((await c.get(`/api/links/${ids[0]}`)).body.link.tags)).toEqual(["Campaign"]);
    expect(names((await c.get("/api/tags")).body.tags)).not.toContain("Nope");
    // Past 10 tags on a link: field error, nothing added.
    await c.patch(`/api/links/${ids[1]}`, { tags: Array.from({ length: 9 }, (_, i) => `k${i}`) });
    r = await c.patch("/api/links/bulk", { ids: [ids[1], ids[2]], add_tags: ["x1", "x2"] });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([{ field: "add_tags", message: "A link has at most 10 tags" }]);
    expect((await c.get(`/api/links/${ids[2]}`)).body.link.tags.length).toBe(1);
    // Nothing to change, too many ids, bad shapes.
    expect((await c.patch("/api/links/bulk", { ids })).status).toBe(400);
    expect((await c.patch("/api/links/bulk", { ids: Array.from({ length: 101 }, (_, i) => `id${i}`), archived: true })).status).toBe(400);
    expect((await c.patch("/api/links/bulk", { ids: [], archived: true })).status).toBe(400);

    r = await c.post("/api/links/bulk/delete", { ids: ids.slice(10) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.deleted).toBe(10);
    expect((await c.get(`/api/links/${ids[15]}`)).status).toBe(404);
    expect((await other.client.post("/api/links/bulk/delete", { ids: [ids[0]] })).status).toBe(404);
  });
});
