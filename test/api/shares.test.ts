// Shared statistics (docs/sharing.md) on both engines: a link's, a tag's and a folder's statistics at an unguessable
// address with exact figures and only the chosen panels; nothing personal; a password throttled per share and
// address; an end date; revocation answering 404 at once, also on a second instance; the owner's checks (Business
// and up, exactly one target, another account's ids refused as unknown, roles, the cap); hostile input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type TestAccount, joinTeam, testAccount } from "../helpers/team.js";
import { UA, visit } from "../helpers/visit.js";
import { ManualClock } from "../../src/shared/clock.js";
import { HTML_CSP } from "../../src/http/pages.js";
import { SHARE_PASSWORD_FAILURES } from "../../src/shares/shares.js";

/** The page's visible words, tags and styles dropped. */
function words(html: string): string {
  return html
    .replace(/<style>[\s\S]*?<\/style>/g, "")
    .replace(/<svg[\s\S]*?<\/svg>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");
}

describe.each(ENGINES)("shared statistics on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let n = 0;
  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    server = await startTestServer({ engine, clock, env: { TRUST_PROXY: "true" } });
  });
  afterAll(async () => server?.close());

  const account = (plan = "business") => testAccount(server, `shares-${engine}-${++n}@example.com`, plan);
  const page = (url: string, init: RequestInit = {}) => fetch(url.replace(/^https?:\/\/[^/]+/, server.url), { redirect: "manual", ...init });
  async function link(a: TestAccount, extra: Record<string, unknown> = {}): Promise<{ id: string; alias: string }> {
    const r = await a.client.post("/api/links", { url: `https://example.com/s${++n}`, ...extra });
    if (r.status !== 201) throw new Error(`link: ${r.status} ${r.text}`);
    return r.body.link as { id: string; alias: string };
  }
  /** `times` visits, then written (statistics are exact within a second; the test does not wait for it). */
  const clicks = async (alias: string, times: number, headers: Record<string, string>) => {
    for (let i = 0; i < times; i++) expect(await visit(server.url, `/${alias}`, headers)).toBe(302);
    await server.ctx.clicks.writeBuffered();
  };

  it("shares a link: exact figures of the chosen panels at an unguessable address, no click counted, nothing personal", async () => {
    const a = await account();
    const l = await link(a);
    await clicks(l.alias, 3, { "user-agent": UA.iphone, "cf-ipcountry": "DE", referer: "https://news.example.org/a?secret=1" });
    await clicks(l.alias, 2, { "user-agent": UA.windows, "cf-ipcountry": "FR", "x-forwarded-for": "203.0.113.9" });
    const made = await a.client.post("/api/shares", { link_id: l.id, panels: ["clicks", "countries", "referrers"] });
    expect(made.status, made.text).toBe(201);
    const { id, url, share } = made.body as { id: string; url: string; share: Record<string, unknown> };
    expect(url).toMatch(new RegExp(`^${server.ctx.config.origin}/share/[A-Za-z0-9_-]{32}$`));
    expect(share).toEqual({
      id,
      url,
      link_id: l.id,
      tag: null,
      folder_id: null,
      name: `${server.ctx.config.origin}/${l.alias}`,
      panels: ["clicks", "countries", "referrers"],
      has_password: false,
      expires_at: null,
      created_at: expect.any(String),
    });
    // Only a hash and a sealed copy of the token are stored.
    const row = await server.ctx.storage.db.selectFrom("shares").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    const token = url.split("/").pop()!;
    expect(JSON.stringify(row)).not.toContain(token);

    const r = await page(url);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-security-policy")).toBe(HTML_CSP);
    expect(r.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    // Other sites are never told the address (the page links only to itself; strict-origin-when-cross-origin).
    expect(r.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    const html = await r.text();
    expect(html).not.toMatch(/<script/i);
    const text = words(html);
    expect(text).toContain("5 Clicks");
    expect(text).toContain("Germany 3");
    expect(text).toContain("France 2");
    expect(text).toContain("news.example.org 3");
    // Panels not chosen, and never the referring page's address, the visitor's address or agent.
    expect(text).not.toContain("Visitors");
    expect(text).not.toContain("Browsers");
    expect(html).not.toContain("secret=1");
    expect(html).not.toContain("203.0.113.9");
    expect(html).not.toContain("iPhone OS");
    // Reading the page counted nothing.
    const stats = await a.client.get(`/api/links/${l.id}/stats?range=30d`);
    expect(stats.body.range_clicks).toBe(5);

    const listed = await a.client.get(`/api/shares?link_id=${l.id}`);
    expect(listed.body).toEqual({ status: "success", shares: [share] });
  });

  it("shares a tag and a folder: their links' figures summed, the top links listed", async () => {
    const a = await account();
    const folder = (await a.client.post("/api/folders", { name: "Client A" })).body.folder.id as string;
    const t1 = await link(a, { tags: ["spring"] });
    const t2 = await link(a, { tags: ["spring"], folder_id: folder });
    const tag = ((await a.client.get("/api/tags")).body.tags as { id: string; name: string }[]).find((t) => t.name === "spring")!.id;
    const other = await link(a);
    await clicks(t1.alias, 2, { "user-agent": UA.android });
    await clicks(t2.alias, 4, { "user-agent": UA.android });
    await clicks(other.alias, 7, { "user-agent": UA.android });
    const byTag = await a.client.post("/api/shares", { tag });
    expect(byTag.status, byTag.text).toBe(201);
    expect(byTag.body.share.name).toBe("spring");
    const tagText = words(await (await page(byTag.body.url)).text());
    expect(tagText).toContain("6 Clicks");
    expect(tagText).toContain(`${server.ctx.config.origin}/${t2.alias} 4`);
    expect(tagText).not.toContain(other.alias);
    const byFolder = await a.client.post("/api/shares", { folder_id: folder });
    expect(byFolder.body.share.name).toBe("Client A");
    expect(words(await (await page(byFolder.body.url)).text())).toContain("4 Clicks");
  });

  it("a password: the form, wrong answers 401 then 429 per address, the right one a cookie that opens the page", async () => {
    const a = await account();
    const l = await link(a);
    const { url } = (await a.client.post("/api/shares", { link_id: l.id, password: "open sesame" })).body as { url: string };
    const first = await page(url);
    expect(first.status).toBe(200);
    const form = await first.text();
    expect(form).toContain('name="password"');
    expect(form).not.toContain("Clicks");
    const post = (password: string, ip: string) =>
      page(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip },
        body: new URLSearchParams({ password }).toString(),
      });
    for (let i = 0; i < SHARE_PASSWORD_FAILURES; i++) expect((await post("wrong", "198.51.100.1")).status).toBe(401);
    const throttled = await post("open sesame", "198.51.100.1");
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another address still gets in with the right password.
    const ok = await post("open sesame", "198.51.100.2");
    expect(ok.status).toBe(303);
    const cookie = ok.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^snip_share=[0-9a-f]{64}; Path=\/share\/[A-Za-z0-9_-]+; Max-Age=43200; HttpOnly; SameSite=Lax$/);
    const opened = await page(url, { headers: { cookie: cookie.split(";")[0]! } });
    expect(words(await opened.text())).toContain("0 Clicks");
    // A forged cookie does not.
    expect(await (await page(url, { headers: { cookie: `snip_share=${"0".repeat(64)}` } })).text()).toContain('name="password"');
  });

  it("an end date and revocation answer 404 at once, on a second instance too", async () => {
    const a = await account();
    const l = await link(a);
    const dated = await a.client.post("/api/shares", { link_id: l.id, expires_at: new Date(clock.now() + 3_600_000).toISOString() });
    expect((await page(dated.body.url)).status).toBe(200);
    clock.advance(3_600_001);
    expect((await page(dated.body.url)).status).toBe(404);

    const second = engine === "postgres" ? await startTestServer({ engine, databaseUrl: server.databaseUrl, clock }) : null;
    try {
      const live = await a.client.post("/api/shares", { link_id: l.id });
      const on = (s: TestServer) => fetch(live.body.url.replace(/^https?:\/\/[^/]+/, s.url));
      expect((await on(server)).status).toBe(200);
      if (second) expect((await on(second)).status).toBe(200);
      expect((await a.client.delete(`/api/shares/${live.body.id}`)).status).toBe(200);
      expect((await on(server)).status).toBe(404);
      if (second) expect((await on(second)).status).toBe(404);
    } finally {
      await second?.close();
    }
  });

  it("refuses what it must: plans, targets, other accounts, roles, bad input; 404 for unknown tokens", async () => {
    const pro = await account("pro");
    const a = await account();
    const b = await account();
    const l = await link(a);
    const bl = await link(b);
    const refused = (await pro.client.post("/api/shares", { link_id: (await link(pro)).id })).body;
    expect(refused).toMatchObject({ code: "plan_required", required_plan: "business" });
    for (const [body, field] of [
      [{}, "link_id"],
      [{ link_id: l.id, tag: "x" }, "link_id"],
      [{ link_id: bl.id }, "link_id"],
      [{ tag: "no-such-tag" }, "tag"],
      [{ folder_id: "no-such-folder" }, "folder_id"],
      [{ link_id: l.id, expires_at: "yesterday" }, "expires_at"],
      [{ link_id: l.id, expires_at: "2001-01-01T00:00:00Z" }, "expires_at"],
      [{ link_id: l.id, password: "" }, "password"],
    ] as const) {
      const r = await a.client.post("/api/shares", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe("invalid_request");
      expect(JSON.stringify(r.body.details ?? r.body)).toContain(field);
    }
    for (const body of [{ link_id: l.id, panels: [] }, { link_id: l.id, panels: ["cities"] }, { link_id: l.id, extra: 1 }, { link_id: 5 }]) {
      expect((await a.client.post("/api/shares", body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(await server.ctx.storage.db.selectFrom("shares").select("id").where("owner_id", "=", a.id).execute()).toEqual([]);
    // Another account's share is not found, neither to delete nor in its list.
    const mine = await a.client.post("/api/shares", { link_id: l.id });
    expect((await b.client.delete(`/api/shares/${mine.body.id}`)).status).toBe(404);
    expect((await b.client.get("/api/shares")).body.shares).toEqual([]);
    // A viewer-less Business team: a member shares the owner's link with ?owner= and sees the owner's list.
    const member = await account("free");
    await joinTeam(server, a, member);
    const byMember = await member.client.post(`/api/shares?owner=${a.id}`, { link_id: l.id });
    expect(byMember.status, byMember.text).toBe(201);
    expect((await member.client.get(`/api/shares?owner=${a.id}`)).body.shares).toHaveLength(2);
    expect((await b.client.get(`/api/shares?owner=${a.id}`)).status).toBe(404);
    const json = await fetch(`${server.url}/share/${"B".repeat(32)}`, { headers: { accept: "application/json" } });
    expect(json.status).toBe(404);
    expect(await json.json()).toEqual({ status: "error", code: "not_found", message: "No statistics are shared at this address" });
    for (const token of ["x", "A".repeat(32), `${"A".repeat(31)}%00`, "../../etc/passwd", "A".repeat(150)]) {
      const r = await fetch(`${server.url}/share/${encodeURIComponent(token)}`);
      expect([404, 400], token).toContain(r.status);
      await r.arrayBuffer();
    }
  });

  it("holds the cap of shares under concurrent creation", async () => {
    const a = await account();
    const l = await link(a);
    const db = server.ctx.storage.db;
    const now = clock.now();
    await db
      .insertInto("shares")
      .values(
        Array.from({ length: 98 }, (_, i) => ({
          id: `cap-${engine}-${i}`,
          owner_id: a.id,
          token_hash: `h-${engine}-${i}-${n}`,
          token_sealed: "v1.x.y.z",
          link_id: l.id,
          tag_id: null,
          folder_id: null,
          password_hash: null,
          expires_at: null,
          panels: '["clicks"]',
          created_by: a.id,
          created_at: now,
        })),
      )
      .execute();
    const results = await Promise.all(Array.from({ length: 5 }, () => a.client.post("/api/shares", { link_id: l.id })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 403, 403, 403]);
    expect(results.find((r) => r.status === 403)?.body.code).toBe("limit_reached");
    const count = await db
      .selectFrom("shares")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("owner_id", "=", a.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(100);
  });
});
