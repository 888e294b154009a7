// CSV and JSON imports and the export (docs/import.md), on every engine: mapping rules and plan notes, a
// taken alias skipped or replaced, idempotent re-runs, the report, hostile files, and the round trip of
// an export into another snip.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { finished, importFile, linkByAlias, report } from "../helpers/imports.js";
import { TestDns } from "../helpers/dns.js";

describe.each(ENGINES)("CSV and JSON imports on %s", (engine) => {
  let server: TestServer;
  /** Two other snips: the CSV export goes into one, the JSON export into the other. */
  let others: TestServer[];
  beforeAll(async () => {
    [server, ...others] = await Promise.all([startTestServer({ engine }), startTestServer({ engine }), startTestServer({ engine })]);
  });
  afterAll(async () => {
    await Promise.all([server, ...others].map((s) => s?.close()));
  });

  it("imports a CSV: fields, tags, totals; a taken alias skipped, then given a generated one; a re-run skips everything", async () => {
    const taker = await signedInClient(server, "taker@example.com", "pro");
    expect((await taker.post("/api/links", { url: "https://example.com/mine", alias: "taken-one" })).status).toBe(201);
    const c = await signedInClient(server, "csv-pro@example.com", "pro");
    const csv = [
      "Long URL,slug,title,tags,expires_at,max_clicks,clicks,colour",
      'https://example.com/a,imp-a,First,"news, promo",2099-01-01T00:00:00Z,50,12,red',
      "https://example.com/b,taken-one,Second,,,,,",
      "not a url,imp-c,Third,,,,,",
      "https://example.com/d,,No alias,,,,,",
    ].join("\r\n");
    const preview = await c.post("/api/imports/preview", { source: "csv", file: csv });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.total).toBe(4);
    // The preview runs the job's checks: the line the job fails is shown failing, with its code and words.
    expect(preview.body.rows.map((r: { action: string }) => r.action)).toEqual(["create", "skip", "fail", "create"]);
    expect(preview.body.rows[2]).toMatchObject({ code: "invalid_request", short_url: null });
    expect(preview.body.rows[2].notes).toEqual([expect.stringMatching(/^url: /)]);
    expect(preview.body.rows[0]).toMatchObject({
      alias: "imp-a",
      short_url: `${server.url}/imp-a`,
      tags: ["news", "promo"],
      notes: ["columns not read: colour"],
    });
    expect(preview.body.rows[1]).toMatchObject({ code: "alias_taken", short_url: null });

    const job = await importFile(c, csv);
    expect(job).toMatchObject({ state: "done", total: 4, counts: { read: 4, created: 2, skipped: 1, failed: 1, visits: 0 }, error: null });
    const a = await linkByAlias(c, "imp-a");
    expect(a).toMatchObject({
      url: "https://example.com/a",
      title: "First",
      max_clicks: 50,
      expires_at: "2099-01-01T00:00:00.000Z",
      imported_clicks: 12,
      click_count: 0,
    });
    expect(a!.tags.map((t: { name: string }) => t.name)).toEqual(["news", "promo"]);
    const lines = await report(c, job.id);
    expect(lines.map((l) => [l.line, l.status, l.code])).toEqual([
      ["1", "created", ""],
      ["2", "skipped", "alias_taken"],
      ["3", "failed", "invalid_request"],
      ["4", "created", ""],
    ]);
    expect(lines[0]!.short_url).toBe(`${server.url}/imp-a`);
    expect(lines[2]!.notes).toMatch(/^url: /);

    const generated = await importFile(c, csv, "generate");
    expect(generated.counts).toEqual({ read: 4, created: 1, skipped: 2, failed: 1, visits: 0 });
    const again = await report(c, generated.id);
    expect(again.map((l) => l.code)).toEqual(["already_imported", "", "invalid_request", "already_imported"]);
    expect(again[1]!.notes).toMatch(/^alias "taken-one" taken: given "[A-Za-z0-9]+"$/);
    expect((await linkByAlias(taker, "taken-one"))!.url).toBe("https://example.com/mine");

    const third = await importFile(c, csv, "generate");
    expect(third.counts).toEqual({ read: 4, created: 0, skipped: 3, failed: 1, visits: 0 });
    expect((await c.get("/api/links?limit=100")).body.total).toBe(3);
  });

  it("a link already in the account with the same alias and destination (a run killed between creating and remembering it) is taken as imported, not duplicated", async () => {
    const c = await signedInClient(server, "csv-adopt@example.com", "pro");
    expect((await c.post("/api/links", { url: "https://example.com/adopt", alias: "adopt-me" })).status).toBe(201);
    const csv = "url,alias\nhttps://example.com/adopt,adopt-me\nhttps://example.com/other,adopt-me\n";
    const job = await importFile(c, csv, "generate");
    expect(job.counts).toMatchObject({ read: 2, created: 1, skipped: 1, failed: 0 });
    const lines = await report(c, job.id);
    expect(lines[0]).toMatchObject({ status: "skipped", code: "already_imported", short_url: `${server.url}/adopt-me` });
    expect(lines[1]!.notes).toMatch(/^alias "adopt-me" taken: given "[A-Za-z0-9]+"$/);
    const again = await importFile(c, csv, "generate");
    expect(again.counts).toMatchObject({ created: 0, skipped: 2 });
  });

  it("a failed import left alone for 30 days loses its file (and token): resume is then refused", async () => {
    const c = await signedInClient(server, "csv-abandoned@example.com", "pro");
    const failed = await importFile(c, "name\nx\n");
    expect(failed.state).toBe("failed");
    const db = server.ctx.storage.db;
    const fileOf = async () => (await db.selectFrom("import_jobs").select("file").where("id", "=", failed.id).executeTakeFirstOrThrow()).file;
    expect(await fileOf()).toBe("name\nx\n");
    expect(await server.ctx.imports.jobs.forgetAbandoned()).toBe(0);
    await db
      .updateTable("import_jobs")
      .set({ updated_at: Date.now() - 31 * 86_400_000 })
      .where("id", "=", failed.id)
      .execute();
    expect(await server.ctx.imports.jobs.forgetAbandoned()).toBe(1);
    expect(await fileOf()).toBeNull();
    const resumed = await c.post(`/api/imports/${failed.id}/resume`);
    expect(resumed.status).toBe(409);
    expect(resumed.body.code).toBe("conflict");
  });

  it("drops what the plan does not allow, with a note on the line", async () => {
    const c = await signedInClient(server, "csv-free@example.com", "free");
    const csv = "url,alias,expires_at,max_clicks,expired_url\nhttps://example.com/f,free-1,2099-01-01,5,https://example.com/gone\n";
    const job = await importFile(c, csv);
    expect(job.counts).toMatchObject({ created: 1, failed: 0 });
    const [line] = await report(c, job.id);
    expect(line!.notes).toBe(
      "expiry 2099-01-01 dropped: link expiration needs the Pro plan; click limit 5 dropped: a maximum number of clicks needs the Pro plan; fallback URL dropped: it needs the Pro plan",
    );
    expect(await linkByAlias(c, "free-1")).toMatchObject({ expires_at: null, max_clicks: null, expired_url: null });
  });

  it("hostile files: formula cells stay text, a huge line fails alone, a stray quote is read, a file that is not UTF-8 or not CSV is refused", async () => {
    const c = await signedInClient(server, "csv-hostile@example.com", "pro");
    const huge = `https://example.com/${"x".repeat(200_000)}`;
    const csv = `url,alias,title\nhttps://example.com/h1,h-one,"=HYPERLINK(""http://evil.example"")"\n${huge},h-two,big\nhttps://example.com/h3,h-three,say "hi"\n`;
    const job = await importFile(c, csv);
    expect(job.counts).toMatchObject({ read: 3, created: 2, failed: 1 });
    expect((await linkByAlias(c, "h-one"))!.title).toBe('=HYPERLINK("http://evil.example")');
    expect((await linkByAlias(c, "h-three"))!.title).toBe('say "hi"');
    const rows = await report(c, job.id);
    expect(rows[1]).toMatchObject({ status: "failed", code: "invalid_request" });
    // The export neutralises formula text ("'=..."); the import reads it back as the text it was.
    const exported = (await c.get("/api/links/export?format=csv")).text;
    expect(exported).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    const latin1 = Buffer.from("url,title\nhttps://example.com/l,caf\xe9\n", "latin1").toString("utf8");
    const bad = await c.post("/api/imports/preview", { source: "csv", file: latin1 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_request", details: [{ field: "file", message: "the file is not UTF-8 text (save it as CSV UTF-8)" }] });
    const noUrl = await c.post("/api/imports", { source: "csv", file: "name,alias\nx,y\n" });
    expect(noUrl.status).toBe(201);
    const failed = await finished(c, noUrl.body.import.id);
    expect(failed).toMatchObject({ state: "failed", error: 'the header row names no "url" column (or long_url, destination)' });
    const noFile = await c.post("/api/imports", { source: "csv" });
    expect(noFile.status).toBe(400);
    expect(noFile.body.details).toEqual([{ field: "file", message: "Choose a CSV or JSON file" }]);
  });

  it("exports every link with its fields, tags and totals; the CSV and the JSON import into another snip give the same links", async () => {
    const c = await signedInClient(server, "exporter@example.com", "business");
    const made = [
      {
        url: "https://example.com/e1",
        alias: "exp-one",
        title: "One, with comma",
        note: "line 1\nline 2",
        tags: ["alpha", "beta"],
        max_clicks: 9,
        password: "open sesame 1",
      },
      {
        url: "https://example.com/e2",
        alias: "exp-two",
        expires_at: "2098-05-05T10:00:00.000Z",
        ios_url: "https://apps.example/ios",
        expired_url: "https://example.com/over",
        archived: true,
        starts_at: "2097-01-02T03:04:05.000Z",
        redirect_status: 308,
        crawlable: true,
      },
      { url: "https://example.com/e3", alias: "exp-three", title: "+cmd", rules: [{ if: { country: ["FR"] }, url: "https://example.fr/" }] },
    ];
    for (const body of made) expect((await c.post("/api/links", body)).status, JSON.stringify(body)).toBe(201);
    const csv = await c.get("/api/links/export?format=csv");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="snip-links-\d{4}-\d{2}-\d{2}\.csv"$/);
    const json = await c.get("/api/links/export?format=json");
    expect(json.body.links.map((l: { alias: string }) => l.alias)).toEqual(["exp-one", "exp-two", "exp-three"]);
    expect(json.body.links[0]).toMatchObject({ tags: ["alpha", "beta"], click_count: 0, imported_clicks: 0 });
    expect(json.body.links[0].password_hash).toMatch(/^\$argon2id\$/);

    const fields = (l: Record<string, any>) => {
      const { id: _id, short_url: _s, created_at: _c, updated_at: _u, updated_by: _b, updated_by_email: _e, owner_id: _o, ...rest } = l;
      return { ...rest, tags: l.tags.map((t: { name: string }) => t.name) };
    };
    const original = (await c.get("/api/links?limit=100&state=archived")).body.links.concat((await c.get("/api/links?limit=100")).body.links);
    for (const [i, file] of [csv.text, json.text].entries()) {
      const other = others[i]!;
      const d = await signedInClient(other, "importer@example.com", "business");
      const job = await importFile(d, file);
      expect(job.counts).toMatchObject({ read: 3, created: 3, failed: 0 });
      for (const o of original) {
        const copy = await linkByAlias(d, o.alias);
        expect(fields(copy!)).toEqual(fields(o));
        expect(copy!.created_at).toBe(o.created_at);
      }
      // The password hash came along: the same password opens the copy.
      const unlock = (password: string) =>
        fetch(`${other.url}/exp-one`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ password }).toString(),
        });
      expect((await unlock("wrong password 1")).status).toBe(401);
      const opened = await unlock("open sesame 1");
      expect(opened.status).toBe(302);
      expect(opened.headers.get("location")).toBe("https://example.com/e1");
    }
  });
});

