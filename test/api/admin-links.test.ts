// The operator console's links (docs/operator.md, Links) on both engines: search across accounts (text,
// owner, domain, state with the in-memory blocklist and its scan budget), disable (410/451) and enable with
// their audit entries, visitors and owners seeing it at once (the redirect fast path's cache included, and
// on PostgreSQL a second instance), disable-bulk by owner and by host, refusals.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { within } from "../helpers/wait.js";
import { type Account, account, auditRows, operator } from "../helpers/operator.js";
import { SCAN_ROWS } from "../../src/admin/link-moderation.js";

async function visit(server: TestServer, alias: string, accept = "text/html"): Promise<{ status: number; location: string | null; text: string }> {
  const r = await fetch(`${server.url}/${alias}`, { redirect: "manual", headers: { accept } });
  return { status: r.status, location: r.headers.get("location"), text: await r.text() };
}

describe.each(ENGINES)("operator console: links on %s", (engine) => {
  let server: TestServer;
  let ops: Account;
  let n = 0;
  const fresh = (plan = "free") => account(server, `links-${++n}@example.com`, { plan });

  beforeAll(async () => {
    server = await startTestServer({ engine });
    ops = await operator(server, "ops-links@example.com");
  });
  afterAll(async () => server?.close());
  const ids = (r: { body: { links: Array<{ id: string }> } }) => r.body.links.map((l) => l.id);

  it("searches every account: alias or destination, owner email, domain, state; shows owner_email; pages", async () => {
    const a = await fresh();
    const b = await fresh();
    const a1 = await createLink(a.client, { url: "https://example.com/needle-path", alias: `hay-a1-${n}` });
    const b1 = await createLink(b.client, { url: "https://example.org/other", alias: `needle-b1-${n}` });
    const b2 = await createLink(b.client, { url: "https://example.org/nothing", alias: `plain-b2-${n}` });
    const anon = await new ApiClient(server.url).init();
    const signedOut = (await anon.post("/api/links", { url: "https://example.net/anon-needle" })).body.link;
    // A link on a custom domain, written directly (domain verification has tests of its own).
    const now = Date.now();
    await server.ctx.storage.db
      .insertInto("links")
      .values({
        id: `dom${n}link`,
        domain: "go.example",
        alias: "needle-dom",
        url: "https://example.com/dom",
        ios_url: null,
        android_url: null,
        expires_at: null,
        max_clicks: null,
        password_hash: null,
        owner_id: b.id,
        created_at: now,
        updated_at: now,
        updated_by: null,
        disabled_at: null,
        disabled_status: null,
        disabled_reason: null,
      })
      .execute();

    const r = await ops.client.get("/api/admin/links?q=NEEDLE");
    expect(r.status, r.text).toBe(200);
    expect(ids(r)).toEqual([`dom${n}link`, signedOut.id, b1.id, a1.id]);
    expect(r.body.links.map((l: { owner_email: string | null }) => l.owner_email)).toEqual([b.email, null, b.email, a.email]);
    // The link object of docs/api.md plus owner_email.
    expect(r.body.links[3]).toMatchObject({
      id: a1.id,
      alias: a1.alias,
      url: "https://example.com/needle-path",
      disabled: null,
      destination_blocked: false,
      click_count: 0,
      owner_email: a.email,
    });

    expect(ids(await ops.client.get(`/api/admin/links?owner=${encodeURIComponent(b.email.toUpperCase())}`))).toEqual([`dom${n}link`, b2.id, b1.id]);
    expect(ids(await ops.client.get(`/api/admin/links?owner=${encodeURIComponent(b.email)}&domain=go.example`))).toEqual([`dom${n}link`]);
    expect(ids(await ops.client.get(`/api/admin/links?owner=${encodeURIComponent(b.email)}&domain=`))).toEqual([b2.id, b1.id]);
    expect(ids(await ops.client.get("/api/admin/links?q=needle&domain=GO.example."))).toEqual([`dom${n}link`]);

    // Every link once over pages of one.
    const all = ids(await ops.client.get("/api/admin/links?limit=100"));
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { links: Array<{ id: string }>; next_cursor: string | null } } = await ops.client.get(
        `/api/admin/links?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
      );
      paged.push(...page.body.links.map((l) => l.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all);
    expect(all.length).toBeGreaterThanOrEqual(5);
  });

  it("disables (410 by default, 451 on request) at once, through the fast path's cache; the owner sees the reason; audited", async () => {
    const owner = await fresh();
    const link = await createLink(owner.client, { url: "https://example.com/to-disable", alias: `dis-${n}` });
    const fast = vi.spyOn(server.ctx.redirects, "visitCached");
    // Twice: the second answer comes from the cached entry, on the fast path.
    expect((await visit(server, link.alias)).status).toBe(302);
    expect((await visit(server, link.alias)).status).toBe(302);
    expect(fast.mock.results.at(-1)?.value).toBe("https://example.com/to-disable");

    const r = await ops.client.post(`/api/admin/links/${link.id}/disable`, { reason: "  Phishing page  " });
    expect(r.status, r.text).toBe(200);
    expect(r.body.link).toMatchObject({
      id: link.id,
      owner_email: owner.email,
      disabled: { reason: "Phishing page", status: 410, at: expect.stringMatching(/^\d{4}-/) },
    });
    expect(server.ctx.redirects.cache.peek("", link.alias)).toBeUndefined();
    const page = await visit(server, link.alias);
    expect(page.status).toBe(410);
    expect(page.text).toContain("disabled by the operator");
    expect(JSON.parse((await visit(server, link.alias, "application/json")).text)).toMatchObject({ status: "error", code: "link_disabled" });
    // Cached again, disabled: the fast path declines it and the answer stays 410.
    fast.mockClear();
    expect((await visit(server, link.alias)).status).toBe(410);
    expect(fast.mock.results.at(-1)?.value).toBeUndefined();
    fast.mockRestore();

    const [entry] = await auditRows(server, 1);
    expect(entry).toMatchObject({
      actor_id: ops.id,
      actor_email: ops.email,
      action: "link.disable",
      target_type: "link",
      target_id: link.id,
      summary: `main host/${link.alias} disabled (410): Phishing page`,
      before: { disabled: null },
      after: { disabled: { reason: "Phishing page", status: 410 } },
    });

    // The owner sees it in the link and in the list.
    const own = await owner.client.get(`/api/links/${link.id}`);
    expect(own.body.link.disabled).toEqual({ reason: "Phishing page", status: 410, at: r.body.link.disabled.at });
    expect((await owner.client.get("/api/links")).body.links[0]).toMatchObject({ id: link.id, disabled: { reason: "Phishing page", status: 410 } });
    // The owner's edits keep it disabled.
    const edit = await owner.client.patch(`/api/links/${link.id}`, { url: "https://example.com/edited", alias: `dis-moved-${n}` });
    expect(edit.status, edit.text).toBe(200);
    expect(edit.body.link.disabled).toMatchObject({ reason: "Phishing page", status: 410 });
    expect((await visit(server, `dis-moved-${n}`)).status).toBe(410);

    // Disabling again replaces reason and status: 451.
    const legal = await ops.client.post(`/api/admin/links/${link.id}/disable`, { reason: "Court order 12/3", status: 451 });
    expect(legal.body.link.disabled).toMatchObject({ reason: "Court order 12/3", status: 451 });
    const p451 = await visit(server, `dis-moved-${n}`);
    expect(p451.status).toBe(451);
    expect(p451.text).toContain("legal reasons");
    expect((await auditRows(server, 1))[0]).toMatchObject({
      action: "link.disable",
      before: { disabled: { reason: "Phishing page", status: 410 } },
      after: { disabled: { reason: "Court order 12/3", status: 451 } },
    });

    // Enable: redirects again at once; audited; enabling again is 409.
    const en = await ops.client.post(`/api/admin/links/${link.id}/enable`);
    expect(en.status, en.text).toBe(200);
    expect(en.body.link.disabled).toBeNull();
    const back = await visit(server, `dis-moved-${n}`);
    expect([back.status, back.location]).toEqual([302, "https://example.com/edited"]);
    expect((await auditRows(server, 1))[0]).toMatchObject({
      actor_id: ops.id,
      action: "link.enable",
      target_type: "link",
      target_id: link.id,
      summary: `main host/dis-moved-${n} enabled`,
      before: { disabled: { reason: "Court order 12/3", status: 451 } },
      after: { disabled: null },
    });
    const again = await ops.client.post(`/api/admin/links/${link.id}/enable`);
    expect([again.status, again.body.code]).toEqual([409, "conflict"]);
    expect((await owner.client.get(`/api/links/${link.id}`)).body.link.disabled).toBeNull();
  });

  it("state filters: disabled, blocked (destination on the blocklist, any of three), active; blocked links answer 410", async () => {
    const owner = await fresh();
    const plain = await createLink(owner.client, { url: "https://fine.example/x", alias: `st-plain-${n}` });
    const bad = await createLink(owner.client, { url: "https://www.evil-st.example/x", alias: `st-bad-${n}` });
    const badIos = await createLink(owner.client, { url: "https://fine.example/y", alias: `st-ios-${n}` });
    await server.ctx.storage.db.updateTable("links").set({ ios_url: "https://evil-st.example/app" }).where("id", "=", badIos.id).execute();
    const off = await createLink(owner.client, { url: "https://evil-st.example/z", alias: `st-off-${n}` });
    expect((await ops.client.post(`/api/admin/links/${off.id}/disable`, { reason: "x" })).status).toBe(200);
    const q = `owner=${encodeURIComponent(owner.email)}`;

    // An empty blocklist blocks nothing.
    expect(ids(await ops.client.get(`/api/admin/links?${q}&state=blocked`))).toEqual([]);
    expect(ids(await ops.client.get(`/api/admin/links?${q}&state=active`))).toEqual([badIos.id, bad.id, plain.id]);

    server.ctx.blocklist.setConsoleHosts(["evil-st.example"]);
    try {
      expect(ids(await ops.client.get(`/api/admin/links?${q}&state=disabled`))).toEqual([off.id]);
      const blocked = await ops.client.get(`/api/admin/links?${q}&state=blocked`);
      expect(ids(blocked)).toEqual([badIos.id, bad.id]);
      expect(blocked.body.links.every((l: { destination_blocked: boolean }) => l.destination_blocked)).toBe(true);
      expect(ids(await ops.client.get(`/api/admin/links?${q}&state=active`))).toEqual([plain.id]);
      // Paged one by one, each blocked link once.
      const first = await ops.client.get(`/api/admin/links?${q}&state=blocked&limit=1`);
      expect(ids(first)).toEqual([badIos.id]);
      const second = await ops.client.get(`/api/admin/links?${q}&state=blocked&limit=1&cursor=${first.body.next_cursor}`);
      // The scan went on to the end and found no more: no cursor.
      expect([ids(second), second.body.next_cursor]).toEqual([[bad.id], null]);
      expect((await visit(server, bad.alias)).status).toBe(410);
    } finally {
      server.ctx.blocklist.setConsoleHosts([]);
    }
  });

  it("state filters expired and limit_reached in SQL, in the order visitors meet the states (disabled, blocked, expired, limit_reached)", async () => {
    const owner = await fresh("business");
    const make = (alias: string, extra: Record<string, unknown> = {}) =>
      createLink(owner.client, { url: `https://fine.example/${alias}`, alias: `${alias}-${n}`, ...extra });
    const plain = await make("sq-plain");
    const expired = await make("sq-expired");
    const used = await make("sq-used", { max_clicks: 1 });
    const open = await make("sq-open", { max_clicks: 5 });
    const usedExpired = await make("sq-used-expired", { max_clicks: 1 });
    const offExpired = await make("sq-off-expired");
    const blockedExpired = await createLink(owner.client, { url: "https://evil-sq.example/x", alias: `sq-blocked-expired-${n}` });
    const past = Date.now() - 60_000;
    await server.ctx.storage.db.updateTable("links").set({ expires_at: past }).where("id", "in", [expired.id, offExpired.id, blockedExpired.id]).execute();
    await server.ctx.storage.db
      .updateTable("links")
      .set({ expires_at: Date.now() + 86_400_000 })
      .where("id", "=", plain.id)
      .execute();
    for (const l of [used, open, usedExpired]) expect((await visit(server, l.alias)).status).toBe(302);
    expect((await visit(server, used.alias)).status).toBe(403);
    await server.ctx.storage.db.updateTable("links").set({ expires_at: past }).where("id", "=", usedExpired.id).execute();
    expect((await ops.client.post(`/api/admin/links/${offExpired.id}/disable`, { reason: "x" })).status).toBe(200);
    const q = `owner=${encodeURIComponent(owner.email)}`;
    const inState = async (state: string) => {
      const r = await ops.client.get(`/api/admin/links?${q}&state=${state}`);
      expect(r.status, r.text).toBe(200);
      return ids(r);
    };

    expect(await inState("expired")).toEqual([blockedExpired.id, usedExpired.id, expired.id]);
    expect(await inState("limit_reached")).toEqual([used.id]);
    expect(await inState("active")).toEqual([open.id, plain.id]);
    expect(await inState("disabled")).toEqual([offExpired.id]);
    const limited = await ops.client.get(`/api/admin/links?${q}&state=limit_reached`);
    expect(limited.body.links[0]).toMatchObject({ max_clicks: 1, click_count: 1 });
    // Paged one by one, each expired link once.
    const first = await ops.client.get(`/api/admin/links?${q}&state=expired&limit=2`);
    const second = await ops.client.get(`/api/admin/links?${q}&state=expired&limit=2&cursor=${first.body.next_cursor}`);
    expect([ids(first), ids(second), second.body.next_cursor]).toEqual([[blockedExpired.id, usedExpired.id], [expired.id], null]);

    // A blocked destination comes before the expiry.
    server.ctx.blocklist.setConsoleHosts(["evil-sq.example"]);
    try {
      expect(await inState("blocked")).toEqual([blockedExpired.id]);
      expect(await inState("expired")).toEqual([usedExpired.id, expired.id]);
      expect(await inState("limit_reached")).toEqual([used.id]);
      expect(await inState("active")).toEqual([open.id, plain.id]);
    } finally {
      server.ctx.blocklist.setConsoleHosts([]);
    }
  });

  it(`state=blocked looks at ${SCAN_ROWS} links per request at most: a short page with a cursor, and the rest after it`, async () => {
    const owner = await fresh();
    const old = await createLink(owner.client, { url: "https://scan-evil.example/old", alias: `scan-old-${n}` });
    // Older than everything else, then SCAN_ROWS newer links that are not blocked, written directly.
    await server.ctx.storage.db.updateTable("links").set({ created_at: 1_000 }).where("id", "=", old.id).execute();
    const now = Date.now();
    const rows = Array.from({ length: SCAN_ROWS }, (_, i) => ({
      id: `scan${n}x${i}`,
      domain: "",
      alias: `scan-${n}-${i}`,
      url: "https://scan-fine.example/",
      ios_url: null,
      android_url: null,
      expires_at: null,
      max_clicks: null,
      password_hash: null,
      owner_id: owner.id,
      created_at: now - i,
      updated_at: now,
      updated_by: null,
      disabled_at: null,
      disabled_status: null,
      disabled_reason: null,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await server.ctx.storage.db
        .insertInto("links")
        .values(rows.slice(i, i + 500))
        .execute();
    server.ctx.blocklist.setConsoleHosts(["scan-evil.example"]);
    try {
      const q = `owner=${encodeURIComponent(owner.email)}&state=blocked&limit=10`;
      const first = await ops.client.get(`/api/admin/links?${q}`);
      expect(first.status, first.text).toBe(200);
      expect(first.body.links).toEqual([]);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await ops.client.get(`/api/admin/links?${q}&cursor=${first.body.next_cursor}`);
      expect([ids(second), second.body.next_cursor]).toEqual([[old.id], null]);
    } finally {
      server.ctx.blocklist.setConsoleHosts([]);
    }
  });

  it("disable-bulk by owner: every active link of the account, already disabled ones keep their reason; one audit entry with count and ids", async () => {
    const owner = await fresh();
    const other = await fresh();
    const l1 = await createLink(owner.client, { url: "https://example.com/1" });
    const l2 = await createLink(owner.client, { url: "https://example.com/2" });
    const l3 = await createLink(owner.client, { url: "https://example.com/3" });
    const keep = await createLink(other.client, { url: "https://example.com/keep" });
    for (const l of [l1, keep]) for (let i = 0; i < 2; i++) expect((await visit(server, l.alias)).status).toBe(302);
    expect((await ops.client.post(`/api/admin/links/${l3.id}/disable`, { reason: "earlier", status: 451 })).status).toBe(200);

    const r = await ops.client.post("/api/admin/links/disable-bulk", { owner_id: owner.id, reason: "Spam account" });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ status: "success", disabled: 2 });
    expect((await visit(server, l1.alias)).status).toBe(410);
    expect((await visit(server, l2.alias)).status).toBe(410);
    expect((await visit(server, l3.alias)).status).toBe(451);
    expect((await visit(server, keep.alias)).status).toBe(302);
    expect((await owner.client.get(`/api/links/${l3.id}`)).body.link.disabled).toMatchObject({ reason: "earlier", status: 451 });
    expect((await owner.client.get(`/api/links/${l1.id}`)).body.link.disabled).toMatchObject({ reason: "Spam account", status: 410 });
    const [entry] = await auditRows(server, 1);
    expect(entry).toMatchObject({
      actor_id: ops.id,
      actor_email: ops.email,
      action: "link.disable_bulk",
      target_type: "account",
      target_id: owner.id,
      summary: "2 links disabled (410) of an account: Spam account",
      before: { disabled: null },
      after: { disabled: { reason: "Spam account", status: 410 }, count: 2, ids: [l1.id, l2.id].sort() },
    });
    // Again: nothing left to disable, still recorded.
    expect((await ops.client.post("/api/admin/links/disable-bulk", { owner_id: owner.id, reason: "again" })).body.disabled).toBe(0);
    expect((await auditRows(server, 1))[0]).toMatchObject({ action: "link.disable_bulk", after: { count: 0, ids: [] } });
    const unknown = await ops.client.post("/api/admin/links/disable-bulk", { owner_id: "nobody", reason: "x" });
    expect([unknown.status, unknown.body.code]).toEqual([404, "not_found"]);
  });

  it("disable-bulk by host: main, iOS or Android destination on the host or a subdomain; not look-alikes", async () => {
    const owner = await fresh();
    const other = await fresh();
    const onHost = await createLink(owner.client, { url: "https://bulk-evil.example/a" });
    const sub = await createLink(other.client, { url: "https://a.b.BULK-EVIL.example:8443/b" });
    const android = await createLink(owner.client, { url: "https://fine.example/c" });
    await server.ctx.storage.db.updateTable("links").set({ android_url: "https://m.bulk-evil.example/app" }).where("id", "=", android.id).execute();
    const lookAlikes = [
      await createLink(owner.client, { url: "https://notbulk-evil.example/d" }),
      await createLink(owner.client, { url: "https://bulk-evil.example.com/e" }),
      await createLink(owner.client, { url: "https://fine.example/bulk-evil.example/f" }),
      await createLink(owner.client, { url: "https://fine.example/?u=https://bulk-evil.example/" }),
    ];
    const r = await ops.client.post("/api/admin/links/disable-bulk", { host: "https://Bulk-Evil.example/whatever", reason: "Malware host", status: 451 });
    expect(r.status, r.text).toBe(200);
    expect(r.body.disabled).toBe(3);
    for (const l of [onHost, sub, android]) expect((await visit(server, l.alias)).status, l.alias).toBe(451);
    for (const l of lookAlikes) expect((await visit(server, l.alias)).status, l.alias).toBe(302);
    expect((await auditRows(server, 1))[0]).toMatchObject({
      action: "link.disable_bulk",
      target_type: "host",
      target_id: "bulk-evil.example",
      summary: "3 links disabled (451) pointing to bulk-evil.example: Malware host",
      before: { disabled: null },
      after: { disabled: { reason: "Malware host", status: 451 }, count: 3, ids: [onHost.id, sub.id, android.id].sort() },
    });
    // A bare host name works the same.
    expect((await ops.client.post("/api/admin/links/disable-bulk", { host: "notbulk-evil.example", reason: "x" })).body.disabled).toBe(1);
  });

  it("refuses bad input with 400 (never 500), unknown links with 404; writes nothing", async () => {
    const owner = await fresh();
    const link = await createLink(owner.client, { url: "https://example.com/refuse" });
    const entries = (await auditRows(server, 1000)).length;
    const cases: Array<[string, string, unknown, number, string]> = [
      ["POST", `/api/admin/links/${link.id}/disable`, {}, 400, "invalid_request"],
      ["POST", `/api/admin/links/${link.id}/disable`, { reason: "" }, 400, "invalid_request"],
      ["POST", `/api/admin/links/${link.id}/disable`, { reason: "   " }, 400, "invalid_request"],
      ["POST", `/api/admin/links/${link.id}/disable`, { reason: "x".repeat(501) }, 400, "invalid_request"],
      ["POST", `/api/admin/links/${link.id}/disable`, { reason: "x".repeat(2_000_000) }, 413, "payload_too_large"],
      ["POST", `/api/admin/links/${link.id}/disable`, { reason: "bad\u0000" }, 400, "invalid_request"],
      ["POST", `/api/admin/links/${link.id}/disable`, { reason: "\ud800" }, 400, "invalid_request"],
      ["POST", `/api/admin/links/${link.id}/disable`, { reason: "ok", status: 404 }, 400, "invalid_request"],
      ["POST", `/api/admin/links/${link.id}/disable`, { reason: "ok", status: "451" }, 400, "invalid_request"],
      ["POST", `/api/admin/links/${link.id}/disable`, { reason: "ok", extra: 1 }, 400, "invalid_request"],
      ["POST", `/api/admin/links/${link.id}/disable`, { reason: ["ok"] }, 400, "invalid_request"],
      ["POST", "/api/admin/links/nosuchlink/disable", { reason: "ok" }, 404, "not_found"],
      ["POST", "/api/admin/links/nosuchlink/enable", undefined, 404, "not_found"],
      ["POST", `/api/admin/links/${link.id}/enable`, { reason: "no body here" }, 400, "invalid_request"],
      ["POST", `/api/admin/links/${link.id}/enable`, undefined, 409, "conflict"],
      ["POST", "/api/admin/links/disable-bulk", { reason: "x" }, 400, "invalid_request"],
      ["POST", "/api/admin/links/disable-bulk", { owner_id: owner.id, host: "a.example", reason: "x" }, 400, "invalid_request"],
      ["POST", "/api/admin/links/disable-bulk", { host: "not a host", reason: "x" }, 400, "invalid_request"],
      ["POST", "/api/admin/links/disable-bulk", { host: "", reason: "x" }, 400, "invalid_request"],
      ["POST", "/api/admin/links/disable-bulk", { host: "a".repeat(3000), reason: "x" }, 400, "invalid_request"],
      ["POST", "/api/admin/links/disable-bulk", { host: "a.example", reason: "x", dry_run: true }, 400, "invalid_request"],
      ["POST", "/api/admin/links/disable-bulk", { owner_id: owner.id }, 400, "invalid_request"],
      ["GET", "/api/admin/links?state=gone", undefined, 400, "invalid_request"],
      ["GET", "/api/admin/links?cursor=%%%", undefined, 400, "invalid_request"],
      ["GET", "/api/admin/links?cursor=abc", undefined, 400, "invalid_request"],
      ["GET", "/api/admin/links?q=%00", undefined, 400, "invalid_request"],
      ["GET", `/api/admin/links?q=${"q".repeat(3000)}`, undefined, 400, "invalid_request"],
      ["GET", "/api/admin/links?limit=-1", undefined, 400, "invalid_request"],
      ["GET", "/api/admin/links?owner_id=x", undefined, 400, "invalid_request"],
    ];
    const got: string[] = [];
    for (const [method, path, body, status, code] of cases) {
      const r = await ops.client.request(method, path, body);
      got.push(`${method} ${path.slice(0, 80)} ${JSON.stringify(body)?.slice(0, 60)} -> ${r.status} ${r.body?.code}`);
      expect(`${r.status} ${r.body?.code}`, got.at(-1)).toBe(`${status} ${code}`);
    }
    expect((await auditRows(server, 1000)).length).toBe(entries);
    expect((await owner.client.get(`/api/links/${link.id}`)).body.link.disabled).toBeNull();
  });

  it.skipIf(engine !== "postgres")(
    "a link cached on a second instance stops redirecting there at once when disabled, and when its account is deleted",
    async () => {
      const b = await startTestServer({ databaseUrl: server.databaseUrl, env: { SESSION_SECRET: server.config.sessionSecret } });
      try {
        const owner = await fresh();
        const link = await createLink(owner.client, { url: "https://example.com/two", alias: `two-${n}` });
        const gone = await createLink(owner.client, { url: "https://example.com/gone", alias: `two-gone-${n}` });
        for (const l of [link, gone]) for (let i = 0; i < 2; i++) expect((await visit(b, l.alias)).status).toBe(302);
        expect(b.ctx.redirects.cache.peek("", link.alias)).toBeTruthy();
        expect((await ops.client.post(`/api/admin/links/${link.id}/disable`, { reason: "two instances" })).status).toBe(200);
        expect(
          (
            await within(
              2_000,
              () => visit(b, link.alias),
              (v) => v.status === 410,
            )
          ).status,
        ).toBe(410);

        expect((await ops.client.delete(`/api/admin/accounts/${owner.id}`, { confirm_email: owner.email })).status).toBe(200);
        expect(
          (
            await within(
              2_000,
              () => visit(b, gone.alias),
              (v) => v.status === 404,
            )
          ).status,
        ).toBe(404);
      } finally {
        await b.close();
      }
    },
  );
});
