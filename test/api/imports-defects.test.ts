// Issue #37 on every engine, one test per finding of the outside check (docs/import.md): no line of a file
// brings its own argon2 cost, nests the preview into a 500, fails the job as a whole, swallows the lines
// after it, stores what the engine cannot; the blocklist covers the fallback URL; the limit is in bytes;
// the round trip is exact; the preview says what the job will do.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hash } from "@node-rs/argon2";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { importFile, linkByAlias, report } from "../helpers/imports.js";
import { UA } from "../helpers/visit.js";

const preview = async (c: ApiClient, file: string) => {
  const r = await c.post("/api/imports/preview", { source: "csv", file });
  expect(r.status, r.text).toBe(200);
  return r.body.rows as { action: string; code: string | null; notes: string[]; source_id: string }[];
};

async function unlock(base: string, alias: string, password: string): Promise<number> {
  const r = await fetch(`${base}/${alias}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ password }).toString(),
  });
  await r.text();
  return r.status;
}

describe.each(ENGINES)("import defects of issue #37 on %s", (engine) => {
  let server: TestServer;
  let other: TestServer;
  beforeAll(async () => {
    [server, other] = await Promise.all([startTestServer({ engine }), startTestServer({ engine })]);
  });
  afterAll(async () => {
    await Promise.all([server, other].map((s) => s?.close()));
  });

  it("1. a password_hash with other argon2 parameters is not adopted, and verify refuses a stored one", async () => {
    const c = await signedInClient(server, "hash@example.com", "pro");
    // t=300 as the outside check used (6.5 s a guess); only its text is needed, never its computation.
    const costly = "$argon2id$v=19$m=19456,t=300,p=1$c29tZXNhbHRzb21lc2FsdA$Vm2Q0YqVwbq6Yk4m7bq1cQkqVw7Xo7n1m0XoQ4cYlZ8";
    const job = await importFile(c, `url,alias,password_hash\nhttps://example.com/p1,costly-one,${costly}\n`);
    expect(job.counts).toMatchObject({ read: 1, created: 1, failed: 0 });
    expect((await report(c, job.id))[0]!.notes).toBe(
      "password_hash is not a hash with snip's own argon2id parameters (m=19456, t=2, p=1): the link is imported without a password",
    );
    expect((await linkByAlias(c, "costly-one"))!.has_password).toBe(false);

    // A row holding another cost (written by hand, or by an older import): its password never opens, at once.
    const link = await linkByAlias(c, "costly-one");
    const t3 = await hash("open sesame", { algorithm: 2, memoryCost: 19_456, timeCost: 3, parallelism: 1 });
    await server.ctx.storage.db.updateTable("links").set({ password_hash: t3 }).where("id", "=", link!.id).execute();
    expect(await unlock(server.url, "costly-one", "open sesame")).toBe(401);
  });

  it("2. a JSON row nested 20,000 deep fails alone: the preview answers 200, the job creates the others", async () => {
    const c = await signedInClient(server, "deep@example.com", "business");
    const deep = `${"[".repeat(20_000)}"https://example.com/x"${"]".repeat(20_000)}`;
    const file = `{"links":[{"url":"https://example.com/d1","alias":"deep-one"},{"url":${deep},"alias":"deep-two"},{"url":"https://example.com/d3","alias":"deep-three","rules":${deep}}]}`;
    const rows = await preview(c, file);
    expect(rows.map((r) => [r.action, r.code])).toEqual([
      ["create", null],
      ["fail", "invalid_request"],
      ["fail", "invalid_request"],
    ]);
    expect(rows[1]!.notes).toEqual(["nested deeper than 32 levels"]);
    const job = await importFile(c, file);
    expect(job).toMatchObject({ state: "done", error: null, counts: { read: 3, created: 1, failed: 2 } });
  });

  it("3 and 7. a malformed rule or an unknown condition fails its line with the API's words; the lines after it are imported", async () => {
    const c = await signedInClient(server, "rules@example.com", "business");
    const file = JSON.stringify([
      { url: "https://example.com/r1", alias: "rule-bad", rules: [{ if: { after: 5 }, url: "https://example.com/after" }] },
      { url: "https://example.com/r2", alias: "rule-bogus", rules: [{ if: { bogus: ["x"] }, url: "https://example.com/any" }] },
      { url: "https://example.com/r3", alias: "rule-good", rules: [{ if: { country: ["FR"] }, url: "https://example.fr/" }] },
    ]);
    const rows = await preview(c, file);
    expect(rows.map((r) => [r.action, r.code, r.notes])).toEqual([
      ["fail", "invalid_request", ["rules[0].if.after: must be string"]],
      ["fail", "invalid_request", ["rules[0].if.bogus: is not a known field"]],
      ["create", null, []],
    ]);
    const job = await importFile(c, file);
    expect(job).toMatchObject({ state: "done", error: null, counts: { read: 3, created: 1, failed: 2 } });
    expect((await report(c, job.id)).map((l) => [l.status, l.code, l.notes])).toEqual([
      ["failed", "invalid_request", "rules[0].if.after: must be string"],
      ["failed", "invalid_request", "rules[0].if.bogus: is not a known field"],
      ["created", "", ""],
    ]);
    expect((await linkByAlias(c, "rule-good"))!.rules).toEqual([{ if: { country: ["FR"] }, url: "https://example.fr/" }]);
    expect(await linkByAlias(c, "rule-bogus")).toBeUndefined();
  });

  it("4. an unclosed quote fails its own line; every later line is read and reported under its true line number", async () => {
    const c = await signedInClient(server, "quote@example.com", "pro");
    const csv =
      'url,alias,title\nhttps://example.com/q1,quote-one,One\nhttps://example.com/q2,quote-two,"never closed\nhttps://example.com/q3,quote-three,Three\nhttps://example.com/q4,quote-four,Four\n';
    const rows = await preview(c, csv);
    expect(rows.map((r) => [r.source_id, r.action, r.code])).toEqual([
      ["line:2", "create", null],
      ["line:3", "fail", "invalid_request"],
      ["line:4", "create", null],
      ["line:5", "create", null],
    ]);
    expect(rows[1]!.notes).toEqual(["unreadable CSV line (a quote opened here is never closed)"]);
    const job = await importFile(c, csv);
    expect(job).toMatchObject({ state: "done", counts: { read: 4, created: 3, skipped: 0, failed: 1 } });
    expect((await report(c, job.id)).map((l) => [l.source_id, l.status])).toEqual([
      ["line:2", "created"],
      ["line:3", "failed"],
      ["line:4", "created"],
      ["line:5", "created"],
    ]);
  });

  it("5. a fallback host blocked after creation: the expired link answers 410 link_blocked and shows destination_blocked", async () => {
    const c = await signedInClient(server, "fallback@example.com", "pro");
    const made = await c.post("/api/links", {
      url: "https://example.com/f",
      alias: "fall-back",
      expires_at: "2099-01-01T00:00:00Z",
      expired_url: "https://fallback.example/over",
    });
    expect(made.status, made.text).toBe(201);
    await server.ctx.storage.db
      .updateTable("links")
      .set({ expires_at: Date.now() - 60_000 })
      .where("id", "=", made.body.link.id)
      .execute();
    const before = await fetch(`${server.url}/fall-back`, { redirect: "manual", headers: { "user-agent": UA.windows } });
    expect([before.status, before.headers.get("location")]).toEqual([302, "https://fallback.example/over"]);
    server.ctx.blocklist.setConsoleHosts(["fallback.example"]);
    try {
      const after = await fetch(`${server.url}/fall-back`, { redirect: "manual", headers: { "user-agent": UA.windows, accept: "application/json" } });
      expect(after.status).toBe(410);
      expect(((await after.json()) as { code: string }).code).toBe("link_blocked");
      expect((await c.get(`/api/links/${made.body.link.id}`)).body.link.destination_blocked).toBe(true);
    } finally {
      server.ctx.blocklist.setConsoleHosts([]);
    }
  });

  it("6. NUL and unpaired surrogates escaped in a JSON file fail their line on both engines; the others are imported", async () => {
    const c = await signedInClient(server, "nul@example.com", "pro");
    const file =
      '[{"url":"https://example.com/n1","alias":"nul\\u0000one"},{"url":"https://example.com/n2","alias":"nul-two","title":"a\\ud800b"},{"url":"https://example.com/n3","alias":"nul-three","tags":["x\\u0000"]},{"url":"https://example.com/n4","alias":"nul-four","title":"fine"}]';
    const rows = await preview(c, file);
    expect(rows.map((r) => [r.action, r.code, r.notes[0]])).toEqual([
      ["fail", "invalid_request", "alias: contains a control character (NUL...) or an unpaired surrogate, which cannot be stored"],
      ["fail", "invalid_request", "title: contains a control character (NUL...) or an unpaired surrogate, which cannot be stored"],
      ["fail", "invalid_request", "tags.0: contains a control character (NUL...) or an unpaired surrogate, which cannot be stored"],
      ["create", null, undefined],
    ]);
    const job = await importFile(c, file);
    expect(job).toMatchObject({ state: "done", counts: { read: 4, created: 1, failed: 3 } });
  });

  it("8. the 20 MB limit counts bytes: 21 MB of two-byte characters is refused", async () => {
    const c = await signedInClient(server, "bytes@example.com", "pro");
    const file = `url,title\nhttps://example.com/b,${"é".repeat(10_500_000)}\n`;
    for (const path of ["/api/imports/preview", "/api/imports"]) {
      const r = await c.post(path, { source: "csv", file });
      expect(r.status, path).toBe(400);
      expect(r.body).toMatchObject({ code: "invalid_request", details: [{ field: "file", message: "the file is larger than 20 MB" }] });
    }
  });

  it("9. the CSV round trip is exact: text starting with ' and a formula sign, tags with commas and pipes, multi-line notes, Unicode", async () => {
    const c = await signedInClient(server, "trip@example.com", "business");
    const made = [
      { url: "https://example.com/t1", alias: "trip-one", title: "'=not a formula", note: "'+also\r\nline 2\nline 3 ✓", tags: ["a, b", "c|d", "[x"] },
      { url: "https://example.com/t2", alias: "trip-two", title: "=SUM(A1)", note: "''@twice", tags: ["ünï", "日本"] },
      { url: "https://example.com/t3", alias: "trip-three", title: "-minus", note: "＝fullwidth" },
    ];
    for (const body of made) expect((await c.post("/api/links", body)).status, JSON.stringify(body)).toBe(201);
    const csv = (await c.get("/api/links/export?format=csv")).text;
    const d = await signedInClient(other, "trip-copy@example.com", "business");
    const job = await importFile(d, csv);
    expect(job.counts).toMatchObject({ read: 3, created: 3, failed: 0 });
    for (const m of made) {
      const copy = await linkByAlias(d, m.alias);
      expect({ title: copy!.title, note: copy!.note, tags: copy!.tags.map((t: { name: string }) => t.name).sort() }).toEqual({
        title: m.title,
        note: m.note,
        tags: [...(m.tags ?? [])].sort(),
      });
    }
  });

  it("10. the preview fails what the job fails, with its code and words: destination, blocklist, plan options kept, the plan's count", async () => {
    const c = await signedInClient(server, "preview@example.com", "free");
    server.ctx.blocklist.setConsoleHosts(["blocked.example"]);
    try {
      const rows = await preview(c, "url,alias\nnot-a-url,pv-one\nhttps://blocked.example/x,pv-two\nhttps://example.com/ok,pv-three\n");
      expect(rows.map((r) => [r.action, r.code])).toEqual([
        ["fail", "invalid_request"],
        ["fail", "destination_blocked"],
        ["create", null],
      ]);
      expect(rows[0]!.notes[0]).toMatch(/^url: /);
      expect(rows[1]!.notes[0]).toMatch(/^url: .*blocked\.example/);
    } finally {
      server.ctx.blocklist.setConsoleHosts([]);
    }
    // 99 of the free plan's 100 links used (the count the creation reads under the owner's lock).
    const first = await c.post("/api/links", { url: "https://example.com/fill" });
    expect(first.status).toBe(201);
    await server.ctx.storage.db.updateTable("link_counts").set({ links: 99 }).where("owner_id", "=", first.body.link.owner_id).execute();
    const full = await preview(c, "url\nhttps://example.com/last\nhttps://example.com/over\n");
    expect(full.map((r) => [r.action, r.code])).toEqual([
      ["create", null],
      ["fail", "limit_reached"],
    ]);
  });
});
