// Deferred deep links on every engine (docs/deep-links.md, The open API): POST /api/deeplinks/open with a
// publishable key (scope deeplinks:open alone). The Android round trip through the Play Store's install referrer;
// iOS first launches matched against the pending matches the redirect keeps per address (one visitor; two visitors
// behind one address with different devices, each their own; two alike: none; after DEEPLINK_MATCH_TTL: none; a
// second ask: none; two concurrent asks: one wins); a link's address (an app open); another account's links never
// answered; the key reaching nothing else, a session not this route; the throttle per address; malformed bodies.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ManualClock } from "../../src/shared/clock.js";
import { newClickId } from "../../src/conversions/tracked-clicks.js";
import { purgeExpiredMatches } from "../../src/deeplinks/pending-matches.js";
import { OPENS_PER_MINUTE } from "../../src/http/routes/deeplink-open.js";

const IPHONE_17 = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1";
const IPAD_16 = "Mozilla/5.0 (iPad; CPU OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.5 Mobile/15E148 Safari/604.1";
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const INSTAGRAM_IOS =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 309.1.0.28.108 (iPhone15,2; iOS 17_1_2; en_US; en; scale=3.00; 1179x2556; 532266187)";
const APP = { app_ios_store_id: "389801252", app_android_package: "com.example.shop", app_path: "/product/42?color=red" };
const NOW = Date.UTC(2026, 10, 20, 12);
const IPHONE_FACTS = { platform: "ios", os_version: "17.1.2", device_model: "iPhone15,2", language: "fr-FR" };

/** The answer naming `link` (destination https://shop.example.com/p?ref=poster, APP's path). */
function found(link: { id: string; alias: string }, match: string, params: Record<string, string>) {
  return { status: "success", match, link: { id: link.id, alias: link.alias, url: "https://shop.example.com/p?ref=poster" }, path: APP.app_path, params };
}

