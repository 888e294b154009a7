// Issue 40's server-side findings on every engine: a verification link opened twice, the import preview and the
// job's failed lines, the external API's accepted fields as docs/external-api.md lists them, the password page's
// referrer, and the links list ordered by clicks or last click within a second of the clicks.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { linkIn, readOutbox, tokenOf } from "../helpers/mail.js";
import { finished } from "../helpers/imports.js";
import { UA, visit } from "../helpers/visit.js";

/** Posts the link-password form as a browser does (urlencoded), with the headers given. */
function postForm(server: TestServer, alias: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/${alias}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": UA.windows, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The fields docs/external-api.md's request table lists, in its order. */
function documentedFields(): string[] {
  const doc = readFileSync(new URL("../../docs/external-api.md", import.meta.url), "utf8");
  const table = doc.slice(doc.indexOf("| field | required | meaning |"));
  const rows = table.split("\n").slice(2);
  return rows
    .slice(
      0,
      rows.findIndex((l) => !l.startsWith("|")),
    )
    .map((l) => /^\| `([a-z_]+)`/.exec(l)![1]!);
}

describe.each(ENGINES)("issue 40 findings on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("2: a verification link opened again answers already_verified to the verified account; other tokens stay refused", async () => {
    const c = new ApiClient(server.url);
    expect((await c.signup("twice@example.com")).status).toBe(201);
    const mail = readOutbox(server.outboxDir).find((m) => m.includes("twice@example.com"))!;
    const token = tokenOf(linkIn(mail, "/app/verify-email?token="));
    const first = await c.post("/api/auth/verify-email", { token });
    expect([first.status, first.body.already_verified, first.body.user.email_verified]).toEqual([200, false, true]);
    // A mail scanner's visit, then the person's click, at once: both 200, one of them the first.
    const [a, b] = await Promise.all([new ApiClient(server.url).init(), new ApiClient(server.url).init()]);
    const again = await Promise.all([a.post("/api/auth/verify-email", { token }), b.post("/api/auth/verify-email", { token })]);
    expect(again.map((r) => [r.status, r.body.already_verified, r.body.user.email])).toEqual([
      [200, true, "twice@example.com"],
      [200, true, "twice@example.com"],
    ]);
    for (const bad of ["x".repeat(43), "short", "y".repeat(600), `${token.slice(0, -2)}zz`]) {
      const r = await a.post("/api/auth/verify-email", { token: bad });
      expect([r.status, r.body.code]).toEqual([400, "invalid_request"]);
    }
    expect((await a.post("/api/auth/verify-email", { token: 42 })).status).toBe(400);
  });

  it("2: a used link of an account that is not verified (its address changed since) is refused", async () => {
    const c = new ApiClient(server.url);
    await c.signup("moved@example.com");
    const token = tokenOf(
      linkIn(
        readOutbox(server.outboxDir).find((m) => m.includes("moved@example.com"))!,
        "/app/verify-email?token=",
      ),
    );
    expect((await c.post("/api/auth/verify-email", { token })).status).toBe(200);
    await server.ctx.storage.db.updateTable("users").set({ email_verified_at: null }).where("email", "=", "moved@example.com").execute();
    const r = await c.post("/api/auth/verify-email", { token });
    expect([r.status, r.body.code]).toEqual([400, "invalid_request"]);
  });

  it("3: the preview fails a line whose destination is not-a-url with its reason; the job lists its failed lines", async () => {
    const c = await signedInClient(server, "importer@example.com", "pro");
    const csv = ["url,alias,title", "https://example.com/ok,f40-ok,Fine", "not-a-url,f40-bad,Broken", "ftp://example.com/x,f40-ftp,Wrong scheme"].join("\n");
    const preview = await c.post("/api/imports/preview", { source: "csv", file: csv });
    expect(preview.body.rows.map((r: { action: string; code: string | null }) => [r.action, r.code])).toEqual([
      ["create", null],
      ["fail", "invalid_request"],
      ["fail", "invalid_request"],
    ]);
    expect(preview.body.rows[1].notes).toEqual([expect.stringMatching(/^url: /)]);
    const start = await c.post("/api/imports", { source: "csv", file: csv });
    const job = await finished(c, start.body.import.id);
    expect(job.counts).toMatchObject({ created: 1, failed: 2 });
    const failed = await c.get(`/api/imports/${job.id}/failed`);
    expect(failed.status).toBe(200);
    expect(failed.body.more).toBe(false);
    expect(failed.body.failed.map((f: { line: number; url: string; alias: string; code: string }) => [f.line, f.url, f.alias, f.code])).toEqual([
      [2, "not-a-url", "f40-bad", "invalid_request"],
      [3, "ftp://example.com/x", "f40-ftp", "invalid_request"],
    ]);
    // The same words as the preview gave.
    expect(failed.body.failed[0].notes).toBe(preview.body.rows[1].notes[0]);
    // Someone else's import, an unknown id and a hostile one.
    const other = await signedInClient(server, "nosy@example.com", "pro");
    expect((await other.get(`/api/imports/${job.id}/failed`)).status).toBe(404);
    expect((await c.get(`/api/imports/${"0".repeat(26)}/failed`)).status).toBe(404);
    expect((await c.get(`/api/imports/${encodeURIComponent("' or 1=1 --")}/failed`)).status).toBeLessThan(500);
    expect((await new ApiClient(server.url).get(`/api/imports/${job.id}/failed`)).status).toBe(401);
  });

  it("8: the external API takes exactly the fields docs/external-api.md lists and refuses the others by name", async () => {
    const c = await signedInClient(server, "ext40@example.com", "business");
    const { secret } = (await c.post("/api/keys", { name: "docs" })).body;
    const ext = (body: unknown) =>
      fetch(`${server.url}/api/external-create.php`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const doc = await (await fetch(`${server.url}/api/openapi.json`)).json();
    const schema = doc.paths["/api/external-create.php"].post.requestBody.content["application/json"].schema;
    expect(documentedFields().sort()).toEqual(Object.keys(schema.properties).sort());
    const made = await ext({ url: "https://example.com/doc", alias: "f40-doc", title: "Spring", note: "from the shop", tags: ["spring"] });
    expect(made.status).toBe(201);
    const link = (await made.json()).link;
    expect([link.title, link.note, link.tags.map((t: { name: string }) => t.name)]).toEqual(["Spring", "from the shop", ["spring"]]);
    for (const field of ["password", "expires_at", "max_clicks", "domain", "ios_url", "android_url", "owner_id"]) {
      const r = await ext({ url: "https://example.com/refused", [field]: field === "max_clicks" ? 5 : "x" });
      const body = await r.json();
      expect([r.status, body.code, body.details?.[0]?.field], field).toEqual([400, "invalid_request", field]);
    }
  });

  it("9: the password page carries the visit's referrer to the click, not itself", async () => {
    const c = await signedInClient(server, "locked@example.com", "pro");
    const link = (await c.post("/api/links", { url: "https://example.com/secret", alias: "f40-locked", password: "open sesame" })).body.link;
    const page = await fetch(`${server.url}/f40-locked`, { headers: { referer: "https://news.example.org/story" } });
    const html = await page.text();
    expect(html).toContain('<input type="hidden" name="ref" id="ref">');
    const script = await (await fetch(`${server.url}/_snip/password-form.js`)).text();
    expect(script).toContain("r.value=document.referrer.slice(0,2048)");
    // A wrong password keeps the referrer it was given for the next try.
    const wrong = await postForm(server, "f40-locked", { password: "nope", ref: "https://news.example.org/story" }, { referer: `${server.url}/f40-locked` });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('name="ref" id="ref" data-kept value="https://news.example.org/story"');
    const ok = await postForm(
      server,
      "f40-locked",
      { password: "open sesame", ref: "https://news.example.org/story" },
      { referer: `${server.url}/f40-locked` },
    );
    expect([ok.status, ok.headers.get("location")]).toEqual([302, "https://example.com/secret"]);
    // Without the script: the page's own address is no referrer.
    expect((await postForm(server, "f40-locked", { password: "open sesame" }, { referer: `${server.url}/f40-locked` })).status).toBe(302);
    // Another site posting without ref keeps its own.
    expect((await postForm(server, "f40-locked", { password: "open sesame" }, { referer: "https://mail.example.com/inbox" })).status).toBe(302);
    await server.ctx.clicks.flush();
    const stats = await c.get(`/api/links/${link.id}/stats`);
    const refs = (stats.body.referrers as { referrer: string; clicks: number }[]).map((r) => `${r.referrer}:${r.clicks}`).sort();
    expect(refs).toEqual(["direct:1", "mail.example.com:1", "news.example.org:1"]);
    // Hostile posts: an oversized ref, an unknown field.
    expect((await postForm(server, "f40-locked", { password: "open sesame", ref: "r".repeat(2049) })).status).toBe(400);
    expect((await postForm(server, "f40-locked", { password: "open sesame", admin: "1" })).status).toBe(400);
  });

  it("10: the list by clicks and by last click shows a link's new clicks within a second (roll-ups every 5 s)", async () => {
    const c = await signedInClient(server, "sorter@example.com", "pro");
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await c.post("/api/links", { url: `https://example.com/s${n}`, alias: `f40-sort-${n}` })).body.link.id);
    for (let i = 0; i < 2; i++) await visit(server.url, "/f40-sort-1", { "user-agent": UA.windows });
    await server.ctx.clicks.flush();
    const order = async (sort: string) => ((await c.get(`/api/links?sort=${sort}&order=desc`)).body.links as { id: string }[]).map((l) => l.id);
    expect((await order("clicks"))[0]).toBe(ids[0]);
    for (let i = 0; i < 4; i++) await visit(server.url, "/f40-sort-3", { "user-agent": UA.iphone });
    const started = Date.now();
    const [byClicks, byLast] = await Promise.all([order("clicks"), order("last_click")]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(byClicks).toEqual([ids[2], ids[0], ids[1]]);
    expect(byLast).toEqual([ids[2], ids[0], ids[1]]);
    // Many lists at once share the writes and agree.
    const many = await Promise.all(Array.from({ length: 12 }, () => order("clicks")));
    expect(new Set(many.map((o) => o.join()))).toEqual(new Set([[ids[2], ids[0], ids[1]].join()]));
  });
});
