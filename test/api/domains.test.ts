// Custom domains (docs/api.md, Custom domains) against a real DNS server on loopback: adding (plan, names,
// conflicts), verifying (success, each refusal with its next action, the throttle), links on a domain
// (short_url, QR, redirect by Host), the re-check that sends a domain whose TXT record is gone back
// to pending, delete, and GET /tls/ask; on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { TestDns, silentDns } from "../helpers/dns.js";
import { DNS_DEADLINE_MS, DNS_TRY_MS, nodeDnsLookup } from "../../src/domains/dns-check.js";
import { readOutbox } from "../helpers/mail.js";
import { hit } from "../helpers/host.js";
import { VERIFY_INTERVAL_MS } from "../../src/domains/verify-domain.js";
import { waitFor } from "../helpers/wait.js";

const TARGET = "cname.snip.example";

describe.each(ENGINES)("custom domains on %s", (engine) => {
  let dns: TestDns;
  let server: TestServer;
  let biz: ApiClient;
  let other: ApiClient;
  const port = () => new URL(server.url).port;

  beforeAll(async () => {
    dns = await TestDns.start();
    server = await startTestServer({ engine, env: { DNS_SERVERS: dns.address, CNAME_TARGET: TARGET } });
    biz = await signedInClient(server, "biz@example.com", "business");
    other = await signedInClient(server, "other@example.com", "enterprise");
  });
  afterAll(async () => {
    await server?.close();
    await dns?.close();
  });

  const add = async (client: ApiClient, hostname: string) => {
    const r = await client.post("/api/domains", { hostname });
    expect(r.status, r.text).toBe(201);
    return r.body.domain;
  };
  const verify = (client: ApiClient, id: string) => client.post(`/api/domains/${id}/verify`);
  /** Lets the next verify of this domain through the per-domain throttle (as if the window had passed). */
  const pastThrottle = (id: string) =>
    server.ctx.storage.db
      .updateTable("domains")
      .set({ verify_requested_at: Date.now() - VERIFY_INTERVAL_MS - 1 })
      .where("id", "=", id)
      .execute();
  const verified = async (client: ApiClient, hostname: string) => {
    const d = await add(client, hostname);
    dns.serve(d);
    const r = await verify(client, d.id);
    expect(r.body.domain.status, r.text).toBe("verified");
    return r.body.domain;
  };

  it("adds a domain (Business and above): lowercase punycode hostname, pending, the CNAME and a TXT record of its own", async () => {
    const free = await signedInClient(server, "free@example.com", "free");
    const refused = await free.post("/api/domains", { hostname: "free.example.com" });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "plan_required", required_plan: "business" });
    const pro = await signedInClient(server, "pro@example.com", "pro");
    expect((await pro.post("/api/domains", { hostname: "pro.example.com" })).body.code).toBe("plan_required");

    const d = await add(biz, "  Bücher.Example.  ");
    expect(d).toMatchObject({ hostname: "xn--bcher-kva.example", status: "pending", last_checked_at: null, verified_at: null, lost_at: null, link_count: 0 });
    expect(d.records[0]).toEqual({ type: "CNAME", name: "xn--bcher-kva.example", value: TARGET });
    expect(d.records[1]).toMatchObject({ type: "TXT", name: "_snip-verify.xn--bcher-kva.example" });
    expect(d.records[1].value).toMatch(/^snip-verify=[0-9A-Za-z]{32}$/);
    expect(d.next_action).toBe(
      `Add the CNAME record xn--bcher-kva.example -> ${TARGET} and the TXT record _snip-verify.xn--bcher-kva.example with the value ${d.records[1].value} at your DNS provider, then verify.`,
    );
    const list = await biz.get("/api/domains");
    expect(list.body.domains.map((x: { hostname: string }) => x.hostname)).toEqual(["xn--bcher-kva.example"]);
    // Another account sees none of them.
    expect((await other.get("/api/domains")).body.domains).toEqual([]);
  });

  it("takes the host name out of a pasted address such as https://Go.Example.com/", async () => {
    const pasted = await add(biz, "https://Go.Example.com/");
    expect(pasted).toMatchObject({ hostname: "go.example.com", status: "pending" });
    expect((await add(biz, " HTTP://links2.example.org ")).hostname).toBe("links2.example.org");
    for (const hostname of ["https://go2.example.com/x", "https://go2.example.com:8443/", "https://u@go2.example.com/", "ftp://go2.example.com/"]) {
      const r = await biz.post("/api/domains", { hostname });
      expect(r.status, hostname).toBe(400);
      expect(r.body.details, hostname).toEqual([
        { field: "hostname", message: "Enter the host name alone, such as links.example.com (no port, path or spaces)" },
      ]);
    }
    for (const d of [pasted, (await biz.get("/api/domains")).body.domains.find((x: { hostname: string }) => x.hostname === "links2.example.org")]) {
      expect((await biz.delete(`/api/domains/${d.id}`)).status).toBe(200);
    }
  });

  it.each([
    ["10.0.0.1", "Enter a domain name, not an IP address"],
    ["[::1]", "Enter a domain name, not an IP address"],
    ["::ffff:127.0.0.1", "Enter a domain name, not an IP address"],
    ["1.2.3", "Enter a domain name, not an IP address"],
    ["0x7f.1", "Enter a domain name, not an IP address"],
    ["https://shop.example.com/path", "Enter the host name alone, such as links.example.com (no port, path or spaces)"],
    ["shop.example.com:8443", "Enter the host name alone, such as links.example.com (no port, path or spaces)"],
    ["localhost", "Enter a valid domain name such as links.example.com"],
    ["a..example.com", "Enter a valid domain name such as links.example.com"],
    ["-shop.example.com", "Enter a valid domain name such as links.example.com"],
    ["under_score.example.com", "Enter a valid domain name such as links.example.com"],
    [`${"a".repeat(64)}.example.com`, "Enter a valid domain name such as links.example.com"],
    [`${"abcdefghi.".repeat(26)}com`, "Enter a valid domain name such as links.example.com"],
    ["", "Enter a host name such as links.example.com"],
    [TARGET.toUpperCase(), "This is this service's own host name"],
  ])("refuses the hostname %j: 400 invalid_request, nothing stored", async (hostname, message) => {
    const r = await biz.post("/api/domains", { hostname });
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ code: "invalid_request", details: [{ field: "hostname", message }] });
    const rows = await server.ctx.storage.db
      .selectFrom("domains")
      .select("hostname")
      .where("owner_id", "=", (await biz.get("/api/auth/session")).body.user.id)
      .execute();
    expect(rows.map((x) => x.hostname)).toEqual(["xn--bcher-kva.example"]);
  });

  it("refuses the service's own host, unknown fields and oversized names", async () => {
    const own = await startTestServer({ engine: "sqlite", env: { BASE_URL: "https://sn.example", DNS_SERVERS: dns.address } });
    try {
      const c = await signedInClient(own, "own@example.com", "business");
      // BASE_URL's host here is sn.example (the test server listens on 127.0.0.1, Host is not checked for /api).
      expect((await c.post("/api/domains", { hostname: "SN.example" })).body.details).toEqual([
        { field: "hostname", message: "This is this service's own host name" },
      ]);
    } finally {
      await own.close();
    }
    expect((await biz.post("/api/domains", { hostname: "x.example.com", owner: "me" })).status).toBe(400);
    expect((await biz.post("/api/domains", { hostname: "x".repeat(301) })).status).toBe(400);
    expect((await biz.post("/api/domains", {})).status).toBe(400);
  });

  it("a hostname added by any account: 409 conflict; ten concurrent adds store one", async () => {
    await add(biz, "taken.example.com");
    const r = await other.post("/api/domains", { hostname: "TAKEN.example.com." });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: "conflict", message: "taken.example.com has already been added" });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? biz : other).post("/api/domains", { hostname: "race.example.com" })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const rows = await server.ctx.storage.db.selectFrom("domains").select("id").where("hostname", "=", "race.example.com").execute();
    expect(rows).toHaveLength(1);
  });

  it("verifies when both records are right", async () => {
    const d = await add(biz, "go.shop.example");
    dns.serve(d);
    const before = Date.now();
    const r = await verify(biz, d.id);
    expect(r.status, r.text).toBe(200);
    expect(r.body.domain).toMatchObject({ status: "verified", next_action: null, lost_at: null });
    expect(Date.parse(r.body.domain.verified_at)).toBeGreaterThanOrEqual(before - 5);
    expect(r.body.domain.last_checked_at).toBe(r.body.domain.verified_at);
    // A long TXT value split in character-strings is read joined, as providers show it.
    const e = await add(biz, "split.shop.example");
    dns
      .cname(e.records[0].name, `${TARGET.toUpperCase()}.`)
      .txt(e.records[1].name, ["unrelated=1", [e.records[1].value.slice(0, 10), e.records[1].value.slice(10)]]);
    expect((await verify(biz, e.id)).body.domain.status).toBe("verified");
    expect(
      (await server.ctx.storage.db.selectFrom("domains").select("next_check_at").where("id", "=", d.id).executeTakeFirstOrThrow()).next_check_at,
    ).toBeGreaterThan(Date.now() + 59 * 60_000);
  });

  it("each refusal keeps the domain pending and says what to fix", async () => {
    const cases: [string, (d: any) => void, (d: any) => string][] = [
      [
        "cname-missing.example",
        (d) => dns.txt(d.records[1].name, [d.records[1].value]),
        (d) => `No CNAME record found for ${d.hostname}: add a CNAME record ${d.hostname} -> ${TARGET}.`,
      ],
      [
        "cname-elsewhere.example",
        (d) => dns.cname(d.hostname, "old-host.example.net").txt(d.records[1].name, [d.records[1].value]),
        (d) => `The CNAME record of ${d.hostname} points to old-host.example.net: change it to ${TARGET}.`,
      ],
      [
        "txt-missing.example",
        (d) => dns.cname(d.hostname, TARGET),
        (d) => `No TXT record found at ${d.records[1].name}: add a TXT record ${d.records[1].name} with the value ${d.records[1].value}.`,
      ],
      [
        "txt-wrong.example",
        (d) => dns.cname(d.hostname, TARGET).txt(d.records[1].name, ["snip-verify=stale-token-from-before"]),
        (d) => `The TXT record at ${d.records[1].name} holds "snip-verify=stale-token-from-before": set it to ${d.records[1].value}.`,
      ],
      [
        "nothing.example",
        () => undefined,
        (d) =>
          `No CNAME record found for ${d.hostname}: add a CNAME record ${d.hostname} -> ${TARGET}. ` +
          `No TXT record found at ${d.records[1].name}: add a TXT record ${d.records[1].name} with the value ${d.records[1].value}.`,
      ],
    ];
    for (const [hostname, setUp, expected] of cases) {
      const d = await add(biz, hostname);
      setUp(d);
      const r = await verify(biz, d.id);
      expect(r.status, r.text).toBe(200);
      expect(r.body.domain.status, hostname).toBe("pending");
      expect(r.body.domain.next_action).toBe(expected(d));
      expect(r.body.domain.last_checked_at).not.toBeNull();
      expect(r.body.domain.verified_at).toBeNull();
      expect(await server.ctx.domains.isVerified(hostname)).toBe(false);
    }
  });

  it("verify is throttled per domain: 429 with Retry-After; concurrent requests run one check", async () => {
    const d = await add(biz, "throttle.example");
    const first = await verify(biz, d.id);
    expect(first.status).toBe(200);
    const again = await verify(biz, d.id);
    expect(again.status).toBe(429);
    expect(again.body.code).toBe("rate_limited");
    const wait = Number(again.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(VERIFY_INTERVAL_MS / 1000);
    // Another domain is not held back.
    const e = await add(biz, "throttle-other.example");
    expect((await verify(biz, e.id)).status).toBe(200);

    await pastThrottle(d.id);
    dns.serve(d);
    const queriesBefore = dns.queriesFor(d.records[1].name, "TXT");
    const burst = await Promise.all(Array.from({ length: 8 }, () => verify(biz, d.id)));
    expect(burst.map((b) => b.status).sort()).toEqual([200, 429, 429, 429, 429, 429, 429, 429]);
    expect(dns.queriesFor(d.records[1].name, "TXT") - queriesBefore).toBe(1);
  });

  it("another account's domain, an unknown id, signed out or suspended: refused", async () => {
    const d = await add(biz, "private.example");
    expect((await verify(other, d.id)).status).toBe(404);
    expect((await other.delete(`/api/domains/${d.id}`)).status).toBe(404);
    expect((await verify(biz, "nope")).status).toBe(404);
    const anon = await new ApiClient(server.url).init();
    expect((await anon.get("/api/domains")).status).toBe(401);
    expect((await anon.post("/api/domains", { hostname: "anon.example" })).status).toBe(401);
    expect((await biz.post(`/api/domains/${d.id}/verify`, undefined, { "x-csrf-token": "forged" })).status).toBe(403);
    const sus = await signedInClient(server, "sus@example.com", "business");
    const mine = await add(sus, "sus.example");
    await server.ctx.accounts.setStatus("sus@example.com", "suspended");
    expect((await verify(sus, mine.id)).body.code).toBe("account_inactive");
    expect((await sus.post("/api/domains", { hostname: "sus2.example" })).body.code).toBe("account_inactive");
  });

  it("links on a verified domain: short_url with BASE_URL's scheme, QR, redirect by Host (case, port and trailing dot ignored)", async () => {
    const d = await verified(biz, "links.shop.example");
    const r = await biz.post("/api/links", { url: "https://example.com/on-domain", alias: "promo", domain: "Links.Shop.Example." });
    expect(r.status, r.text).toBe(201);
    expect(r.body.link).toMatchObject({ alias: "promo", domain: "links.shop.example", short_url: "http://links.shop.example/promo" });
    // The same alias on the main host and on another domain is another link.
    const main = await biz.post("/api/links", { url: "https://example.com/on-main", alias: "promo" });
    expect(main.status, main.text).toBe(201);
    expect(main.body.link.domain).toBeNull();
    expect((await biz.post("/api/links", { url: "https://example.com/twice", alias: "promo", domain: d.hostname })).status).toBe(409);

    for (const host of ["links.shop.example", "LINKS.Shop.example", `links.shop.example:${port()}`, "links.shop.example.", `Links.Shop.Example.:${port()}`]) {
      // Twice: the second answer comes from the cache (the fast path).
      for (let i = 0; i < 2; i++) expect(await hit(server.url, "/promo", host), host).toMatchObject({ status: 302, location: "https://example.com/on-domain" });
    }
    expect((await hit(server.url, "/promo", `127.0.0.1:${port()}`)).location).toBe("https://example.com/on-main");
    expect(server.ctx.redirects.cache.peek("links.shop.example", "promo")).toBeTruthy();
    // HEAD and the JSON client alike.
    expect((await hit(server.url, "/promo", "links.shop.example", "HEAD")).status).toBe(302);
    // A host that is no custom domain is the main host; an unknown alias on the domain: 404.
    expect(await hit(server.url, "/promo", "unknown.example")).toMatchObject({ status: 302, location: "https://example.com/on-main" });
    expect((await hit(server.url, "/nothing-here", "links.shop.example")).status).toBe(404);

    const qr = await fetch(`${server.url}/api/qr/promo?domain=links.shop.example`);
    expect(qr.status).toBe(200);
    expect(qr.headers.get("content-type")).toContain("image/svg+xml");
    expect((await fetch(`${server.url}/api/qr/promo?domain=unknown.example`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/qr/nothing-here?domain=links.shop.example`)).status).toBe(404);
    expect(d.link_count).toBe(0);
    expect((await biz.get("/api/domains")).body.domains.find((x: { id: string }) => x.id === d.id).link_count).toBe(1);
  });

  it("a link's domain must be a verified domain of its owner", async () => {
    const pending = await add(biz, "not-yet.example");
    const theirs = await verified(other, "theirs.example");
    const onPending = await biz.post("/api/links", { url: "https://example.com/x", domain: pending.hostname });
    expect(onPending.status).toBe(400);
    expect(onPending.body.details).toEqual([{ field: "domain", message: "not-yet.example is not verified yet: verify it on the Domains page first" }]);
    const onTheirs = await biz.post("/api/links", { url: "https://example.com/x", domain: theirs.hostname });
    expect(onTheirs.body.details).toEqual([{ field: "domain", message: "is not a verified domain of this account" }]);
    expect((await biz.post("/api/links", { url: "https://example.com/x", domain: "http://evil/" })).status).toBe(400);
    const anon = await new ApiClient(server.url).init();
    expect((await anon.post("/api/links", { url: "https://example.com/x", domain: theirs.hostname })).status).toBe(401);
    // The main host by name is the main host.
    const ownHost = new URL(server.url).hostname;
    const onMain = await biz.post("/api/links", { url: "https://example.com/main-by-name", domain: ownHost });
    expect(onMain.status, onMain.text).toBe(201);
    expect(onMain.body.link.domain).toBeNull();

    // Editing: moving a link onto a domain, and off it.
    const mine = await verified(biz, "move.example");
    const link = onMain.body.link;
    const moved = await biz.patch(`/api/links/${link.id}`, { domain: mine.hostname });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.link).toMatchObject({ domain: "move.example", short_url: `http://move.example/${link.alias}` });
    expect((await hit(server.url, `/${link.alias}`, "move.example")).status).toBe(302);
    expect((await hit(server.url, `/${link.alias}`, new URL(server.url).host)).status).toBe(404);
    expect((await biz.patch(`/api/links/${link.id}`, { domain: theirs.hostname })).status).toBe(400);
    // An owner whose plan no longer has custom domains cannot put new links there.
    await server.ctx.accounts.setPlan("other@example.com", "pro");
    const downgraded = await other.post("/api/links", { url: "https://example.com/x", domain: theirs.hostname });
    expect(downgraded.status).toBe(403);
    expect(downgraded.body).toMatchObject({ code: "plan_required", required_plan: "business" });
    await server.ctx.accounts.setPlan("other@example.com", "enterprise");
    expect((await other.post("/api/links", { url: "https://example.com/x", domain: theirs.hostname })).status).toBe(201);
    const back = await biz.patch(`/api/links/${link.id}`, { domain: null });
    expect(back.body.link.domain).toBeNull();
    expect((await hit(server.url, `/${link.alias}`, "move.example")).status).toBe(404);
  });

  it("the re-check sends a domain whose TXT record is gone back to pending: its links answer 404 at once, the owner is told", async () => {
    const d = await verified(biz, "recheck.example");
    const link = (await biz.post("/api/links", { url: "https://example.com/kept", alias: "kept", domain: d.hostname })).body.link;
    expect((await hit(server.url, "/kept", d.hostname)).status).toBe(302);
    expect((await hit(server.url, "/kept", d.hostname)).status).toBe(302);
    const db = server.ctx.storage.db;
    const due = () =>
      db
        .updateTable("domains")
        .set({ next_check_at: Date.now() - 1 })
        .where("id", "=", d.id)
        .execute();

    // Still there: the re-check keeps it verified and schedules the next one.
    await due();
    expect(await server.ctx.domains.recheckDue()).toBe(1);
    const kept = await db.selectFrom("domains").selectAll().where("id", "=", d.id).executeTakeFirstOrThrow();
    expect(kept.status).toBe("verified");
    expect(Number(kept.next_check_at)).toBeGreaterThan(Date.now() + 59 * 60_000);
    // Not due: nothing runs.
    expect(await server.ctx.domains.recheckDue()).toBe(0);

    // A CNAME moved elsewhere alone does not take the domain away (the TXT record proves ownership); it is shown.
    dns.cname(d.hostname, "cdn.example.net");
    await due();
    expect(await server.ctx.domains.recheckDue()).toBe(1);
    const moved = (await biz.get("/api/domains")).body.domains.find((x: { id: string }) => x.id === d.id);
    expect(moved).toMatchObject({ status: "verified", next_action: `The CNAME record of ${d.hostname} points to cdn.example.net: change it to ${TARGET}.` });
    dns.cname(d.hostname, TARGET);

    const mailsBefore = readOutbox(server.outboxDir).length;
    dns.txt(d.records[1].name, null);
    await due();
    expect(await server.ctx.domains.recheckDue()).toBe(1);
    expect((await hit(server.url, "/kept", d.hostname)).status).toBe(404);
    expect(server.ctx.redirects.cache.peek(d.hostname, "kept")).toBeFalsy();
    const lost = (await biz.get("/api/domains")).body.domains.find((x: { id: string }) => x.id === d.id);
    expect(lost).toMatchObject({ status: "pending", verified_at: null });
    expect(lost.lost_at).not.toBeNull();
    expect(lost.next_action).toBe(
      `Verification lost: No TXT record found at ${d.records[1].name}: add a TXT record ${d.records[1].name} with the value ${d.records[1].value}. Links on ${d.hostname} answer 404 until it is verified again.`,
    );
    expect(await server.ctx.domains.isVerified(d.hostname)).toBe(false);
    // New links cannot go there; the link itself is kept (and editable).
    expect((await biz.post("/api/links", { url: "https://example.com/n", domain: d.hostname })).status).toBe(400);
    expect((await biz.patch(`/api/links/${link.id}`, { url: "https://example.com/kept-2" })).status).toBe(200);
    const mails = readOutbox(server.outboxDir);
    expect(mails.length).toBe(mailsBefore + 1);
    const mail = (mails[mails.length - 1] as string).replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    expect(mail).toContain("To: biz@example.com");
    expect(mail).toContain("Subject: recheck.example is no longer verified");
    expect(mail).toContain(`Verify it again on ${server.config.origin}/app/domains`);
    expect(mail).toContain(`add a TXT record ${d.records[1].name} with the value ${d.records[1].value}`);

    // Record back, verified again: the link answers at once.
    dns.txt(d.records[1].name, [d.records[1].value]);
    await pastThrottle(d.id);
    expect((await verify(biz, d.id)).body.domain).toMatchObject({ status: "verified", lost_at: null, next_action: null });
    expect(await hit(server.url, "/kept", d.hostname)).toMatchObject({ status: 302, location: "https://example.com/kept-2" });
  });

  it("a DNS server that does not answer at the re-check leaves the domain verified", async () => {
    const d = await verified(biz, "flaky.example");
    const db = server.ctx.storage.db;
    // Stop answering: point this instance's checks at a silent port for one re-check.
    const silent = await silentDns();
    const deps = server.ctx.domains.deps as { dns: unknown };
    const saved = deps.dns;
    deps.dns = nodeDnsLookup([silent.address]);
    try {
      await db
        .updateTable("domains")
        .set({ next_check_at: Date.now() - 1 })
        .where("id", "=", d.id)
        .execute();
      expect(await server.ctx.domains.recheckDue()).toBe(1);
    } finally {
      deps.dns = saved;
      await silent.close();
    }
    const row = (await biz.get("/api/domains")).body.domains.find((x: { id: string }) => x.id === d.id);
    expect(row.status).toBe("verified");
    expect(row.next_action).toBe(`DNS is not answering for ${d.hostname} (no answer in time): check that the domain's name servers work, then verify again.`);
  });

  it("delete: its links answer 404 at once, they are gone, and the hostname is free for anyone", async () => {
    const d = await verified(biz, "gone.example");
    await biz.post("/api/links", { url: "https://example.com/a", alias: "on-gone", domain: d.hostname });
    await biz.post("/api/links", { url: "https://example.com/b", domain: d.hostname });
    expect((await hit(server.url, "/on-gone", d.hostname)).status).toBe(302);
    expect((await hit(server.url, "/on-gone", d.hostname)).status).toBe(302);
    const del = await biz.delete(`/api/domains/${d.id}`);
    expect(del.status, del.text).toBe(200);
    expect((await hit(server.url, "/on-gone", d.hostname)).status).toBe(404);
    const left = await server.ctx.storage.db.selectFrom("links").select("id").where("domain", "=", d.hostname).execute();
    expect(left).toEqual([]);
    expect((await biz.delete(`/api/domains/${d.id}`)).status).toBe(404);
    expect(await server.ctx.domains.isVerified(d.hostname)).toBe(false);
    // Free again: another account adds it, with a new TXT value, and the old alias is theirs to use.
    const again = await add(other, "gone.example");
    expect(again.records[1].value).not.toBe(d.records[1].value);
    dns.serve(again);
    expect((await verify(other, again.id)).body.domain.status).toBe("verified");
    expect((await other.post("/api/links", { url: "https://example.com/new-owner", alias: "on-gone", domain: "gone.example" })).status).toBe(201);
    expect((await hit(server.url, "/on-gone", "gone.example")).location).toBe("https://example.com/new-owner");
  });

  it("a delete racing link creations on the domain leaves no link behind (each creation lands before it, or fails)", async () => {
    for (let round = 0; round < 3; round++) {
      const d = await verified(biz, `race-${round}.example`);
      const creations = Array.from({ length: 12 }, (_, i) => biz.post("/api/links", { url: `https://example.com/r${i}`, domain: d.hostname }));
      const deletion = biz.delete(`/api/domains/${d.id}`);
      const answers = await Promise.all(creations);
      expect((await deletion).status).toBe(200);
      for (const a of answers) expect([201, 400], a.text).toContain(a.status);
      const left = await server.ctx.storage.db.selectFrom("links").select("id").where("domain", "=", d.hostname).execute();
      expect(left, `round ${round}`).toEqual([]);
    }
  });

  it("GET /tls/ask: 200 for a verified domain, 404 for pending, unknown, malformed or the service itself", async () => {
    const d = await verified(biz, "tls.example");
    const ask = (q: string) => fetch(`${server.url}/tls/ask?${q}`);
    const ok = await ask(`domain=${d.hostname}`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: "success" });
    expect((await ask("domain=TLS.example.")).status).toBe(200);
    const pending = await add(biz, "tls-pending.example");
    expect((await ask(`domain=${pending.hostname}`)).status).toBe(404);
    expect((await ask("domain=unknown.example")).status).toBe(404);
    // Control characters are refused where every input is checked (src/http/input-guard.ts): 400, never a 200.
    expect((await ask("domain=%00%2F..")).status).toBe(400);
    expect((await ask(`domain=${new URL(server.url).hostname}`)).status).toBe(404);
    expect((await ask("")).status).toBe(400);
    expect((await ask("domain=a&extra=1")).status).toBe(400);
  });
});

describe.each(ENGINES)("custom domains with DNS that never answers, on %s", (engine) => {
  let silent: Awaited<ReturnType<typeof silentDns>>;
  let server: TestServer;
  beforeAll(async () => {
    silent = await silentDns();
    server = await startTestServer({ engine, env: { DNS_SERVERS: silent.address, CNAME_TARGET: TARGET } });
  });
  afterAll(async () => {
    await server?.close();
    await silent?.close();
  });

  it("verify answers within the deadline with 'DNS is not answering', and other requests are served meanwhile", async () => {
    const c = await signedInClient(server, "slow@example.com", "business");
    const d = (await c.post("/api/domains", { hostname: "slow.example" })).body.domain;
    const started = Date.now();
    let verified = false;
    const pending = c.post(`/api/domains/${d.id}/verify`).finally(() => (verified = true));
    // The event loop is free while DNS is awaited: once the verify has asked DNS, another request is
    // answered before the verify.
    await waitFor(() => silent.received() > 0, { what: "the verify's first DNS query" });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(verified).toBe(false);
    const r = await pending;
    const took = Date.now() - started;
    expect(r.status, r.text).toBe(200);
    expect(took).toBeLessThan(DNS_DEADLINE_MS + 1_000);
    expect(took).toBeGreaterThanOrEqual(DNS_TRY_MS);
    expect(silent.received()).toBeGreaterThanOrEqual(2);
    expect(r.body.domain).toMatchObject({
      status: "pending",
      next_action: "DNS is not answering for slow.example (no answer in time): check that the domain's name servers work, then verify again.",
    });
  });
});
