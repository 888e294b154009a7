// Redirect rules and weighted splits through the API (docs/api.md, Redirect rules): stored normalised,
// refused field by field, Business and above, answered alike on the fast path and the full one, a split's
// variant kept by its cookie, rules and splits in bulk rows and the external API, and "Test a visit".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

const RULES = [
  { if: { country: ["fr", "BE"] }, url: "https://example.com/fr" },
  { if: { language: ["DE"], device: ["desktop"] }, url: "https://example.com/de" },
  { if: { query: { utm_source: "news" } }, url: "https://example.com/news" },
  { if: { referrer_host: ["www.Partner.example"] }, url: "https://example.com/partner" },
];
const SPLIT = [
  { url: "https://example.com/a", weight: 50 },
  { url: "https://example.com/b", weight: 50 },
];

describe.each(ENGINES)("redirect rules and splits on %s", (engine) => {
  let server: TestServer;
  let biz: ApiClient;
  let pro: ApiClient;
  const go = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { redirect: "manual", headers: { "user-agent": CHROME, ...headers } });
  /** Twice: the second answer comes from the link cache (the fast path) and must be the same. */
  const twice = async (path: string, headers: Record<string, string> = {}) => {
    const a = await go(path, headers);
    const b = await go(path, headers);
    expect(b.status).toBe(a.status);
    expect(b.headers.get("location")).toBe(a.headers.get("location"));
    return a.headers.get("location");
  };

  beforeAll(async () => {
    // The country comes from the trusted proxy's header (the tests' requests come from 127.0.0.1).
    server = await startTestServer({ engine, env: { TRUST_PROXY: "127.0.0.1" } });
    biz = await signedInClient(server, "biz@example.com", "business");
    pro = await signedInClient(server, "pro@example.com", "pro");
  });
  afterAll(async () => server?.close());

  it("stores rules and split normalised and gives them back on every read", async () => {
    const r = await biz.post("/api/links", { url: "https://example.com/", alias: "campaign", rules: RULES, split: SPLIT });
    expect(r.status, r.text).toBe(201);
    expect(r.body.link.rules).toEqual([
      { if: { country: ["FR", "BE"] }, url: "https://example.com/fr" },
      { if: { language: ["de"], device: ["desktop"] }, url: "https://example.com/de" },
      { if: { query: { utm_source: "news" } }, url: "https://example.com/news" },
      { if: { referrer_host: ["partner.example"] }, url: "https://example.com/partner" },
    ]);
    expect(r.body.link.split).toEqual(SPLIT);
    expect((await biz.get(`/api/links/${r.body.link.id}`)).body.link).toEqual(r.body.link);
    const plain = await biz.post("/api/links", { url: "https://example.com/plain" });
    expect(plain.body.link).toMatchObject({ rules: [], split: [] });
  });

  it("sends each visitor where the first rule that holds says, alike on the fast path", async () => {
    expect(await twice("/campaign", { "cf-ipcountry": "BE" })).toBe("https://example.com/fr");
    expect(await twice("/campaign", { "accept-language": "de-AT,en;q=0.5" })).toBe("https://example.com/de");
    // The language rule needs a desktop too: on an iPhone it does not hold.
    expect(await twice("/campaign?utm_source=news", { "accept-language": "de", "user-agent": IPHONE })).toBe("https://example.com/news");
    expect(await twice("/campaign", { referer: "https://blog.partner.example/post" })).toBe("https://example.com/partner");
    expect(["https://example.com/a", "https://example.com/b"]).toContain(await twice("/campaign", { "cf-ipcountry": "US" }));
  });

  it("a split's visitor gets a cookie once and keeps their variant with it", async () => {
    const first = await go("/campaign", { "cf-ipcountry": "US" });
    const cookie = first.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^snip_v\d+=[12]; Max-Age=2592000; Path=\/campaign; HttpOnly; SameSite=Lax$/);
    const variant = Number(/=(\d)/.exec(cookie)![1]);
    expect(first.headers.get("location")).toBe(SPLIT[variant - 1]!.url);
    // The other variant in the cookie: it wins over the visitor's hash, on the fast path too; no new cookie.
    const other = 3 - variant;
    for (let i = 0; i < 2; i++) {
      const r = await go("/campaign", { "cf-ipcountry": "US", cookie: `${cookie.split(";")[0]!.replace(/=\d/, `=${other}`)}` });
      expect(r.headers.get("location")).toBe(SPLIT[other - 1]!.url);
      expect(r.headers.get("set-cookie")).toBeNull();
    }
  });

  it("an edited rule answers at once; [] and null clear rules and split", async () => {
    const id = (await biz.get("/api/links?q=campaign")).body.links[0].id;
    expect(await twice("/campaign", { "cf-ipcountry": "FR" })).toBe("https://example.com/fr");
    const r = await biz.patch(`/api/links/${id}`, { rules: [{ if: { country: ["FR"] }, url: "https://example.com/fr-v2" }] });
    expect(r.status, r.text).toBe(200);
    expect(await twice("/campaign", { "cf-ipcountry": "FR" })).toBe("https://example.com/fr-v2");
    const cleared = await biz.patch(`/api/links/${id}`, { rules: [], split: null });
    expect(cleared.body.link).toMatchObject({ rules: [], split: [] });
    expect(await twice("/campaign", { "cf-ipcountry": "FR" })).toBe("https://example.com/");
  });

  it("refuses every wrong field at once, with its place", async () => {
    const before = (await biz.get("/api/links")).body.total;
    const r = await biz.post("/api/links", {
      url: "https://example.com/",
      rules: [
        { if: { country: ["FRA"], language: ["français"] }, url: "https://example.com/x" },
        { if: {}, url: "ftp://example.com" },
        { if: { after: "2026-02-01T00:00:00Z", before: "2026-01-01T00:00:00Z", device: ["phone"] }, url: "https://example.com/y" },
      ],
      split: [
        { url: "https://example.com/a", weight: 60 },
        { url: "https://example.com/b", weight: 30 },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_request");
    const fields = (r.body.details as { field: string }[]).map((d) => d.field).sort();
    expect(fields).toEqual(
      ["rules[0].if.country", "rules[0].if.language", "rules[1].if", "rules[1].url", "rules[2].if.before", "rules[2].if.device", "split"].sort(),
    );
    const one = await biz.post("/api/links", { url: "https://example.com/", split: [{ url: "https://example.com/a", weight: 100 }] });
    expect(one.status).toBe(400);
    const tooMany = await biz.post("/api/links", {
      url: "https://example.com/",
      rules: Array.from({ length: 21 }, () => ({ if: { country: ["FR"] }, url: "https://example.com/" })),
    });
    expect(tooMany.status).toBe(400);
    const hostile = await biz.post("/api/links", {
      url: "https://example.com/",
      rules: [{ if: { query: { "a\u0000": "x" }, evil: true }, url: "https://example.com/" }],
    });
    expect(hostile.status).toBe(400);
    expect((await biz.get("/api/links")).body.total).toBe(before);
  });

  it("plan_required below Business; clearing is allowed on any plan", async () => {
    const r = await pro.post("/api/links", { url: "https://example.com/", rules: RULES.slice(0, 1) });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: "plan_required", required_plan: "business" });
    const s = await pro.post("/api/links", { url: "https://example.com/", split: SPLIT });
    expect(s.status).toBe(403);
    const ok = await pro.post("/api/links", { url: "https://example.com/", rules: [], split: null });
    expect(ok.status, ok.text).toBe(201);
    // Signed out: 401 unauthenticated, like every option beyond url and alias.
    const anon = await new ApiClient(server.url).init();
    const r2 = await anon.post("/api/links", { url: "https://example.com/", rules: RULES.slice(0, 1) });
    expect(r2.status).toBe(401);
    expect(r2.body.code).toBe("unauthenticated");
  });

  it("bulk rows and the external API take rules and splits", async () => {
    const bulk = await biz.post("/api/links/bulk", { links: [{ url: "https://example.com/b1", alias: "bulk-rules", rules: RULES.slice(0, 1), split: SPLIT }] });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.results[0]).toMatchObject({ status: "created", link: { rules: [{ if: { country: ["FR", "BE"] } }], split: SPLIT } });
    expect(await twice("/bulk-rules", { "cf-ipcountry": "FR" })).toBe("https://example.com/fr");
    const key = await biz.post("/api/keys", { name: "rules" });
    expect(key.status, key.text).toBe(201);
    const ext = await fetch(`${server.url}/api/external-create.php`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.body.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/e", alias: "ext-rules", rules: [{ if: { device: ["ios"] }, url: "https://example.com/app" }] }),
    });
    expect(ext.status, await ext.clone().text()).toBe(201);
    expect(await twice("/ext-rules", { "user-agent": IPHONE })).toBe("https://example.com/app");
  });

  it("Test a visit: which destination answers and why, for the owner only", async () => {
    const r = await biz.post("/api/links", {
      url: "https://example.com/home",
      alias: "tested",
      ios_url: "https://example.com/ios",
      rules: RULES,
      split: SPLIT,
    });
    const id = r.body.link.id;
    const ask = (q: string) => biz.get(`/api/links/${id}/resolve?${q}`);
    expect((await ask("country=be")).body).toMatchObject({
      status: "success",
      destination: "rule:1",
      url: "https://example.com/fr",
      rule: 1,
      reason: "Rule 1 holds (country FR or BE)",
      country_source: "header",
    });
    expect((await ask(`language=${encodeURIComponent("fr;q=0.1,de;q=0.8")}&ua=${encodeURIComponent(CHROME)}`)).body).toMatchObject({
      destination: "rule:2",
      reason: "Rule 2 holds (language de, device desktop)",
    });
    expect((await ask(`query=${encodeURIComponent("?utm_source=news")}`)).body).toMatchObject({ destination: "rule:3" });
    expect((await ask(`ua=${encodeURIComponent(IPHONE)}`)).body).toMatchObject({ destination: "ios", url: "https://example.com/ios", rule: null });
    const split = (await ask("country=US")).body;
    expect(split.destination).toMatch(/^variant:[12]$/);
    expect(split.variants).toEqual([
      { destination: "variant:1", url: "https://example.com/a", weight: 50 },
      { destination: "variant:2", url: "https://example.com/b", weight: 50 },
    ]);
    expect((await ask("at=yesterday")).status).toBe(400);
    expect((await ask("country=France")).status).toBe(400);
    expect((await pro.get(`/api/links/${id}/resolve`)).status).toBe(404);
    // A time window: the rule holds only inside it.
    await biz.patch(`/api/links/${id}`, { rules: [{ if: { after: "2030-01-01T00:00:00Z" }, url: "https://example.com/later" }], split: [] });
    expect((await ask("at=2029-12-31T23:59:59Z")).body).toMatchObject({ destination: "default", url: "https://example.com/home" });
    expect((await ask("at=2030-01-01T00:00:00Z")).body).toMatchObject({ destination: "rule:1", url: "https://example.com/later" });
  });

  it("a blocked host in a rule or a variant is refused, and stops links already pointing there", async () => {
    const made = await biz.post("/api/links", {
      url: "https://example.com/",
      alias: "soon-blocked",
      split: [
        { url: "https://fine.example/a", weight: 50 },
        { url: "https://evil.example/b", weight: 50 },
      ],
    });
    expect(made.status).toBe(201);
    expect((await go("/soon-blocked")).status).toBe(302);
    await server.ctx.storage.db.updateTable("users").set({ is_admin: 1 }).where("email", "=", "biz@example.com").execute();
    expect((await biz.post("/api/admin/blocklist", { host: "evil.example" })).status).toBe(201);
    const r = await biz.post("/api/links", { url: "https://example.com/", rules: [{ if: { country: ["FR"] }, url: "https://www.evil.example/x" }] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: "destination_blocked", details: [{ field: "rules[0].url" }] });
    const v = await biz.post("/api/links", {
      url: "https://example.com/",
      split: [
        { url: "https://fine.example/a", weight: 50 },
        { url: "https://evil.example/b", weight: 50 },
      ],
    });
    expect(v.body).toMatchObject({ code: "destination_blocked", details: [{ field: "split[1].url" }] });
    expect((await go("/soon-blocked")).status).toBe(410);
    expect((await biz.get(`/api/links/${made.body.link.id}`)).body.link.destination_blocked).toBe(true);
  });
});