describe.each(ENGINES)("deferred deep links on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let owner: ApiClient;
  let other: ApiClient;
  let key: string;
  let otherKey: string;
  let address = 0;
  /** A client address of its own for each scenario (TRUST_PROXY: the forwarded address is the client's). */
  const nextAddress = () => `203.0.113.${++address}`;

  async function visit(alias: string, ua: string, ip: string, opts: { query?: string; language?: string } = {}) {
    const headers: Record<string, string> = { "user-agent": ua, "x-forwarded-for": ip };
    if (opts.language) headers["accept-language"] = opts.language;
    const res = await fetch(`${server.url}/${alias}${opts.query ?? ""}`, { redirect: "manual", headers });
    await res.text();
    return { status: res.status, location: res.headers.get("location") ?? "" };
  }
  async function open(body: unknown, ip: string, k: string | null = key) {
    const headers: Record<string, string> = { "content-type": "application/json", "x-forwarded-for": ip };
    if (k !== null) headers.authorization = `Bearer ${k}`;
    const res = await fetch(`${server.url}/api/deeplinks/open`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, text, headers: res.headers };
  }
  async function appLink(client: ApiClient, url = "https://shop.example.com/p?ref=poster") {
    const l = await createLink(client, { url, ...APP });
    return l;
  }
  const events = async (linkId: string) =>
    (
      await server.ctx.storage.db.selectFrom("app_events").select(["kind", "match", "click_id"]).where("link_id", "=", linkId).orderBy("created_at").execute()
    ).map((e) => `${e.kind} ${e.match} ${e.click_id === null ? "-" : "click"}`);

  beforeAll(async () => {
    clock = new ManualClock(NOW);
    server = await startTestServer({ engine, clock, env: { TRUST_PROXY: "true" } });
    owner = await signedInClient(server, "deep-owner@example.com", "business");
    other = await signedInClient(server, "deep-other@example.com", "business");
    key = (await owner.post("/api/keys", { name: "app", scopes: ["deeplinks:open"] })).body.secret;
    otherKey = (await other.post("/api/keys", { name: "app", scopes: ["deeplinks:open"] })).body.secret;
  });
  afterAll(async () => server?.close());

  it("Android: the Play Store's referrer carries the click id, and the app's ask with it answers the link, its path and parameters (deterministic)", async () => {
    clock.set(NOW);
    const link = await appLink(owner);
    const ip = nextAddress();
    const v = await visit(link.alias, ANDROID, ip, { query: "?utm_source=poster&ref=wall" });
    expect(v.status).toBe(302);
    const store = new URL(v.location);
    expect(`${store.origin}${store.pathname}`).toBe("https://play.google.com/store/apps/details");
    expect(store.searchParams.get("id")).toBe("com.example.shop");
    const referrer = new URLSearchParams(store.searchParams.get("referrer")!);
    const clickId = referrer.get("snip_click_id")!;
    expect(clickId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    // Asked at once: the click may still be buffered (the route writes it first).
    const a = await open({ click_id: clickId }, nextAddress());
    expect(a.status, a.text).toBe(200);
    expect(a.body).toEqual(found(link, "deterministic", { ref: "wall", utm_source: "poster" }));
    // Asked again (the referrer stays): the same answer, one install.
    expect((await open({ click_id: clickId }, nextAddress())).body.match).toBe("deterministic");
    expect(await events(link.id)).toEqual(["app_install deterministic click"]);
    const tracked = await server.ctx.storage.db.selectFrom("tracked_clicks").select("store").where("id", "=", clickId).executeTakeFirstOrThrow();
    expect(tracked.store).toBe("android");
  });

  it("answers none, as for an id that never was, to a click id of another account's link, and records nothing", async () => {
    clock.set(NOW);
    const link = await appLink(other);
    const v = await visit(link.alias, ANDROID, nextAddress());
    const clickId = new URLSearchParams(new URL(v.location).searchParams.get("referrer")!).get("snip_click_id")!;
    await server.ctx.clicks.writeBuffered();
    const theirs = await open({ click_id: clickId }, nextAddress());
    const never = await open({ click_id: newClickId(NOW - 86_400_000) }, nextAddress());
    expect(theirs.body).toEqual({ status: "success", match: "none", link: null, path: null, params: {} });
    expect(never.body).toEqual(theirs.body);
    expect(await events(link.id)).toEqual([]);
    // Its owner's key gets it.
    expect((await open({ click_id: clickId }, nextAddress(), otherKey)).body.link.id).toBe(link.id);
  });

  it("iOS: one visitor's first launch is matched (probabilistic) once; another address, or a second ask, gets none", async () => {
    clock.set(NOW);
    const link = await appLink(owner);
    const ip = nextAddress();
    const v = await visit(link.alias, IPHONE_17, ip, { query: "?utm_campaign=spring", language: "fr-FR,fr;q=0.9,en;q=0.5" });
    expect(v.location).toBe("https://apps.apple.com/app/id389801252");
    await server.ctx.clicks.writeBuffered();
    const kept = await server.ctx.storage.db.selectFrom("deeplink_matches").selectAll().where("link_id", "=", link.id).executeTakeFirstOrThrow();
    expect([kept.platform, kept.os_version, kept.device_model, kept.language, kept.params, kept.expires_at - kept.created_at]).toEqual([
      "ios",
      "17.1.2",
      "iPhone",
      "fr-fr",
      "ref=poster&utm_campaign=spring",
      3_600_000,
    ]);
    // Never the raw address.
    expect(JSON.stringify(kept)).not.toContain(ip);
    expect(kept.address).toMatch(/^[A-Za-z0-9_-]{43}$/);
    clock.set(NOW + 10 * 60_000);
    expect((await open(IPHONE_FACTS, nextAddress())).body.match).toBe("none");
    const a = await open(IPHONE_FACTS, ip);
    expect(a.body).toEqual(found(link, "probabilistic", { ref: "poster", utm_campaign: "spring" }));
    expect((await open(IPHONE_FACTS, ip)).body.match).toBe("none");
    expect(await events(link.id)).toEqual(["app_install probabilistic click"]);
  });

  it("iOS: two visitors behind one address with different devices each get their own link", async () => {
    clock.set(NOW);
    const phone = await appLink(owner, "https://shop.example.com/phone");
    const tablet = await appLink(owner, "https://shop.example.com/tablet");
    const ip = nextAddress();
    await visit(phone.alias, IPHONE_17, ip, { language: "en-US" });
    await visit(tablet.alias, IPAD_16, ip, { language: "de-DE" });
    await server.ctx.clicks.writeBuffered();
    const t = await open({ platform: "ios", os_version: "16.5", device_model: "iPad13,4", language: "de-DE" }, ip);
    expect([t.body.match, t.body.link?.id]).toEqual(["probabilistic", tablet.id]);
    const p = await open({ platform: "ios", os_version: "17.1.2", device_model: "iPhone", language: "en-US" }, ip);
    expect([p.body.match, p.body.link?.id]).toEqual(["probabilistic", phone.id]);
  });

  it("iOS: two visitors that cannot be told apart get none (never a wrong match), and the in-app page's App Store offer is kept too", async () => {
    clock.set(NOW);
    const a = await appLink(owner, "https://shop.example.com/a");
    const b = await createLink(owner, { url: "https://shop.example.com/b", ...APP, open_outside: true });
    const ip = nextAddress();
    await visit(a.alias, IPHONE_17, ip, { language: "en-US" });
    const page = await visit(b.alias, INSTAGRAM_IOS, ip, { language: "en-US" });
    expect(page.status).toBe(200);
    await server.ctx.clicks.writeBuffered();
    expect((await open({ platform: "ios", os_version: "17.1.2", device_model: "iPhone", language: "en-US" }, ip)).body.match).toBe("none");
    const open2 = await server.ctx.storage.db.selectFrom("deeplink_matches").select("used_at").where("link_id", "in", [a.id, b.id]).execute();
    expect(open2.map((r) => r.used_at)).toEqual([null, null]);
    // The store visit is counted on the App Store's turn only, not on the page that offers it.
    const stores = await server.ctx.storage.db.selectFrom("tracked_clicks").select(["link_id", "store"]).where("link_id", "in", [a.id, b.id]).execute();
    expect(Object.fromEntries(stores.map((s) => [s.link_id, s.store]))).toEqual({ [a.id]: "ios", [b.id]: null });
  });

  it("iOS: a match is kept DEEPLINK_MATCH_TTL (1 hour), then none, and the housekeeping deletes it", async () => {
    clock.set(NOW);
    const link = await appLink(owner);
    const ip = nextAddress();
    await visit(link.alias, IPHONE_17, ip, { language: "fr-FR" });
    await server.ctx.clicks.writeBuffered();
    clock.set(NOW + 3_600_000);
    expect((await open(IPHONE_FACTS, ip)).body.match).toBe("none");
    expect(await purgeExpiredMatches(server.ctx.storage.db, NOW + 3_600_000)).toBeGreaterThanOrEqual(1);
    const left = await server.ctx.storage.db.selectFrom("deeplink_matches").select("click_id").where("link_id", "=", link.id).execute();
    expect(left).toEqual([]);
    // Just inside the hour, matched.
    clock.set(NOW);
    const again = await appLink(owner);
    const ip2 = nextAddress();
    await visit(again.alias, IPHONE_17, ip2, { language: "fr-FR" });
    await server.ctx.clicks.writeBuffered();
    clock.set(NOW + 3_600_000 - 1);
    expect((await open(IPHONE_FACTS, ip2)).body.link?.id).toBe(again.id);
  });

  it("gives one match to one of two concurrent asks", async () => {
    clock.set(NOW);
    const link = await appLink(owner);
    const ip = nextAddress();
    await visit(link.alias, IPHONE_17, ip, { language: "fr-FR" });
    await server.ctx.clicks.writeBuffered();
    const answers = await Promise.all([open(IPHONE_FACTS, ip), open(IPHONE_FACTS, ip), open(IPHONE_FACTS, ip)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.body.match).sort()).toEqual(["none", "none", "probabilistic"]);
    expect(await events(link.id)).toEqual(["app_install probabilistic click"]);
  });

  it("answers a short link's address (a universal link or app link) with the link: an app open each time", async () => {
    clock.set(NOW);
    const link = await appLink(owner);
    const a = await open({ url: `${server.url}/${link.alias}?utm_source=mail&ref=inbox` }, nextAddress());
    expect(a.body).toEqual(found(link, "deterministic", { ref: "inbox", utm_source: "mail" }));
    await open({ url: `${server.url}/${link.alias}` }, nextAddress());
    expect(await events(link.id)).toEqual(["app_open deterministic -", "app_open deterministic -"]);
    const theirs = await appLink(other);
    for (const url of [
      `${server.url}/${theirs.alias}`,
      `https://elsewhere.example.org/${link.alias}`,
      `${server.url}/${link.alias}/more`,
      `${server.url}/nope-${link.alias}`,
    ])
      expect((await open({ url }, nextAddress())).body.match, url).toBe("none");
    expect(await events(theirs.id)).toEqual([]);
  });

  it("a publishable key reaches this route alone (403 insufficient_scope elsewhere), and a session cannot call it", async () => {
    const ip = nextAddress();
    const list = await fetch(`${server.url}/api/external/links`, { headers: { authorization: `Bearer ${key}`, "x-forwarded-for": ip } });
    expect(list.status).toBe(403);
    expect(((await list.json()) as { code: string }).code).toBe("insufficient_scope");
    const created = await fetch(`${server.url}/api/external-create.php`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/x" }),
    });
    expect([created.status, ((await created.json()) as { code: string }).code]).toEqual([403, "insufficient_scope"]);
    const dashboard = await fetch(`${server.url}/api/links`, { headers: { authorization: `Bearer ${key}` } });
    expect([dashboard.status, ((await dashboard.json()) as { code: string }).code]).toEqual([401, "unauthenticated"]);
    const session = await owner.post("/api/deeplinks/open", { url: `${server.url}/x` });
    expect([session.status, session.body.code]).toEqual([401, "invalid_api_key"]);
    const links = await owner.post("/api/keys", { name: "links", scopes: ["links:read"] });
    const wrong = await open({ url: `${server.url}/x` }, ip, links.body.secret);
    expect([wrong.status, wrong.body.code, wrong.body.required_scopes]).toEqual([403, "insufficient_scope", ["deeplinks:open"]]);
  });

  it(`throttles each client address: ${OPENS_PER_MINUTE} asks a minute, then 429 rate_limited with Retry-After`, async () => {
    clock.set(NOW + 7 * 86_400_000);
    const ip = nextAddress();
    for (let i = 0; i < OPENS_PER_MINUTE; i++) expect((await open(IPHONE_FACTS, ip)).status).toBe(200);
    const refused = await open(IPHONE_FACTS, ip);
    expect([refused.status, refused.body.code]).toEqual([429, "rate_limited"]);
    expect(Number(refused.headers.get("retry-after"))).toBe(60);
    expect((await open(IPHONE_FACTS, nextAddress())).status).toBe(200);
    clock.set(NOW + 7 * 86_400_000 + 60_001);
    expect((await open(IPHONE_FACTS, ip)).status).toBe(200);
  });

  it.each([
    ["no form", {}],
    ["two forms", { click_id: "A".repeat(24), url: "https://x.example/a" }],
    ["device facts without platform", { os_version: "17.1" }],
    ["device facts with a click id", { click_id: "A".repeat(24), language: "en" }],
    ["a short click id", { click_id: "A".repeat(23) }],
    ["a long click id", { click_id: "A".repeat(25) }],
    ["a click id outside the alphabet", { click_id: `${"A".repeat(23)}+` }],
    ["a click id of the wrong type", { click_id: 12 }],
    ["an oversized url", { url: `https://x.example/${"a".repeat(2040)}` }],
    ["a url that is not an address", { url: "not a url" }],
    ["a url of another scheme", { url: "javascript:alert(1)" }],
    ["an unknown platform", { platform: "windows" }],
    ["a malformed os version", { platform: "ios", os_version: "17.a" }],
    ["a control character in the model", { platform: "ios", device_model: "iPhone\u0000" }],
    ["an oversized model", { platform: "android", device_model: "P".repeat(65) }],
    ["a malformed language", { platform: "ios", language: "english!" }],
    ["an unknown field", { platform: "ios", ip: "1.2.3.4" }],
    ["a JSON array", [1]],
    ["broken JSON", '{"click_id":'],
  ])("refuses %s: 400 invalid_request, nothing recorded", async (_name, body) => {
    const before = await server.ctx.storage.db
      .selectFrom("app_events")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    const a = await open(body, nextAddress());
    expect([a.status, a.body?.code], a.text).toEqual([400, "invalid_request"]);
    const after = await server.ctx.storage.db
      .selectFrom("app_events")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});
