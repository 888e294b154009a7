// App destinations and the way out of in-app browsers (docs/deep-links.md) on every engine: the link fields
// checked (hostile and oversized values refused with the fields named), and the redirect's answer with real user
// agents: iPhone Safari and Android Chrome go to the store listing (the Play Store's referrer carrying the click id,
// stored with the link), or the link's iOS/Android address without an app; a desktop to the destination; each in-app
// browser of the table on each system to the intent address (Android) or the page (iOS) when the link says so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { IN_APP } from "../helpers/in-app-agents.js";

const SAFARI = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1";
const CHROME_ANDROID = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36";
const DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36";
/** A click id: a 48-bit time prefix and 96 random bits, base64url (conversions/tracked-clicks.ts). */
const CLICK_ID = /^[A-Za-z0-9_-]{24}$/;
const APP = { app_ios_store_id: "389801252", app_android_package: "com.example.shop", app_path: "/product/42?color=red" };

/** The parts of an intent address (developer.chrome.com/docs/android/intents). */
function parseIntent(location: string): { target: string; extras: Map<string, string> } {
  const m = /^intent:\/\/([^#]*)#Intent;(.*);end$/.exec(location);
  expect(m, location).not.toBeNull();
  const extras = new Map<string, string>();
  for (const part of m![2]!.split(";")) {
    const eq = part.indexOf("=");
    extras.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return { target: m![1]!, extras };
}

describe.each(ENGINES)("app links on %s", (engine) => {
  let server: TestServer;
  let owner: ApiClient;

  async function visit(alias: string, ua: string, query = ""): Promise<{ status: number; location: string; body: string; headers: Headers }> {
    const res = await fetch(`${server.url}/${alias}${query}`, { redirect: "manual", headers: { "user-agent": ua } });
    return { status: res.status, location: res.headers.get("location") ?? "", body: await res.text(), headers: res.headers };
  }
  async function stored(id: string) {
    await server.ctx.clicks.writeBuffered();
    return server.ctx.storage.db.selectFrom("tracked_clicks").selectAll().where("id", "=", id).executeTakeFirst();
  }

  beforeAll(async () => {
    server = await startTestServer({ engine });
    owner = await signedInClient(server, "apps-owner@example.com", "free");
  });
  afterAll(async () => server?.close());

  it("keeps the fields on create, read and edit (every plan), and clears them with null or empty", async () => {
    const link = await createLink(owner, { url: "https://shop.example.com/p", ...APP, app_ios_store_id: "id389801252", open_outside: true });
    const read = (await owner.get(`/api/links/${link.id}`)).body.link;
    expect([read.app_ios_store_id, read.app_android_package, read.app_path, read.open_outside]).toEqual([
      "389801252",
      "com.example.shop",
      "/product/42?color=red",
      true,
    ]);
    const edited = await owner.patch(`/api/links/${link.id}`, { app_ios_store_id: null, app_android_package: "", app_path: "/x", open_outside: null });
    expect(edited.status, edited.text).toBe(200);
    const l = edited.body.link;
    expect([l.app_ios_store_id, l.app_android_package, l.app_path, l.open_outside]).toEqual([null, null, "/x", null]);
    const plain = (await owner.get(`/api/links/${(await createLink(owner, { url: "https://shop.example.com/q" })).id}`)).body.link;
    expect([plain.app_ios_store_id, plain.app_android_package, plain.app_path, plain.open_outside]).toEqual([null, null, null, null]);
  });

  it.each([
    ["app_ios_store_id", "12ab"],
    ["app_ios_store_id", "0123"],
    ["app_ios_store_id", "1".repeat(16)],
    ["app_ios_store_id", "<script>"],
    ["app_android_package", "shop"],
    ["app_android_package", "com.example.shop;end"],
    ["app_android_package", "1com.example"],
    ["app_android_package", `com.${"a".repeat(260)}`],
    ["app_path", "product/42"],
    ["app_path", "/a b"],
    ["app_path", "/a\u0000b"],
    ["app_path", '/"><script>alert(1)</script>'],
    ["app_path", `/${"a".repeat(1024)}`],
  ])("refuses %s = %j with 400 naming the field", async (field, value) => {
    const r = await owner.post("/api/links", { url: "https://shop.example.com/p", [field]: value });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_request");
    // A control character is the input guard's (body.<field>), the rest the link's checks.
    expect(r.body.details).toEqual([{ field: value.includes("\u0000") ? `body.${field}` : field, message: expect.any(String) }]);
  });

  it("refuses oversized and mistyped values at the schema with 400, never 5xx", async () => {
    for (const body of [{ app_path: `/${"a".repeat(3000)}` }, { app_ios_store_id: 123 }, { open_outside: "yes" }, { app_android_package: ["a"] }]) {
      const r = await owner.post("/api/links", { url: "https://shop.example.com/p", ...body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe("invalid_request");
    }
  });

  it("sends iPhone Safari to the App Store, Android Chrome to the Play Store with the click id, a desktop to the destination", async () => {
    const link = await createLink(owner, { url: "https://shop.example.com/p?utm_source=poster", ...APP });
    const ios = await visit(link.alias, SAFARI);
    expect(ios.status).toBe(302);
    expect(ios.location).toBe("https://apps.apple.com/app/id389801252");

    const android = await visit(link.alias, CHROME_ANDROID, "?utm_campaign=spring");
    expect(android.status).toBe(302);
    const play = new URL(android.location);
    expect(`${play.origin}${play.pathname}`).toBe("https://play.google.com/store/apps/details");
    expect(play.searchParams.get("id")).toBe("com.example.shop");
    const referrer = new URLSearchParams(play.searchParams.get("referrer")!);
    const id = referrer.get("snip_click_id")!;
    expect(id).toMatch(CLICK_ID);
    expect([...referrer.keys()]).toEqual(["snip_click_id", "utm_source", "utm_campaign"]);
    expect(referrer.get("utm_source")).toBe("poster");
    expect(referrer.get("utm_campaign")).toBe("spring");
    expect(await stored(id)).toMatchObject({ id, link_id: link.id, destination: "android", device: "mobile" });

    const desktop = await visit(link.alias, DESKTOP);
    expect(desktop.location).toBe("https://shop.example.com/p?utm_source=poster");
    // Store visits are clicks like any other.
    await server.ctx.clicks.flush();
    expect((await owner.get(`/api/links/${link.id}`)).body.link.click_count).toBe(3);
  });

  it("sends a phone without an app for its system to the link's iOS or Android address", async () => {
    const link = await createLink(owner, {
      url: "https://shop.example.com/web",
      ios_url: "https://shop.example.com/ios",
      android_url: "https://shop.example.com/android",
      app_android_package: "com.example.shop",
    });
    expect((await visit(link.alias, SAFARI)).location).toBe("https://shop.example.com/ios");
    expect((await visit(link.alias, CHROME_ANDROID)).location).toMatch(
      /^https:\/\/play\.google\.com\/store\/apps\/details\?id=com\.example\.shop&referrer=snip_click_id%3D/,
    );
    const onlyIos = await createLink(owner, { url: "https://shop.example.com/web", android_url: "https://shop.example.com/android", app_ios_store_id: "1" });
    expect((await visit(onlyIos.alias, CHROME_ANDROID)).location).toBe("https://shop.example.com/android");
    expect((await visit(onlyIos.alias, SAFARI)).location).toBe("https://apps.apple.com/app/id1");
  });

  it("without open_outside, in-app browsers are phones like any other", async () => {
    const link = await createLink(owner, { url: "https://shop.example.com/p", app_ios_store_id: "389801252" });
    for (const [app, os, ua] of IN_APP) {
      const r = await visit(link.alias, ua);
      expect(r.status, app).toBe(302);
      expect(r.location, `${app} ${os}`).toBe(os === "ios" ? "https://apps.apple.com/app/id389801252" : "https://shop.example.com/p");
    }
  });

  it.each(IN_APP.filter(([, os]) => os === "android"))("%s on Android gets a well-formed intent address out", async (app, _os, ua) => {
    const link = await createLink(owner, { url: "https://shop.example.com/p/1?a=1&b=two", app_android_package: "com.example.shop", open_outside: true });
    const r = await visit(link.alias, ua);
    expect(r.status, app).toBe(302);
    const intent = parseIntent(r.location);
    expect(intent.target).toBe("shop.example.com/p/1?a=1&b=two");
    expect([...intent.extras.keys()]).toEqual(["scheme", "package", "S.browser_fallback_url"]);
    expect(intent.extras.get("scheme")).toBe("https");
    expect(intent.extras.get("package")).toBe("com.example.shop");
    const fallback = new URL(decodeURIComponent(intent.extras.get("S.browser_fallback_url")!));
    expect(fallback.searchParams.get("id")).toBe("com.example.shop");
    const id = new URLSearchParams(fallback.searchParams.get("referrer")!).get("snip_click_id")!;
    expect(await stored(id)).toMatchObject({ link_id: link.id });

    // A link without an app: the system picks (the app through its app link, else the browser); the fallback is the destination.
    const plain = await createLink(owner, { url: "https://shop.example.com/p/2", open_outside: true });
    const p = parseIntent((await visit(plain.alias, ua)).location);
    expect(p.target).toBe("shop.example.com/p/2");
    expect([...p.extras.entries()]).toEqual([
      ["scheme", "https"],
      ["S.browser_fallback_url", encodeURIComponent("https://shop.example.com/p/2")],
    ]);
  });

  it.each(IN_APP.filter(([, os]) => os === "ios"))("%s on iOS gets the page with Safari's button, the App Store and the destination", async (app, _os, ua) => {
    const link = await createLink(owner, { url: "https://shop.example.com/p?a=1&b=2", app_ios_store_id: "389801252", open_outside: true });
    const r = await visit(link.alias, ua);
    expect(r.status, app).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(r.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(r.body).not.toContain("<script");
    expect(r.body).toContain('<a class="btn" href="x-safari-https://shop.example.com/p?a=1&amp;b=2">Open in Safari</a>');
    expect(r.body).toContain('<a class="btn" href="https://apps.apple.com/app/id389801252">Open the app</a>');
    expect(r.body).toContain('<a href="https://shop.example.com/p?a=1&amp;b=2">https://shop.example.com/p?a=1&amp;b=2</a>');
  });

  it("escapes a hostile destination on the iOS page", async () => {
    const link = await createLink(owner, { url: `https://shop.example.com/"><img/src=x/onerror=alert(1)>?q='<b>`, open_outside: true });
    const stored = (await owner.get(`/api/links/${link.id}`)).body.link.url as string;
    const r = await visit(link.alias, IN_APP.find(([a, os]) => a === "instagram" && os === "ios")![2]);
    expect(r.status).toBe(200);
    expect(r.body).not.toContain("<img");
    expect(r.body).not.toContain("<b>");
    expect(r.body).not.toContain("Open the app");
    expect(r.body).toContain(
      `href="${stored.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/'/g, "&#39;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}"`,
    );
  });

  it("follows the account's default, which a link's own choice overrides, and counts the page's visit", async () => {
    const ua = IN_APP.find(([a, os]) => a === "tiktok" && os === "ios")![2];
    const inherits = await createLink(owner, { url: "https://shop.example.com/d" });
    const refuses = await createLink(owner, { url: "https://shop.example.com/d", open_outside: false });
    expect((await owner.get("/api/deeplinks/settings")).body).toEqual({ status: "success", settings: { open_outside: false } });
    expect((await visit(inherits.alias, ua)).status).toBe(302);
    const set = await owner.patch("/api/deeplinks/settings", { open_outside: true });
    expect(set.body).toEqual({ status: "success", settings: { open_outside: true } });
    expect((await visit(inherits.alias, ua)).status).toBe(200);
    expect((await visit(refuses.alias, ua)).location).toBe("https://shop.example.com/d");
    expect((await visit(inherits.alias, SAFARI)).location).toBe("https://shop.example.com/d");
    expect((await owner.patch("/api/deeplinks/settings", { open_outside: "yes" })).status).toBe(400);
    expect((await owner.patch("/api/deeplinks/settings", { other: true })).status).toBe(400);
    await owner.patch("/api/deeplinks/settings", { open_outside: false });
    await server.ctx.clicks.flush();
    expect((await owner.get(`/api/links/${inherits.id}`)).body.link.click_count).toBe(3);
  });
});
