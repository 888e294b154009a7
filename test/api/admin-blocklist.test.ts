// The console's destination blocklist (docs/operator.md, Destination blocklist) on SQLite and PostgreSQL:
// add, list, search, page and remove hosts with their audit entries; hostile input; refusals at creation,
// edit, bulk and the external API; links already pointing there answer 410 at once (cached, fast path
// included) and redirect again when unblocked; across two instances on one PostgreSQL database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { UA } from "../helpers/visit.js";
import { within } from "../helpers/wait.js";

/** A signed-in operator (the admin flag set directly, as `snip user admin` would). */
async function operatorClient(server: TestServer, email: string): Promise<ApiClient> {
  const c = await signedInClient(server, email, "business");
  await server.ctx.storage.db.updateTable("users").set({ is_admin: 1 }).where("email", "=", email).execute();
  return c;
}

/** Status, Location and JSON error code of a short link visit. */
async function open(base: string, alias: string, json = false): Promise<{ status: number; location: string | null; code: string | null; text: string }> {
  const res = await fetch(`${base}/${alias}`, { redirect: "manual", headers: { "user-agent": UA.windows, ...(json ? { accept: "application/json" } : {}) } });
  const text = await res.text();
  let code: string | null = null;
  try {
    code = (JSON.parse(text) as { code?: string }).code ?? null;
  } catch {
    /* an HTML page */
  }
  return { status: res.status, location: res.headers.get("location"), code, text };
}

