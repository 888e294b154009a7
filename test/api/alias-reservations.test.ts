// Aliases given up (deleted, renamed, taken along with an account) stay reserved per (domain, alias)
// for their last owner: every way of creating or renaming a link is refused for everyone else.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";

// Generated aliases come from here; a test queues the ones it wants generated next (then random again).
const forced = vi.hoisted(() => ({ next: [] as string[] }));
vi.mock("../../src/links/aliases.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/links/aliases.js")>();
  return { ...real, generateAlias: () => forced.next.shift() ?? real.generateAlias() };
});

describe.each(ENGINES)("alias reservations on %s", (engine) => {
  let server: TestServer;
  let a: ApiClient;
  let b: ApiClient;
  let n = 0;
  const go = (path: string) => fetch(server.url + path, { redirect: "manual" });
  const reservation = (alias: string, domain = "") =>
    server.ctx.storage.db.selectFrom("alias_reservations").select("owner_id").where("domain", "=", domain).where("alias", "=", alias).executeTakeFirst();
  const userId = async (c: ApiClient) => (await c.get("/api/profile")).body.user.id as string;
  /** A signed-in Business account with an API key. */
  async function account(): Promise<{ client: ApiClient; key: string; id: string }> {
    const client = await signedInClient(server, `rsv-${++n}@example.com`, "business");
    const key = (await client.post("/api/keys", { name: "k" })).body.secret as string;
    return { client, key, id: await userId(client) };
  }
  const external = (key: string, body: unknown) =>
    fetch(`${server.url}/api/external-create.php`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  beforeAll(async () => {
    server = await startTestServer({ engine });
    a = (await account()).client;
    b = (await account()).client;
  });
  afterAll(async () => server?.close());

  it("a deleted alias: 409 alias_taken to every other creator (dashboard, signed out, external API); 201 to its owner", async () => {
    const other = await account();
    const link = await createLink(a, { url: "https://example.com/a-page", alias: "reuseX" });
    expect((await a.delete(`/api/links/${link.id}`)).status).toBe(200);
    expect((await go("/reuseX")).status).toBe(404);
    expect(await reservation("reuseX")).toEqual({ owner_id: await userId(a) });

    const taken = await b.post("/api/links", { url: "https://evil.example/", alias: "reuseX" });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({
      status: "error",
      code: "alias_taken",
      details: [{ field: "alias", message: "This alias is already taken; choose another" }],
    });
    const anon = await new ApiClient(server.url).init();
    expect((await anon.post("/api/links", { url: "https://evil.example/", alias: "reuseX" })).body.code).toBe("alias_taken");
    const ext = await external(other.key, { url: "https://evil.example/", alias: "reuseX" });
    expect([ext.status, ext.body.code]).toEqual([409, "alias_taken"]);
    // Renaming someone's own link onto it is the same claim.
    const bLink = await createLink(b, { url: "https://evil.example/b" });
    expect((await b.patch(`/api/links/${bLink.id}`, { alias: "reuseX" })).body.code).toBe("alias_taken");
    expect((await go("/reuseX")).status).toBe(404);

    // Its last owner takes it back (the reservation is used up while the link holds it), and after
    // another deletion it is reserved for that owner again.
    const again = await a.post("/api/links", { url: "https://example.com/a-page-2", alias: "reuseX" });
    expect(again.status).toBe(201);
    expect(await reservation("reuseX")).toBeUndefined();
    expect((await go("/reuseX")).headers.get("location")).toBe("https://example.com/a-page-2");
    expect((await a.delete(`/api/links/${again.body.link.id}`)).status).toBe(200);
    expect((await b.post("/api/links", { url: "https://evil.example/", alias: "reuseX" })).status).toBe(409);
    // The owner may also take it back through the external API.
    const aKey = (await a.post("/api/keys", { name: "a" })).body.secret as string;
    expect((await external(aKey, { url: "https://example.com/a-page-3", alias: "reuseX" })).status).toBe(201);
  });

  it("a rename frees nothing: the old alias stays its owner's, who may rename back", async () => {
    const link = await createLink(a, { url: "https://example.com/r", alias: "ren-old" });
    expect((await a.patch(`/api/links/${link.id}`, { alias: "ren-new" })).status).toBe(200);
    expect((await go("/ren-old")).status).toBe(404);
    expect((await b.post("/api/links", { url: "https://evil.example/", alias: "ren-old" })).status).toBe(409);
    const bLink = await createLink(b, { url: "https://evil.example/b2" });
    expect((await b.patch(`/api/links/${bLink.id}`, { alias: "ren-old" })).status).toBe(409);
    expect((await b.get(`/api/links/${bLink.id}`)).body.link.alias).toBe(bLink.alias);

    const back = await a.patch(`/api/links/${link.id}`, { alias: "ren-old" });
    expect(back.status).toBe(200);
    expect(back.body.link.alias).toBe("ren-old");
    expect((await go("/ren-old")).headers.get("location")).toBe("https://example.com/r");
    // Now the other name is the given-up one.
    expect(await reservation("ren-new")).toEqual({ owner_id: await userId(a) });
    expect((await b.patch(`/api/links/${bLink.id}`, { alias: "ren-new" })).status).toBe(409);
    // Another of the owner's links may take it.
    const second = await createLink(a, { url: "https://example.com/r2" });
    expect((await a.patch(`/api/links/${second.id}`, { alias: "ren-new" })).status).toBe(200);
  });

  it("a deleted account's aliases still block everyone, a new account on the same email included", async () => {
    const gone = await signedInClient(server, "gone@example.com", "pro");
    await createLink(gone, { url: "https://example.com/g1", alias: "acct-gone-1" });
    await createLink(gone, { url: "https://example.com/g2", alias: "acct-gone-2" });
    expect((await gone.delete("/api/account", { password: "correct horse 1" })).status).toBe(200);
    expect((await go("/acct-gone-1")).status).toBe(404);
    expect((await a.post("/api/links", { url: "https://evil.example/", alias: "acct-gone-1" })).status).toBe(409);
    const back = await signedInClient(server, "gone@example.com", "pro");
    expect((await back.post("/api/links", { url: "https://example.com/g", alias: "acct-gone-2" })).status).toBe(409);
    expect((await reservation("acct-gone-2"))?.owner_id).toMatch(/./);
  });

  it("a signed-out link's alias, once released, is reserved for nobody", async () => {
    const anon = await new ApiClient(server.url).init();
    const link = (await anon.post("/api/links", { url: "https://example.com/anon", alias: "anon-rsv" })).body.link;
    // No API deletes a signed-out link (it expires in place); whatever removes it releases the alias.
    await server.ctx.storage.db.deleteFrom("links").where("id", "=", link.id).execute();
    expect(await reservation("anon-rsv")).toEqual({ owner_id: null });
    expect((await anon.post("/api/links", { url: "https://example.com/anon", alias: "anon-rsv" })).status).toBe(409);
    expect((await a.post("/api/links", { url: "https://example.com/anon", alias: "anon-rsv" })).status).toBe(409);
  });

  it("reservations are per domain: the same alias on another domain is unaffected", async () => {
    const owner = await userId(a);
    await server.ctx.storage.db
      .insertInto("alias_reservations")
      .values({ domain: "go.example.org", alias: "per-domain", owner_id: owner, released_at: 0 })
      .execute();
    expect((await b.post("/api/links", { url: "https://example.com/pd", alias: "per-domain" })).status).toBe(201);
  });

  it("generated aliases never land on a reservation, not even the creator's own (single, bulk, external)", async () => {
    const holder = await account();
    const link = await createLink(holder.client, { url: "https://example.com/h", alias: "GenRsv1" });
    expect((await holder.client.delete(`/api/links/${link.id}`)).status).toBe(200);

    forced.next = ["GenRsv1"];
    const single = await createLink(b, { url: "https://example.com/gen-1" });
    expect(single.alias).not.toBe("GenRsv1");
    expect(single.alias).toMatch(/^[A-Za-z0-9]{7}$/);
    expect(forced.next).toEqual([]);

    forced.next = ["GenRsv1", "GenRsv1"];
    const bulk = await b.post("/api/links/bulk", { urls: "https://example.com/gen-2\nhttps://example.com/gen-3" });
    expect(bulk.body.results.map((r: { status: string }) => r.status)).toEqual(["created", "created"]);
    expect(bulk.body.results.map((r: { link: { alias: string } }) => r.link.alias)).not.toContain("GenRsv1");

    forced.next = ["GenRsv1"];
    const ext = await external((await account()).key, { url: "https://example.com/gen-4" });
    expect(ext.status).toBe(201);
    expect(ext.body.link.alias).not.toBe("GenRsv1");

    forced.next = ["GenRsv1"];
    const own = await createLink(holder.client, { url: "https://example.com/gen-5" });
    expect(own.alias).not.toBe("GenRsv1");
    expect(await reservation("GenRsv1")).toEqual({ owner_id: holder.id });
    expect((await go("/GenRsv1")).status).toBe(404);
  });

  it("races: the holder and others claiming one alias at once, exactly one wins (the holder); a deletion racing a creation never hands it over", async () => {
    for (let round = 0; round < 6; round++) {
      const alias = `race-${round}`;
      const link = await createLink(a, { url: "https://example.com/race", alias });
      expect((await a.delete(`/api/links/${link.id}`)).status).toBe(200);
      const others = [b, b, b];
      const answers = await Promise.all([
        ...others.map((c) => c.post("/api/links", { url: "https://evil.example/", alias })),
        a.post("/api/links", { url: `https://example.com/race-${round}`, alias }),
        ...others.map((c) => c.post("/api/links", { url: "https://evil.example/", alias })),
      ]);
      expect(answers.map((r) => r.status)).toEqual([409, 409, 409, 201, 409, 409, 409]);
      expect((await go(`/${alias}`)).headers.get("location")).toBe(`https://example.com/race-${round}`);
    }
    for (let round = 0; round < 6; round++) {
      const alias = `race-del-${round}`;
      const link = await createLink(a, { url: "https://example.com/race", alias });
      const [del, ...claims] = await Promise.all([
        a.delete(`/api/links/${link.id}`),
        ...[b, b, b, b].map((c) => c.post("/api/links", { url: "https://evil.example/", alias })),
      ]);
      expect(del.status).toBe(200);
      expect(claims.map((r) => r.status)).toEqual([409, 409, 409, 409]);
      expect((await go(`/${alias}`)).status).toBe(404);
    }
  });
});
