// The click id to the destination (docs/conversions.md, The click id) on every engine: a link with
// track_conversions redirects with snip_id=<click id> added to the destination's query (its query and fragment
// kept; device destinations and split variants alike), the click id names a stored click with the link, the
// destination chosen, device and referrer, and a lead can name it; a link without tracking answers as before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { withQueryParam } from "../../src/conversions/index.js";

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148";
const DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
const CLICK_ID = /^[A-Za-z0-9_-]{24}$/;

describe("withQueryParam", () => {
  it("adds the parameter keeping the query and fragment, and replaces one of the same name", () => {
    expect(withQueryParam("https://a.example/p", "snip_id", "X")).toBe("https://a.example/p?snip_id=X");
    expect(withQueryParam("https://a.example/p?a=1&b=%20#top", "snip_id", "X")).toBe("https://a.example/p?a=1&b=%20&snip_id=X#top");
    expect(withQueryParam("https://a.example/p?snip_id=old&a=1", "snip_id", "X")).toBe("https://a.example/p?a=1&snip_id=X");
    expect(withQueryParam("https://a.example/p?", "ref id", "X")).toBe("https://a.example/p?ref%20id=X");
  });
});

describe.each(ENGINES)("tracked redirects on %s", (engine) => {
  let server: TestServer;
  let owner: ApiClient;
  let key: string;

  async function visit(
    alias: string,
    ua = DESKTOP,
    referer = "https://news.example.org/story",
  ): Promise<{ status: number; location: string; cookie: string | null }> {
    const res = await fetch(`${server.url}/${alias}`, { redirect: "manual", headers: { "user-agent": ua, referer } });
    await res.body?.cancel();
    return { status: res.status, location: res.headers.get("location") ?? "", cookie: res.headers.get("set-cookie") };
  }
  const clickIdOf = (location: string) => new URL(location).searchParams.get("snip_id")!;
  async function stored(id: string) {
    await server.ctx.clicks.writeBuffered();
    return server.ctx.storage.db.selectFrom("tracked_clicks").selectAll().where("id", "=", id).executeTakeFirst();
  }

  beforeAll(async () => {
    // Clicks wait in the recorder's buffer for a minute unless something writes them: the lead's race is real.
    server = await startTestServer({ engine, env: { CLICK_FLUSH_MS: "60000" } });
    owner = await signedInClient(server, "redirect-owner@example.com", "business");
    const k = await owner.post("/api/keys", { name: "shop", scopes: ["conversions:write"] });
    key = k.body.secret as string;
  });
  afterAll(async () => server?.close());

  it("adds snip_id to the destination of a tracked link, keeping its query and fragment; the click is stored and a lead names it", async () => {
    const link = await createLink(owner, { url: "https://shop.example.com/p?a=1#top", track_conversions: true });
    expect((await owner.get(`/api/links/${link.id}`)).body.link.track_conversions).toBe(true);
    const a = await visit(link.alias);
    expect(a.status).toBe(302);
    expect(a.location).toMatch(/^https:\/\/shop\.example\.com\/p\?a=1&snip_id=[A-Za-z0-9_-]{24}#top$/);
    expect(a.cookie).toBeNull();
    const id = clickIdOf(a.location);
    expect(await stored(id)).toEqual({
      id,
      owner_id: expect.any(String),
      link_id: link.id,
      destination: null,
      country: null,
      device: "desktop",
      referrer_host: "news.example.org",
      browser: expect.any(String),
      os: expect.any(String),
      utm: null,
      at: expect.any(Number),
      // Not a store visit (migration 048).
      store: null,
    });
    // Each visit its own click id.
    const b = await visit(link.alias);
    expect(clickIdOf(b.location)).not.toBe(id);
    const lead = await fetch(`${server.url}/api/track/lead`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ click_id: id, customer_external_id: "c-1", event_name: "Sign up" }),
    });
    expect(lead.status).toBe(201);
    expect(((await lead.json()) as { lead: { link_id: string } }).lead.link_id).toBe(link.id);
  });

  it("finds a click still in the writer's buffer: a lead posted right after the redirect is recorded, the click stored with it", async () => {
    const link = await createLink(owner, { url: "https://shop.example.com/race", track_conversions: true });
    const lead = (clickId: string, customer: string) =>
      fetch(`${server.url}/api/track/lead`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ click_id: clickId, customer_external_id: customer, event_name: "Sign up" }),
      });
    for (let i = 0; i < 5; i++) {
      const id = clickIdOf((await visit(link.alias)).location);
      // The click is in the recorder's buffer (CLICK_FLUSH_MS is a minute here): nothing stored yet.
      expect(server.ctx.clicks.pending).toBeGreaterThan(0);
      expect(await server.ctx.storage.db.selectFrom("tracked_clicks").select("id").where("id", "=", id).executeTakeFirst()).toBeUndefined();
      const r = await lead(id, `race-${i}`);
      expect(r.status).toBe(201);
      const body = (await r.json()) as { lead: { link_id: string; click_id: string } };
      expect([body.lead.link_id, body.lead.click_id]).toEqual([link.id, id]);
    }
    // An unknown id of the same form and time is still 404 after the write; one of another form costs no write.
    const pending = server.ctx.clicks.pending;
    await visit(link.alias);
    const forged = await lead(`${clickIdOf((await visit(link.alias)).location).slice(0, 8)}${"A".repeat(16)}`, "race-forged");
    expect([forged.status, ((await forged.json()) as { code: string }).code]).toEqual([404, "not_found"]);
    expect(server.ctx.clicks.pending).toBe(0);
    await visit(link.alias);
    const old = await lead("B".repeat(22), "race-old");
    expect(old.status).toBe(404);
    expect(server.ctx.clicks.pending).toBe(pending + 1);
  });

  it("tracks device destinations and split variants alike, storing where the visit went", async () => {
    const device = await createLink(owner, { url: "https://shop.example.com/web", ios_url: "https://apps.example.com/ios", track_conversions: true });
    const ios = await visit(device.alias, IPHONE);
    expect(ios.location).toMatch(/^https:\/\/apps\.example\.com\/ios\?snip_id=[A-Za-z0-9_-]{24}$/);
    expect(await stored(clickIdOf(ios.location))).toMatchObject({ link_id: device.id, destination: "ios", device: "mobile" });

    const split = await createLink(owner, {
      url: "https://shop.example.com/a",
      split: [
        { url: "https://shop.example.com/a", weight: 50 },
        { url: "https://shop.example.com/b", weight: 50 },
      ],
      track_conversions: true,
    });
    const seen = new Map<string, string>();
    for (let i = 0; i < 12; i++) {
      const v = await visit(split.alias);
      const url = new URL(v.location);
      expect(url.searchParams.get("snip_id")).toMatch(CLICK_ID);
      const row = await stored(url.searchParams.get("snip_id")!);
      seen.set(row!.destination!, `${url.origin}${url.pathname}`);
    }
    for (const [destination, where] of seen) expect(destination).toBe(where.endsWith("/a") ? "variant:1" : "variant:2");
  });

  it("answers a link without tracking exactly as before: no snip_id, no stored click", async () => {
    const link = await createLink(owner, { url: "https://shop.example.com/plain?x=1" });
    expect((await owner.get(`/api/links/${link.id}`)).body.link.track_conversions).toBeNull();
    const before = await server.ctx.storage.db.selectFrom("tracked_clicks").select("id").execute();
    const a = await visit(link.alias);
    expect([a.status, a.location]).toEqual([302, "https://shop.example.com/plain?x=1"]);
    await server.ctx.clicks.writeBuffered();
    expect(await server.ctx.storage.db.selectFrom("tracked_clicks").select("id").execute()).toEqual(before);
    // Turned off on a tracked link: the next visit (the cache dropped with the edit) carries no click id.
    const tracked = await createLink(owner, { url: "https://shop.example.com/off", track_conversions: true });
    expect(clickIdOf((await visit(tracked.alias)).location)).toMatch(CLICK_ID);
    expect((await owner.patch(`/api/links/${tracked.id}`, { track_conversions: false })).status).toBe(200);
    expect((await visit(tracked.alias)).location).toBe("https://shop.example.com/off");
  });

  it("follows the account's settings (default, parameter name, window), which need the Business plan", async () => {
    const pro = await signedInClient(server, "pro-default@example.com", "pro");
    const refused = await pro.post("/api/links", { url: "https://shop.example.com/pro", track_conversions: true });
    expect([refused.status, refused.body.code, refused.body.required_plan]).toEqual([403, "plan_required", "business"]);
    const proSettings = await pro.patch("/api/conversions/settings", { track_conversions: true });
    expect([proSettings.status, proSettings.body.code]).toEqual([403, "plan_required"]);
    // A default left on from a Business time does nothing on a plan without conversions.
    await server.ctx.storage.db.updateTable("users").set({ track_conversions: 1 }).where("email", "=", "pro-default@example.com").execute();
    const proLink = await createLink(pro, { url: "https://shop.example.com/pro" });
    expect((await visit(proLink.alias)).location).toBe("https://shop.example.com/pro");

    const biz = await signedInClient(server, "biz-default@example.com", "business");
    expect((await biz.get("/api/conversions/settings")).body.settings).toEqual({ track_conversions: false, conversion_param: "snip_id", attribution_days: 90 });
    for (const [body, field] of [
      [{ conversion_param: "a b" }, "conversion_param"],
      [{ conversion_param: "x".repeat(41) }, "conversion_param"],
      [{ attribution_days: 0 }, "attribution_days"],
      [{ attribution_days: 3651 }, "attribution_days"],
    ] as const) {
      const r = await biz.patch("/api/conversions/settings", body);
      expect([r.status, r.body.code, r.body.details?.[0]?.field]).toEqual([400, "invalid_request", field]);
    }
    const inherits = await createLink(biz, { url: "https://shop.example.com/biz" });
    expect((await visit(inherits.alias)).location).toBe("https://shop.example.com/biz");
    const set = await biz.patch("/api/conversions/settings", { track_conversions: true, conversion_param: "ref_id", attribution_days: 30 });
    expect(set.body.settings).toEqual({ track_conversions: true, conversion_param: "ref_id", attribution_days: 30 });
    // The change reaches links already cached.
    expect((await visit(inherits.alias)).location).toMatch(/^https:\/\/shop\.example\.com\/biz\?ref_id=[A-Za-z0-9_-]{24}$/);
    // The link's own false wins over the account's default.
    const off = await createLink(biz, { url: "https://shop.example.com/biz-off", track_conversions: false });
    expect((await visit(off.alias)).location).toBe("https://shop.example.com/biz-off");
  });
});
