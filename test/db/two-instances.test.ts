// Two `snip serve` instances on one PostgreSQL database behave as one service (docs/scaling.md):
// sessions are shared, edits and deletes reach the other instance's link cache (and its redirect
// fast path) within a second through LISTEN/NOTIFY, and clicks served by both are all counted.
// Also proven elsewhere with two instances: the click limit (test/db/click-limit.test.ts, "two
// instances on one PostgreSQL database") and the external API rate limit
// (test/db/external-rate-limit.test.ts, "split across two instances").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { visit, UA } from "../helpers/visit.js";
import { within } from "../helpers/wait.js";

const SHARED = { SESSION_SECRET: "two-instances-secret-".padEnd(48, "x") };

const locationAt = async (url: string) => (await fetch(url, { redirect: "manual", headers: { "user-agent": UA.windows } })).headers.get("location");

describe.skipIf(!process.env.TEST_DATABASE_URL)("two instances on one PostgreSQL database", () => {
  let a: TestServer;
  let b: TestServer;
  let owner: ApiClient;

  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres", env: SHARED });
    b = await startTestServer({ databaseUrl: a.databaseUrl, env: SHARED });
    owner = await signedInClient(a, "two@example.com", "pro");
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("a session created on A works on B: cookie and CSRF token, reads and writes", async () => {
    const onB = new ApiClient(b.url);
    onB.cookie = owner.cookie;
    onB.csrf = owner.csrf;
    const me = await onB.get("/api/auth/session");
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.body)).toContain("two@example.com");
    const created = await onB.post("/api/links", { url: "https://example.com/from-b", alias: "made-on-b" });
    expect(created.status, created.text).toBe(201);
    // A write without the token is still refused on B.
    expect((await onB.post("/api/links", { url: "https://example.com/x" }, { "x-csrf-token": "forged" })).status).toBe(403);
  });

  it("signing out on A ends the session on B", async () => {
    const c = await signedInClient(a, "leaver@example.com", "pro");
    const onB = new ApiClient(b.url);
    onB.cookie = c.cookie;
    onB.csrf = c.csrf;
    expect((await onB.get("/api/links")).status).toBe(200);
    expect((await c.post("/api/auth/logout")).status).toBe(200);
    expect((await onB.get("/api/links")).status).toBe(401);
  });

  it("an edit on A is served by B within a second, though B had the old destination cached", async () => {
    const r = await owner.post("/api/links", { url: "https://example.com/v1", alias: "two-edit" });
    expect(r.status).toBe(201);
    // Twice: the second answer comes from B's cache (the redirect fast path).
    expect(await locationAt(`${b.url}/two-edit`)).toBe("https://example.com/v1");
    expect(await locationAt(`${b.url}/two-edit`)).toBe("https://example.com/v1");
    expect(b.ctx.redirects.cache.peek("", "two-edit")).toBeTruthy();
    const started = Date.now();
    expect((await owner.patch(`/api/links/${r.body.link.id}`, { url: "https://example.com/v2" })).status).toBe(200);
    const seen = await within(
      1000,
      () => locationAt(`${b.url}/two-edit`),
      (l) => l === "https://example.com/v2",
    );
    expect(seen).toBe("https://example.com/v2");
    expect(Date.now() - started).toBeLessThan(1000 + 200);
  });

  it("an edited redirect rule on A answers on B within a second, though B had the old rule cached", async () => {
    const biz = await signedInClient(a, "two-rules@example.com", "business");
    const fromFr = (base: string) =>
      fetch(`${base}/two-rules?src=mail`, { redirect: "manual", headers: { "user-agent": UA.windows } }).then((r) => r.headers.get("location"));
    const r = await biz.post("/api/links", {
      url: "https://example.com/home",
      alias: "two-rules",
      rules: [{ if: { query: { src: "mail" } }, url: "https://example.com/mail-v1" }],
    });
    expect(r.status, r.text).toBe(201);
    expect(await fromFr(b.url)).toBe("https://example.com/mail-v1");
    expect(await fromFr(b.url)).toBe("https://example.com/mail-v1");
    expect(b.ctx.redirects.cache.peek("", "two-rules")).toBeTruthy();
    const edit = await biz.patch(`/api/links/${r.body.link.id}`, { rules: [{ if: { query: { src: "mail" } }, url: "https://example.com/mail-v2" }] });
    expect(edit.status, edit.text).toBe(200);
    // Within a second of the edit's answer.
    expect(
      await within(
        1000,
        () => fromFr(b.url),
        (l) => l === "https://example.com/mail-v2",
      ),
    ).toBe("https://example.com/mail-v2");
  });

  it("a delete on A answers 404 on B within a second", async () => {
    const r = await owner.post("/api/links", { url: "https://example.com/gone", alias: "two-delete" });
    expect(await visit(b.url, "/two-delete", { "user-agent": UA.windows })).toBe(302);
    expect(await visit(b.url, "/two-delete", { "user-agent": UA.windows })).toBe(302);
    expect((await owner.delete(`/api/links/${r.body.link.id}`)).status).toBe(200);
    const status = await within(
      1000,
      () => visit(b.url, "/two-delete", { "user-agent": UA.windows }),
      (s) => s === 404,
    );
    expect(status).toBe(404);
  });

  it("clicks served by both instances are all counted, once", async () => {
    const r = await owner.post("/api/links", { url: "https://example.com/both", alias: "two-clicks" });
    const statuses = await Promise.all(Array.from({ length: 300 }, (_, i) => visit(i % 2 ? a.url : b.url, "/two-clicks", { "user-agent": UA.windows })));
    expect(statuses.every((s) => s === 302)).toBe(true);
    await Promise.all([a.ctx.clicks.flush(), b.ctx.clicks.flush()]);
    const row = await a.ctx.storage.db.selectFrom("links").select("click_count").where("id", "=", r.body.link.id).executeTakeFirstOrThrow();
    expect(Number(row.click_count)).toBe(300);
    const raw = await a.ctx.storage.db
      .selectFrom("clicks")
      .innerJoin("links", "links.num", "clicks.link_num")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("links.id", "=", r.body.link.id)
      .executeTakeFirstOrThrow();
    expect(Number(raw.n)).toBe(300);
    const daily = await a.ctx.storage.db.selectFrom("click_daily").select("clicks").where("link_id", "=", r.body.link.id).execute();
    expect(daily.reduce((s, d) => s + Number(d.clicks), 0)).toBe(300);
  });
});
