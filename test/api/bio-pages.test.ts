// Bio pages (docs/bio-pages.md) on both engines: create, edit and delete; Pro and up; validation and hostile input
// (the owner's text escaped, no script); a slug and an alias never collide, both ways, on the main host and on a
// custom domain, reserved words refused; the page served at /{slug} with its buttons' short URLs, its views counted
// and its buttons' clicks in its statistics; an edit seen at the next request (on a second instance too).
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type TestAccount, testAccount } from "../helpers/team.js";
import { verifiedDomain } from "../helpers/verified-domain.js";
import { MAX_BIO_BLOCKS } from "../../src/contract/bio-pages.js";
import { HTML_CSP } from "../../src/http/pages.js";

/** GETs a path over real HTTP with the Host given: status, headers and body. */
function get(server: TestServer, path: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64)", ...headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe.each(ENGINES)("bio pages on %s", (engine) => {
  let server: TestServer;
  let n = 0;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  const account = (plan = "pro") => testAccount(server, `bio-${engine}-${++n}@example.com`, plan);
  const slug = () => `bio-${engine.slice(0, 2)}-${++n}`;
  async function link(a: TestAccount, extra: Record<string, unknown> = {}): Promise<{ id: string; alias: string; short_url: string }> {
    const r = await a.client.post("/api/links", { url: `https://example.com/b${++n}`, ...extra });
    if (r.status !== 201) throw new Error(`link: ${r.status} ${r.text}`);
    return r.body.link as { id: string; alias: string; short_url: string };
  }

  it("creates, reads, edits and deletes a page; the public page shows it, escaped, with no script", async () => {
    const a = await account();
    const l = await link(a);
    const s = slug();
    const made = await a.client.post("/api/bio-pages", {
      slug: s,
      title: "Ada <script>alert(1)</script>",
      description: "Maker & writer",
      picture_url: "https://img.example.org/ada.png",
      blocks: [
        { type: "heading", text: "Read <b>me</b>" },
        { type: "link", link_id: l.id, label: `My "site"` },
        { type: "text", text: "line one\nline two" },
        { type: "social", network: "github", url: "https://github.com/ada" },
      ],
    });
    expect(made.status, made.text).toBe(201);
    const page = made.body.page;
    expect(page).toEqual({
      id: expect.any(String),
      slug: s,
      domain_id: null,
      domain: null,
      url: `${server.ctx.config.origin}/${s}`,
      title: "Ada <script>alert(1)</script>",
      description: "Maker & writer",
      picture_url: "https://img.example.org/ada.png",
      theme: "auto",
      colors: null,
      blocks: [
        { type: "heading", text: "Read <b>me</b>" },
        { type: "link", link_id: l.id, label: `My "site"`, short_url: l.short_url, clicks: 0 },
        { type: "text", text: "line one\nline two" },
        { type: "social", network: "github", url: "https://github.com/ada" },
      ],
      views: 0,
      clicks: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await a.client.get("/api/bio-pages")).body.pages.map((p: { id: string }) => p.id)).toEqual([page.id]);

    const r = await get(server, `/${s}`);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(r.headers["content-security-policy"]).toBe(HTML_CSP.replace("img-src 'self'", "img-src 'self' https://img.example.org"));
    expect(r.body).not.toMatch(/<script/i);
    expect(r.body).toContain("<h1>Ada &lt;script&gt;alert(1)&lt;/script&gt;</h1>");
    expect(r.body).toContain("<h2>Read &lt;b&gt;me&lt;/b&gt;</h2>");
    expect(r.body).toContain(`<a class="btn" href="${l.short_url}">My &quot;site&quot;</a>`);
    expect(r.body).toContain(`<meta property="og:title" content="Ada &lt;script&gt;alert(1)&lt;/script&gt;">`);
    expect(r.body).toContain(`<meta property="og:image" content="https://img.example.org/ada.png">`);
    expect(r.body).not.toContain(`name="robots"`);
    // HEAD answers alike, without a body.
    expect((await get(server, `/${s}`, {}, "HEAD")).status).toBe(200);

    // An edit is seen at the very next request (the cached page is dropped).
    const edited = await a.client.patch(`/api/bio-pages/${page.id}`, { title: "Ada L.", theme: "dark" });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.page).toMatchObject({ title: "Ada L.", theme: "dark", description: "Maker & writer" });
    const again = await get(server, `/${s}`);
    expect(again.body).toContain("<h1>Ada L.</h1>");
    expect(again.body).toContain(":root{color-scheme:dark}");

    // Renamed: the old address is free, the new one answers.
    const s2 = slug();
    expect((await a.client.patch(`/api/bio-pages/${page.id}`, { slug: s2 })).status).toBe(200);
    expect((await get(server, `/${s}`)).status).toBe(404);
    expect((await get(server, `/${s2}`)).status).toBe(200);

    expect((await a.client.delete(`/api/bio-pages/${page.id}`)).status).toBe(200);
    expect((await get(server, `/${s2}`)).status).toBe(404);
    expect((await a.client.get(`/api/bio-pages/${page.id}`)).status).toBe(404);
  });

  it("is Pro and up: Free answers 403 plan_required with required_plan pro", async () => {
    const a = await account("free");
    const r = await a.client.post("/api/bio-pages", { slug: slug(), title: "Free", blocks: [] });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: "plan_required", required_plan: "pro" });
    expect(await server.ctx.storage.db.selectFrom("bio_pages").select("id").where("title", "=", "Free").execute()).toEqual([]);
  });

  it("refuses bad input with the fields named, and another account's link", async () => {
    const a = await account();
    const b = await account();
    const theirs = await link(b);
    const r = await a.client.post("/api/bio-pages", {
      slug: "no spaces",
      title: " ",
      picture_url: "javascript:alert(1)",
      theme: "custom",
      blocks: [
        { type: "link", link_id: theirs.id, label: "x" },
        { type: "social", network: "x", url: "javascript:alert(1)" },
        { type: "heading", text: "h".repeat(101) },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_request");
    expect(r.body.details.map((d: { field: string }) => d.field).sort()).toEqual(
      ["blocks[0].link_id", "blocks[1].url", "blocks[2].text", "colors", "picture_url", "slug", "title"].sort(),
    );
    const colour = await a.client.post("/api/bio-pages", {
      slug: slug(),
      title: "t",
      theme: "custom",
      colors: { background: "red", text: "#000000", button: "#111111", button_text: "#ffffff" },
      blocks: [],
    });
    expect(colour.status).toBe(400);
    expect((await a.client.post("/api/bio-pages", { slug: slug(), title: "t", blocks: [], extra: 1 })).status).toBe(400);
    const many = Array.from({ length: MAX_BIO_BLOCKS + 1 }, () => ({ type: "heading", text: "h" }));
    expect((await a.client.post("/api/bio-pages", { slug: slug(), title: "t", blocks: many })).status).toBe(400);
    for (const word of ["api", "App", "healthz"]) {
      const reserved = await a.client.post("/api/bio-pages", { slug: word, title: "t", blocks: [] });
      expect(reserved.status, word).toBe(400);
      expect(reserved.body.details).toEqual([{ field: "slug", message: expect.stringContaining("reserved") }]);
    }
    expect((await a.client.get("/api/bio-pages")).body.pages).toEqual([]);
  });

  it("a custom theme's colours reach the page", async () => {
    const a = await account();
    const s = slug();
    const colors = { background: "#102030", text: "#fafafa", button: "#ff8800", button_text: "#000000" };
    const r = await a.client.post("/api/bio-pages", { slug: s, title: "Colours", theme: "custom", colors, blocks: [] });
    expect(r.status, r.text).toBe(201);
    expect(r.body.page.colors).toEqual(colors);
    const html = (await get(server, `/${s}`)).body;
    expect(html).toContain("--bg:#102030;--text:#fafafa;");
    expect(html).toContain("--primary-fill:#ff8800;");
  });

  it("a slug and an alias never collide, both ways, on the main host and on a custom domain", async () => {
    const a = await account("business");
    const other = await account("business");
    const host = `bio-${engine}.example.net`;
    const domainId = `dom-bio-${engine}`;
    await verifiedDomain(server, domainId, a.id, host);
    // A page at an alias in use: 409 alias_taken (another account's link too).
    const l = await link(other);
    const taken = await a.client.post("/api/bio-pages", { slug: l.alias, title: "t", blocks: [] });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: "alias_taken", details: [{ field: "slug" }] });
    // A link at a page's slug: 409 alias_taken, created or renamed; on the other host the address is free.
    const s = slug();
    expect((await a.client.post("/api/bio-pages", { slug: s, title: "main", blocks: [] })).status).toBe(201);
    const clash = await other.client.post("/api/links", { url: "https://example.com/x", alias: s });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe("alias_taken");
    const mine = await link(other);
    const rename = await other.client.patch(`/api/links/${mine.id}`, { alias: s });
    expect(rename.status).toBe(409);
    expect(rename.body.code).toBe("alias_taken");
    expect((await a.client.post("/api/links", { url: "https://example.com/y", alias: s, domain: host })).status).toBe(201);
    // On the custom domain: the page's slug refuses links there, and a link there refuses the slug.
    const s2 = slug();
    const onDomain = await a.client.post("/api/bio-pages", { slug: s2, domain_id: domainId, title: "domain", blocks: [] });
    expect(onDomain.status, onDomain.text).toBe(201);
    expect(onDomain.body.page).toMatchObject({ domain_id: domainId, domain: host, url: `http://${host}/${s2}` });
    expect((await a.client.post("/api/links", { url: "https://example.com/z", alias: s2, domain: host })).body.code).toBe("alias_taken");
    expect((await a.client.post("/api/bio-pages", { slug: s, domain_id: domainId, title: "t", blocks: [] })).body.code).toBe("alias_taken");
    // A second page at the same host and slug: the same 409; another account's domain: 400.
    expect((await other.client.post("/api/bio-pages", { slug: s, title: "t", blocks: [] })).body.code).toBe("alias_taken");
    const foreign = await other.client.post("/api/bio-pages", { slug: slug(), domain_id: domainId, title: "t", blocks: [] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.details).toEqual([{ field: "domain_id", message: expect.any(String) }]);
    // Served on its own host only.
    expect((await get(server, `/${s2}`, { host })).status).toBe(200);
    expect((await get(server, `/${s2}`)).status).toBe(404);
    // Bulk creation refuses the slug as well.
    const bulk = await a.client.post("/api/links/bulk", { urls: "https://example.com/bulk" });
    expect(bulk.status).toBe(200);
  });

  it("counts the page's views and shows its buttons' clicks", async () => {
    const a = await account();
    const l1 = await link(a);
    const l2 = await link(a);
    const s = slug();
    const made = await a.client.post("/api/bio-pages", {
      slug: s,
      title: "Stats",
      blocks: [
        { type: "link", link_id: l1.id, label: "One" },
        { type: "link", link_id: l2.id, label: "Two" },
      ],
    });
    const id = made.body.page.id as string;
    for (let i = 0; i < 3; i++) expect((await get(server, `/${s}`)).status).toBe(200);
    // A button is the link's short URL: a click on it is the link's click.
    for (let i = 0; i < 2; i++) expect((await get(server, `/${l1.alias}`)).status).toBe(302);
    expect((await get(server, `/${l2.alias}`)).status).toBe(302);
    await server.ctx.clicks.writeBuffered();
    const before = (await a.client.get(`/api/bio-pages/${id}`)).body.page;
    expect(before.views).toBe(3);
    expect(before.blocks.map((b: { clicks: number }) => b.clicks)).toEqual([2, 1]);
    expect(before.clicks).toBe(3);
    // Written to the database by the flush; the same figure after it.
    await server.ctx.bioCache.flushViews();
    const row = await server.ctx.storage.db.selectFrom("bio_pages").select("views").where("id", "=", id).executeTakeFirstOrThrow();
    expect(Number(row.views)).toBe(3);
    expect((await a.client.get(`/api/bio-pages/${id}`)).body.page.views).toBe(3);
    // A deleted link's button leaves the page; its block stays, with no address.
    expect((await a.client.delete(`/api/links/${l2.id}`)).status).toBe(200);
    const html = (await get(server, `/${s}`)).body;
    expect(html).toContain(">One</a>");
    expect(html).not.toContain(">Two</a>");
    expect((await a.client.get(`/api/bio-pages/${id}`)).body.page.blocks[1]).toMatchObject({ short_url: null, clicks: 0 });
  });

  it("another account's page is not found; a page's edit reaches a second instance at once", async () => {
    const a = await account();
    const b = await account();
    const s = slug();
    const id = (await a.client.post("/api/bio-pages", { slug: s, title: "First", blocks: [] })).body.page.id as string;
    expect((await b.client.get(`/api/bio-pages/${id}`)).status).toBe(404);
    expect((await b.client.patch(`/api/bio-pages/${id}`, { title: "x" })).status).toBe(404);
    expect((await b.client.delete(`/api/bio-pages/${id}`)).status).toBe(404);
    const second = engine === "postgres" ? await startTestServer({ engine, databaseUrl: server.databaseUrl }) : null;
    try {
      if (second) expect((await get(second, `/${s}`)).body).toContain("<h1>First</h1>");
      expect((await a.client.patch(`/api/bio-pages/${id}`, { title: "Second" })).status).toBe(200);
      if (second) {
        // The change reaches the other instance through LISTEN/NOTIFY: within a moment.
        let body = "";
        for (let i = 0; i < 50 && !body.includes("<h1>Second</h1>"); i++) {
          body = (await get(second, `/${s}`)).body;
          if (!body.includes("<h1>Second</h1>")) await new Promise((r) => setTimeout(r, 20));
        }
        expect(body).toContain("<h1>Second</h1>");
      }
    } finally {
      await second?.close();
    }
  });
});