describe.each(ENGINES)("destination blocklist on %s", (engine) => {
  let server: TestServer;
  let ops: ApiClient;
  let user: ApiClient;

  beforeAll(async () => {
    server = await startTestServer({ engine });
    ops = await operatorClient(server, "ops@example.com");
    user = await signedInClient(server, "user@example.com", "business");
  });
  afterAll(async () => server?.close());

  const block = async (host: string, note?: string) => {
    const r = await ops.post("/api/admin/blocklist", note === undefined ? { host } : { host, note });
    expect(r.status, r.text).toBe(201);
    return r.body.host;
  };
  const unblock = async (host: string) => {
    const r = await ops.delete(`/api/admin/blocklist/${encodeURIComponent(host)}`);
    expect(r.status, r.text).toBe(200);
  };

  it("is for operators only: signed out 401, a plain account 403", async () => {
    const anon = await new ApiClient(server.url).init();
    expect((await anon.get("/api/admin/blocklist")).status).toBe(401);
    expect((await anon.post("/api/admin/blocklist", { host: "x.example" })).status).toBe(401);
    expect((await user.get("/api/admin/blocklist")).status).toBe(403);
    expect((await user.post("/api/admin/blocklist", { host: "x.example" })).status).toBe(403);
    expect((await user.delete("/api/admin/blocklist/x.example")).status).toBe(403);
  });

  it("adds a host (lowercased, IDN to punycode, a URL's host), lists it with who added it, refuses a duplicate with 409", async () => {
    const added = await block("  Phish.Example.COM. ", "kit seen in reports");
    expect(added).toMatchObject({ host: "phish.example.com", note: "kit seen in reports", source: "console", created_by_email: "ops@example.com" });
    expect(new Date(added.created_at).toISOString()).toBe(added.created_at);
    expect((await block("https://Bücher.example/login?x=1")).host).toBe("xn--bcher-kva.example");
    expect((await block("*.wild.example")).host).toBe("wild.example");

    const dup = await ops.post("/api/admin/blocklist", { host: "PHISH.example.com" });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("conflict");
    expect((await ops.post("/api/admin/blocklist", { host: "http://phish.example.com/other" })).status).toBe(409);

    const list = await ops.get("/api/admin/blocklist");
    expect(list.status).toBe(200);
    expect(list.body.hosts.map((h: { host: string }) => h.host)).toEqual(
      expect.arrayContaining(["phish.example.com", "xn--bcher-kva.example", "wild.example"]),
    );
    expect(list.body.file).toEqual({ path: null, hosts: 0, skipped_lines: 0, loaded_at: null, error: null });
    expect(server.ctx.blocklist.counts().console).toBe(3);
  });

  it("accepts IP literals (phishing often uses a bare address), refuses what is not a host with 400", async () => {
    expect((await block("203.0.113.7")).host).toBe("203.0.113.7");
    expect((await block("http://198.51.100.9:8080/login")).host).toBe("198.51.100.9");
    expect((await block("[2001:DB8::1]")).host).toBe("[2001:db8::1]");
    for (const host of [
      "",
      "   ",
      "exa mple.com",
      "a\u0000b.example",
      "evil.example\u0000.com",
      "x".repeat(300) + ".com",
      "a..b.example",
      "user@host.example",
      "javascript:alert(1)",
      "http://",
      "ex!ample.com",
    ]) {
      const r = await ops.post("/api/admin/blocklist", { host });
      expect(r.status, JSON.stringify(host)).toBe(400);
      expect(r.body.code).toBe("invalid_request");
    }
    // 10,000 characters: refused by the schema before any parsing.
    expect((await ops.post("/api/admin/blocklist", { host: `${"a".repeat(10_000)}.com` })).status).toBe(400);
    expect((await ops.post("/api/admin/blocklist", { host: "ok.example", note: "n".repeat(501) })).status).toBe(400);
    expect((await ops.post("/api/admin/blocklist", { host: "ok.example", note: "bell\u0007" })).status).toBe(400);
    // Unknown fields and wrong types.
    expect((await ops.post("/api/admin/blocklist", { host: "ok.example", source: "file" })).status).toBe(400);
    expect((await ops.post("/api/admin/blocklist", { host: 42 })).status).toBe(400);
    expect((await ops.post("/api/admin/blocklist", {})).status).toBe(400);
    expect((await ops.get("/api/admin/blocklist?limit=0")).status).toBe(400);
    expect((await ops.get("/api/admin/blocklist?evil=1")).status).toBe(400);
    expect((await ops.get("/api/admin/blocklist?cursor=nonsense")).status).toBe(400);
    // Control characters in a path are refused by the input guard; a DELETE of something that is no host is 404.
    expect((await ops.delete("/api/admin/blocklist/a%00b.example")).status).toBe(400);
    expect((await ops.delete("/api/admin/blocklist/exa%20mple.com")).status).toBe(404);
    expect((await ops.get("/api/admin/blocklist?q=ok.example")).body.hosts).toEqual([]);
  });

  it("searches host and note, pages newest first", async () => {
    for (const h of ["page-a.example", "page-b.example", "page-c.example"]) await block(h, "paging");
    const found = await ops.get("/api/admin/blocklist?q=PAGING");
    expect(found.body.hosts.map((h: { host: string }) => h.host).sort()).toEqual(["page-a.example", "page-b.example", "page-c.example"]);
    expect((await ops.get("/api/admin/blocklist?q=phish")).body.hosts.map((h: { host: string }) => h.host)).toEqual(["phish.example.com"]);
    // LIKE characters are literal.
    expect((await ops.get("/api/admin/blocklist?q=%25")).body.hosts).toEqual([]);
    const seen: string[] = [];
    let cursor: string | null = "";
    for (let i = 0; i < 10 && cursor !== null; i++) {
      const r: { body: { hosts: { host: string }[]; next_cursor: string | null } } = await ops.get(
        `/api/admin/blocklist?q=paging&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      seen.push(...r.body.hosts.map((h) => h.host));
      cursor = r.body.next_cursor;
    }
    expect(seen.sort()).toEqual(["page-a.example", "page-b.example", "page-c.example"]);
    const all = (await ops.get("/api/admin/blocklist?limit=100")).body.hosts as { created_at: string }[];
    for (let i = 1; i < all.length; i++) expect(all[i - 1]!.created_at >= all[i]!.created_at).toBe(true);
  });

  it("writes blocklist.add and blocklist.remove to the audit log; removing twice is 404", async () => {
    await block("audited.example", "why");
    await unblock("AUDITED.example");
    expect((await ops.delete("/api/admin/blocklist/audited.example")).status).toBe(404);
    const audit = await ops.get("/api/admin/audit?target=audited.example");
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(["blocklist.remove", "blocklist.add"]);
    const [removed, added] = audit.body.entries;
    expect(added).toMatchObject({
      actor_email: "ops@example.com",
      target_type: "blocklist",
      target_id: "audited.example",
      after: { host: "audited.example", note: "why" },
    });
    expect(removed).toMatchObject({ actor_email: "ops@example.com", before: { host: "audited.example", note: "why" } });
    // The refused duplicate wrote nothing.
    expect((await ops.get("/api/admin/audit?target=phish.example.com")).body.entries).toHaveLength(1);
  });

  it("refuses url, ios_url and android_url on a blocked host or subdomain with 400 destination_blocked naming the field", async () => {
    await block("blocked.example");
    for (const [field, body] of [
      ["url", { url: "https://blocked.example/x" }],
      ["url", { url: "https://deep.sub.BLOCKED.example./x" }],
      ["ios_url", { url: "https://fine.example/", ios_url: "https://app.blocked.example/" }],
      ["android_url", { url: "https://fine.example/", android_url: "http://blocked.example:8080/a" }],
    ] as const) {
      const r = await user.post("/api/links", body);
      expect(r.status, r.text).toBe(400);
      expect(r.body.code).toBe("destination_blocked");
      expect(r.body.details).toEqual([{ field, message: expect.stringContaining("blocked.example") }]);
    }
    // A host merely ending with the same letters is another host.
    expect((await user.post("/api/links", { url: "https://notblocked.example/" })).status).toBe(201);
    // Signed out too.
    const anon = await new ApiClient(server.url).init();
    expect((await anon.post("/api/links", { url: "https://www.blocked.example/" })).body.code).toBe("destination_blocked");
    // An IP literal.
    expect((await user.post("/api/links", { url: "http://203.0.113.7/login" })).body.code).toBe("destination_blocked");
  });

  it("refuses an edit that sets a blocked destination; other edits of the link still work", async () => {
    const made = await user.post("/api/links", { url: "https://fine.example/edit" });
    const id = made.body.link.id;
    for (const body of [{ url: "https://blocked.example/" }, { ios_url: "https://m.blocked.example/" }, { android_url: "https://blocked.example/a" }]) {
      const r = await user.patch(`/api/links/${id}`, body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("destination_blocked");
      expect(r.body.details[0].field).toBe(Object.keys(body)[0]);
    }
    expect((await user.get(`/api/links/${id}`)).body.link.url).toBe("https://fine.example/edit");
    expect((await user.patch(`/api/links/${id}`, { ios_url: "https://ios.fine.example/" })).status).toBe(200);
  });

  it("reports a blocked bulk line with destination_blocked and creates the others", async () => {
    const r = await user.post("/api/links/bulk", { urls: "https://fine.example/1\nhttps://x.blocked.example/2\nhttps://fine.example/3" });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { status: string }) => x.status)).toEqual(["created", "error", "created"]);
    expect(r.body.results[1]).toMatchObject({ line: 2, code: "destination_blocked" });
  });

  it("refuses the external API's creation with 400 destination_blocked", async () => {
    const key = (await user.post("/api/keys", { name: "bl" })).body.secret as string;
    const call = (url: string) =>
      fetch(`${server.url}/api/external-create.php`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ url }),
      });
    const refused = await call("https://blocked.example/ext");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ status: "error", code: "destination_blocked", details: [{ field: "url" }] });
    expect((await call("https://fine.example/ext")).status).toBe(201);
  });

  it("stops an existing link at once (though cached and served by the fast path), answers 410, and redirects again once unblocked", async () => {
    const made = await user.post("/api/links", { url: "https://later.example/page", alias: `bl-later-${engine}` });
    expect(made.status).toBe(201);
    expect(made.body.link.destination_blocked).toBe(false);
    const alias = made.body.link.alias as string;
    expect((await open(server.url, alias)).status).toBe(302);
    // Cached now: the next visit is answered by the fast path. On PostgreSQL the creation's own change
    // notification comes back through LISTEN and may drop the entry just cached: visit until it stays.
    await within(
      2000,
      async () => (await open(server.url, alias), server.ctx.redirects.cache.peek("", alias)),
      (v) => v !== undefined,
    );
    expect(server.ctx.redirects.cache.peek("", alias)).toMatchObject({ blocked: false });
    expect((await open(server.url, alias)).location).toBe("https://later.example/page");

    await block("later.example");
    const json = await open(server.url, alias, true);
    expect(json).toMatchObject({ status: 410, code: "link_blocked" });
    const page = await open(server.url, alias);
    expect(page.status).toBe(410);
    expect(page.text).toContain("blocked");
    expect((await open(server.url, alias)).status).toBe(410);
    expect((await user.get(`/api/links/${made.body.link.id}`)).body.link.destination_blocked).toBe(true);

    await unblock("later.example");
    expect((await open(server.url, alias)).location).toBe("https://later.example/page");
    expect((await user.get(`/api/links/${made.body.link.id}`)).body.link.destination_blocked).toBe(false);
  });

  it("a blocked device destination stops the link too", async () => {
    const made = await user.post("/api/links", { url: "https://web.example/", android_url: "https://apk.device.example/" });
    const alias = made.body.link.alias as string;
    expect((await open(server.url, alias)).status).toBe(302);
    await block("device.example");
    expect((await open(server.url, alias, true)).code).toBe("link_blocked");
    await unblock("device.example");
    expect((await open(server.url, alias)).status).toBe(302);
  });

  it("loads the console's hosts at start and repairs a missed change at its periodic reload", async () => {
    // A row another instance wrote while our notification was lost.
    await server.ctx.storage.db.insertInto("blocked_hosts").values({ host: "missed.example", note: "", created_by: null, created_at: Date.now() }).execute();
    expect(server.ctx.blocklist.match("a.missed.example")).toBeNull();
    await server.ctx.blocklistAdmin.reloadConsole();
    expect(server.ctx.blocklist.match("a.missed.example")).toBe("missed.example");
    const listed = (await ops.get("/api/admin/blocklist?q=missed")).body.hosts;
    expect(listed).toEqual([expect.objectContaining({ host: "missed.example", created_by_email: null })]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("destination blocklist across two instances on one PostgreSQL database", () => {
  let a: TestServer;
  let b: TestServer;
  const SHARED = { SESSION_SECRET: "blocklist-two-instances-".padEnd(48, "x") };

  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres", env: SHARED });
    b = await startTestServer({ databaseUrl: a.databaseUrl, env: SHARED });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("a host blocked on A answers 410 on B within 2 s (B had the link cached); unblocking on A restores B's redirects", async () => {
    const ops = await operatorClient(a, "ops2@example.com");
    const made = await ops.post("/api/links", { url: "https://two.example/x", alias: "bl-two" });
    expect(made.status).toBe(201);
    expect((await open(b.url, "bl-two")).status).toBe(302);
    expect((await open(b.url, "bl-two")).status).toBe(302);
    expect(b.ctx.redirects.cache.peek("", "bl-two")).toBeTruthy();

    const started = Date.now();
    expect((await ops.post("/api/admin/blocklist", { host: "two.example" })).status).toBe(201);
    const blocked = await within(
      2000,
      () => open(b.url, "bl-two"),
      (r) => r.status === 410,
    );
    expect(blocked.status).toBe(410);
    expect(Date.now() - started).toBeLessThan(2000 + 300);
    // B refuses new links there too.
    const onB = new ApiClient(b.url);
    onB.cookie = ops.cookie;
    onB.csrf = ops.csrf;
    expect((await onB.post("/api/links", { url: "https://two.example/y" })).body.code).toBe("destination_blocked");

    expect((await ops.delete("/api/admin/blocklist/two.example")).status).toBe(200);
    const back = await within(
      2000,
      () => open(b.url, "bl-two"),
      (r) => r.status === 302,
    );
    expect(back.location).toBe("https://two.example/x");
  });
});