describe.each(ENGINES)("import onto a verified custom domain on %s", (engine) => {
  let dns: TestDns;
  let server: TestServer;
  beforeAll(async () => {
    dns = await TestDns.start();
    server = await startTestServer({ engine, env: { DNS_SERVERS: dns.address, CNAME_TARGET: "cname.snip.example" } });
  });
  afterAll(async () => {
    await server?.close();
    await dns?.close();
  });

  it("keeps a link's alias on the owner's verified domain of the same name; another's domain or a pending one gives the main host, noted", async () => {
    const c = await signedInClient(server, "domains-import@example.com", "business");
    const add = async (hostname: string) => (await c.post("/api/domains", { hostname })).body.domain;
    const mine = await add("go.brand.example");
    dns.serve(mine);
    expect((await c.post(`/api/domains/${mine.id}/verify`)).body.domain.status).toBe("verified");
    await add("pending.brand.example");
    const csv = [
      "short_url,url",
      "https://go.brand.example/spring,https://example.com/spring",
      "https://pending.brand.example/autumn,https://example.com/autumn",
      "https://bit.ly/winter,https://example.com/winter",
    ].join("\n");
    const job = await importFile(c, csv);
    expect(job.counts).toMatchObject({ created: 3, failed: 0 });
    const lines = await report(c, job.id);
    const host = new URL(server.url).host;
    expect(lines.map((l) => [l.short_url, l.notes])).toEqual([
      ["http://go.brand.example/spring", ""],
      [`http://${host}/autumn`, `was on pending.brand.example, not a verified domain of this account: created on ${new URL(server.url).hostname}`],
      [`http://${host}/winter`, `was on bit.ly, not a verified domain of this account: created on ${new URL(server.url).hostname}`],
    ]);
    expect((await linkByAlias(c, "spring"))!.domain).toBe("go.brand.example");
  });
});

