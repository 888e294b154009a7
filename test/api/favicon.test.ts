// The icon: /favicon.svg answers on the main host and on any other Host, whether or not the dashboard is built,
// with the bytes of web/public/favicon.svg; every public page (404, expired, password, report form) names it and
// loads none of the dashboard's scripts.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";
import { FAVICON_SVG } from "../../src/http/pages.js";

const ICON_LINK = '<link rel="icon" type="image/svg+xml" href="/favicon.svg">';

describe.each(ENGINES)("the favicon on %s", (engine) => {
  let server: TestServer;
  let owner: ApiClient;

  beforeAll(async () => {
    // A web directory without a build: the icon does not depend on it.
    server = await startTestServer({ engine, env: { WEB_DIR: "/nonexistent-snip-web" } });
    owner = await signedInClient(server, `icon-${engine}@example.com`, "business");
  });
  afterAll(async () => {
    await server?.close();
  });

  it("is web/public/favicon.svg, served as SVG on any host", async () => {
    expect(FAVICON_SVG).toBe(readFileSync(new URL("../../web/public/favicon.svg", import.meta.url), "utf8").trim());
    for (const host of [undefined, "go.elsewhere.example"]) {
      const r = await fetch(`${server.url}/favicon.svg`, { headers: host ? { host } : {} });
      expect(r.status, host).toBe(200);
      expect(r.headers.get("content-type"), host).toBe("image/svg+xml");
      expect(await r.text(), host).toBe(FAVICON_SVG);
    }
  });

  it("every public page names it", async () => {
    const expired = await owner.post("/api/links", { url: "https://example.com/soon", expires_at: new Date(Date.now() + 60_000).toISOString() });
    const locked = await owner.post("/api/links", { url: "https://example.com/locked", password: "open sesame" });
    expect([expired.status, locked.status]).toEqual([201, 201]);
    await server.ctx.storage.db
      .updateTable("links")
      .set({ expires_at: Date.now() - 1000 })
      .where("alias", "=", expired.body.link.alias)
      .execute();
    const pages = {
      "404": `/no-such-link-${engine}`,
      expired: `/${expired.body.link.alias}`,
      password: `/${locked.body.link.alias}`,
      report: "/report",
    };
    const seen: Record<string, [number, boolean]> = {};
    for (const [name, path] of Object.entries(pages)) {
      const r = await fetch(`${server.url}${path}`, { headers: { accept: "text/html" }, redirect: "manual" });
      const html = await r.text();
      // A public page the server writes carries none of the dashboard's code.
      expect(html, name).not.toContain("/assets/");
      seen[name] = [r.status, html.includes(ICON_LINK)];
    }
    expect(seen).toEqual({ "404": [404, true], expired: [410, true], password: [200, true], report: [200, true] });
  });
});
