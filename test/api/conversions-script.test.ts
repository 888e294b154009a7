// GET /_snip/track.js (docs/conversions.md, The script) on every engine: served from any host snip answers, small,
// cacheable, loadable from another site, no cookie of snip's; run in a sandbox page, it keeps the click id in a
// first-party cookie of the page's site for the attribution window and gives it back through window.snip.clickId().
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { withHost } from "../helpers/host.js";

const get = (server: TestServer, path: string, host: string) => withHost(server.url, path, host);

interface Page {
  cookies: string[];
  clickId: () => string | null;
}

/** Runs the script as a page at `href` would, with its tag's attributes and the cookies the page already has. */
function runPage(script: string, href: string, attributes: Record<string, string> = {}, cookie = ""): Page {
  const written: string[] = [];
  const document = {
    currentScript: { getAttribute: (name: string) => attributes[name] ?? null },
    get cookie() {
      return cookie;
    },
    set cookie(v: string) {
      written.push(v);
    },
  };
  const window: { location: URL; snip?: { clickId: () => string | null } } = { location: new URL(href) };
  runInNewContext(script, { window, document, URLSearchParams });
  return { cookies: written, clickId: window.snip!.clickId };
}

const ID = "AbCdEfGhIjKlMnOpQrStUv";

describe.each(ENGINES)("the conversion script on %s", (engine) => {
  let server: TestServer;
  let script: string;

  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("is served from every host: small, cacheable, loadable from another site, without a cookie", async () => {
    const answers = [await get(server, "/_snip/track.js", "127.0.0.1"), await get(server, "/_snip/track.js", "links.other-host.example")];
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.headers["content-type"]).toBe("text/javascript; charset=utf-8");
      expect(a.headers["cache-control"]).toBe("public, max-age=86400");
      expect(a.headers["cross-origin-resource-policy"]).toBe("cross-origin");
      expect(a.headers["set-cookie"]).toBeUndefined();
      expect(a.body).toBe(answers[0]!.body);
    }
    script = answers[0]!.body;
    expect(Buffer.byteLength(script)).toBeLessThan(2048);
    expect(script).not.toMatch(/\bimport\b|\brequire\(|fetch\(|XMLHttpRequest|sendBeacon/);
  });

  it("keeps the click id from the address in a first-party cookie for 90 days and exposes it", () => {
    const page = runPage(script, `https://shop.example.com/landing?utm_source=x&snip_id=${ID}`);
    expect(page.cookies).toEqual([`snip_click_id=${ID}; Max-Age=7776000; Path=/; SameSite=Lax; Secure`]);
    expect(page.clickId()).toBe(ID);
    // A later page of the site, without the parameter: the cookie gives it back.
    const later = runPage(script, "https://shop.example.com/signup", {}, `theme=dark; snip_click_id=${ID}`);
    expect(later.cookies).toEqual([]);
    expect(later.clickId()).toBe(ID);
  });

  it("takes the account's parameter name, window and a parent domain from its tag; refuses values that are no click id", () => {
    const page = runPage(script, `http://shop.example.com/?ref_id=${ID}&snip_id=ignored-but-valid-0000`, {
      "data-param": "ref_id",
      "data-days": "30",
      "data-domain": "example.com",
    });
    expect(page.cookies).toEqual([`snip_click_id=${ID}; Max-Age=2592000; Path=/; SameSite=Lax; Domain=example.com`]);
    for (const bad of ["short", "x".repeat(65), "abc%3Bdef%3Dghijklmnopq", "<script>alert(1)</script>aaaaaa"]) {
      const p = runPage(script, `https://shop.example.com/?snip_id=${bad}`, { "data-days": "-5", "data-domain": "evil.com; path=/x" });
      expect([bad, p.cookies, p.clickId()]).toEqual([bad, [], null]);
    }
    const injected = runPage(script, `https://shop.example.com/?snip_id=${ID}`, { "data-days": "99999", "data-domain": "a.com; Secure=no" });
    expect(injected.cookies).toEqual([`snip_click_id=${ID}; Max-Age=7776000; Path=/; SameSite=Lax; Secure`]);
    expect(runPage(script, "https://shop.example.com/", {}, "snip_click_id=bad;x").clickId()).toBeNull();
  });
});