describe.each(ENGINES)("the export with an API key on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("GET /api/external-export: the key's account's links (Business and above); no key, a key in the query or a lower plan refused", async () => {
    const c = await signedInClient(server, "ext-export@example.com", "business");
    expect((await c.post("/api/links", { url: "https://example.com/ext", alias: "ext-one", tags: ["x"] })).status).toBe(201);
    const secret = (await c.post("/api/keys", { name: "backup", scopes: ["export"] })).body.secret as string;
    const json = await fetch(`${server.url}/api/external-export?format=json`, { headers: { authorization: `Bearer ${secret}` } });
    expect(json.status).toBe(200);
    expect(json.headers.get("cache-control")).toBe("private, no-store");
    const links = ((await json.json()) as { links: Record<string, unknown>[] }).links;
    expect(links.map((l) => [l.alias, l.url, l.tags])).toEqual([["ext-one", "https://example.com/ext", ["x"]]]);
    const csv = await fetch(`${server.url}/api/external-export`, { headers: { authorization: `Bearer ${secret}` } });
    expect((await csv.text()).split("\r\n")[0]).toBe(
      "id,short_url,domain,alias,url,title,note,tags,created_at,expires_at,max_clicks,password_hash,ios_url,android_url,archived,expired_url,preview_title,preview_description,preview_image,rules,split,click_count,imported_clicks,starts_at,redirect_status,crawlable",
    );

    const none = await fetch(`${server.url}/api/external-export`);
    expect(none.status).toBe(401);
    const inQuery = await fetch(`${server.url}/api/external-export?key=${secret}`, { headers: { authorization: `Bearer ${secret}` } });
    expect(inQuery.status).toBe(400);
    const wrong = await fetch(`${server.url}/api/external-export`, { headers: { authorization: "Bearer snip_wrong" } });
    expect(wrong.status).toBe(401);
    await server.ctx.storage.db.updateTable("users").set({ plan: "pro" }).where("email", "=", "ext-export@example.com").execute();
    const pro = await fetch(`${server.url}/api/external-export`, { headers: { authorization: `Bearer ${secret}` } });
    expect(pro.status).toBe(403);
    expect(((await pro.json()) as { code: string }).code).toBe("plan_required");
  });
});
