// SSO domains as claims, their re-check and identities (docs/sso.md, issue 53), against a real DNS server and OpenID
// provider on loopback: a pending claim blocks no other owner and the first verify keeps the domain (the other claims
// dropped, their owners emailed), two verifies of one domain at once (one wins), the re-check's 72-hour grace on the
// tests' clock, and an address changed at the provider following the identity. On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { TestDns } from "../helpers/dns.js";
import { Browser, TestOidc, throughProvider } from "../helpers/oidc.js";
import { readOutbox } from "../helpers/mail.js";
import { auditRows } from "../helpers/operator.js";
import { ManualClock } from "../../src/shared/clock.js";
import { isUniqueViolation } from "../../src/storage/unique-violation.js";

const SECRET = "enterprise-client-secret-0123456789";
const HOUR = 3_600_000;

describe.each(ENGINES)("SSO domain claims and identities on %s", (engine) => {
  let dns: TestDns;
  let idp: TestOidc;
  let server: TestServer;
  let clock: ManualClock;

  const callback = () => `${server.url}/api/auth/sso/callback`;

  beforeAll(async () => {
    dns = await TestDns.start();
    const idpPort = await freePort();
    clock = new ManualClock(Date.now());
    // WEBHOOK_ALLOW_PRIVATE: the Enterprise provider on loopback (the address guard's test-only setting).
    server = await startTestServer({ engine, clock, env: { DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE: "true" } });
    idp = await TestOidc.start(idpPort, [{ client_id: "snip-ent", client_secret: SECRET, redirect_uris: [callback()] }]);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await idp?.close();
    await dns?.close();
  });

  const owner = (email: string) => signedInClient(server, email, "enterprise");
  const put = (client: ApiClient, domains: string[]) => client.put("/api/sso", { issuer: idp.issuer, client_id: "snip-ent", client_secret: SECRET, domains });
  const verify = (client: ApiClient, domain: string) => client.post(`/api/sso/domains/${domain}/verify`);
  const claims = (domain: string) =>
    server.ctx.storage.db
      .selectFrom("sso_domains")
      .select(["connection_id", "status", "failing_since", "next_action"])
      .where("domain", "=", domain)
      .orderBy("connection_id")
      .execute();
  const connectionId = async (email: string) =>
    (
      await server.ctx.storage.db
        .selectFrom("sso_connections")
        .innerJoin("users", "users.id", "sso_connections.owner_id")
        .select("sso_connections.id")
        .where("users.email", "=", email)
        .executeTakeFirstOrThrow()
    ).id;
  /** Messages to an address whose subject holds `subject` (headers unfolded). */
  const mails = (to: string, subject: string) =>
    readOutbox(server.outboxDir).filter((raw) => {
      const head = raw
        .slice(0, raw.search(/\r?\n\r?\n/))
        .replace(/\r?\n[ \t]+/g, " ")
        .toLowerCase();
      return head.includes(`to: ${to}`) && head.includes(subject.toLowerCase());
    });
  /** Runs the background re-check once the interval (DOMAIN_RECHECK_MINUTES, 60) has passed on the tests' clock. */
  const recheckAfter = async (ms: number) => {
    clock.advance(ms);
    await server.ctx.sso.domains.recheckDue();
  };

  it("finding 6: a pending claim blocks nobody; the first to verify keeps the domain, the other claim is dropped and its owner emailed", async () => {
    const a = await owner("a@a.test");
    const first = await put(a, ["bigcorp.test"]);
    expect(first.status, first.text).toBe(200);
    expect(first.body.connection.domains[0]).toMatchObject({ domain: "bigcorp.test", status: "pending" });

    const b = await owner("b@b.test");
    const second = await put(b, ["bigcorp.test"]);
    expect(second.status, second.text).toBe(200);
    expect(second.body.connection.domains[0]).toMatchObject({ domain: "bigcorp.test", status: "pending" });
    expect(await claims("bigcorp.test")).toHaveLength(2);
    // A pending domain signs no one in.
    expect(await server.ctx.sso.signIn.connectionFor("x@bigcorp.test")).toBeNull();

    const record = second.body.connection.domains[0].record;
    dns.txt(record.name, [record.value]);
    const ok = await verify(b, "bigcorp.test");
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.domain).toMatchObject({ domain: "bigcorp.test", status: "verified", next_action: null });

    const bId = await connectionId("b@b.test");
    const aId = await connectionId("a@a.test");
    expect(await claims("bigcorp.test")).toEqual([{ connection_id: bId, status: "verified", failing_since: null, next_action: null }]);
    expect((await a.get("/api/sso")).body.connection.domains).toEqual([]);
    expect((await server.ctx.sso.signIn.connectionFor("x@bigcorp.test"))?.id).toBe(bId);
    const dropped = (await auditRows(server, 5)).find((r) => r.action === "sso.domain_claim_dropped");
    expect(dropped).toMatchObject({
      target_type: "sso_connection",
      target_id: aId,
      actor_email: "b@b.test",
      before: { domain: "bigcorp.test", status: "pending" },
    });
    expect(mails("a@a.test", "bigcorp.test was removed from your single sign-on connection")).toHaveLength(1);
    expect(mails("b@b.test", "removed")).toHaveLength(0);
    // A's claim is gone: its verify says why (409, as a verify racing B's is told), whenever it comes.
    const late = await verify(a, "bigcorp.test");
    expect([late.status, late.body.code]).toEqual([409, "conflict"]);

    // Verified now: a third owner is refused as before.
    const c = await owner("c@c.test");
    const third = await put(c, ["bigcorp.test"]);
    expect(third.status).toBe(409);
    expect(third.body.code).toBe("conflict");
  });

  it("two owners verifying one domain at once: exactly one holds it verified, the other gets 409", async () => {
    for (const round of [1, 2, 3]) {
      const domain = `race${round}.test`;
      const x = await owner(`x${round}@x.test`);
      const y = await owner(`y${round}@y.test`);
      const records = [];
      for (const client of [x, y]) {
        const r = await put(client, [domain]);
        expect(r.status, r.text).toBe(200);
        records.push(r.body.connection.domains[0].record);
      }
      dns.txt(
        records[0].name,
        records.map((r) => r.value),
      );
      const answers = await Promise.all([verify(x, domain), verify(y, domain)]);
      expect(answers.map((r) => r.status).sort(), answers.map((r) => r.text).join("\n")).toEqual([200, 409]);
      expect(answers.find((r) => r.status === 409)?.body.code).toBe("conflict");
      const left = await claims(domain);
      expect(left).toHaveLength(1);
      expect(left[0]?.status).toBe("verified");
      // The loser asking again later (a verify that comes after the winner's, not beside it) hears the same.
      clock.advance(6_000);
      const loser = answers[0]?.status === 409 ? x : y;
      const late = await verify(loser, domain);
      expect([late.status, late.body.code]).toEqual([409, "conflict"]);
    }
    // The database itself refuses a second verified claim of one domain (the partial unique index).
    const db = server.ctx.storage.db;
    const other = await owner("z@z.test");
    expect((await put(other, ["solo.test"])).status).toBe(200);
    const zId = await connectionId("z@z.test");
    await db
      .insertInto("sso_domains")
      .values({
        domain: "race1.test",
        connection_id: zId,
        txt_token: "t".repeat(32),
        status: "pending",
        next_action: null,
        last_checked_at: null,
        verified_at: null,
        created_at: clock.now(),
        next_check_at: null,
        failing_since: null,
      })
      .execute();
    const second = await db
      .updateTable("sso_domains")
      .set({ status: "verified" })
      .where("domain", "=", "race1.test")
      .where("connection_id", "=", zId)
      .execute()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isUniqueViolation(second)).toBe(true);
    await db.deleteFrom("sso_domains").where("domain", "=", "race1.test").where("connection_id", "=", zId).execute();
  });

  it("re-check: a TXT record gone keeps the domain verified for 72 hours (owner emailed once), then pending (owner emailed); restored meanwhile, nothing is lost", async () => {
    const f = await owner("f@f.test");
    const g = await owner("g@g.test");
    const records: Record<string, { name: string; value: string }> = {};
    for (const [client, domain] of [
      [f, "grace.test"],
      [g, "restore.test"],
    ] as const) {
      const r = await put(client, [domain]);
      const record: { name: string; value: string } = r.body.connection.domains[0].record;
      records[domain] = record;
      dns.txt(record.name, [record.value]);
      expect((await verify(client, domain)).body.domain.status).toBe("verified");
    }

    dns.txt(records["grace.test"]!.name, null);
    dns.txt(records["restore.test"]!.name, ["snip-sso=someone-else"]);
    await recheckAfter(HOUR + 1);
    const gone = clock.now();
    for (const domain of ["grace.test", "restore.test"]) {
      const [row] = await claims(domain);
      expect(row).toMatchObject({ status: "verified" });
      expect(Number(row?.failing_since)).toBe(gone);
    }
    // The owner sees what to restore, and by when.
    const shown = (await f.get("/api/sso")).body.connection.domains[0];
    expect(shown.status).toBe("verified");
    expect(shown.next_action).toContain(`No TXT record found at ${records["grace.test"]!.name}`);
    expect(shown.next_action).toContain(new Date(gone + 72 * HOUR).toISOString());
    expect(await server.ctx.sso.signIn.connectionFor("p@grace.test")).not.toBeNull();
    expect(mails("f@f.test", "grace.test: its single sign-on TXT record is gone")).toHaveLength(1);
    expect(mails("g@g.test", "restore.test: its single sign-on TXT record is gone")).toHaveLength(1);

    // Restored within the grace: verified, the grace cleared.
    dns.txt(records["restore.test"]!.name, [records["restore.test"]!.value]);
    await recheckAfter(HOUR + 1);
    expect(await claims("restore.test")).toMatchObject([{ status: "verified", failing_since: null, next_action: null }]);
    expect((await g.get("/api/sso")).body.connection.domains[0]).toMatchObject({ status: "verified", next_action: null });

    // Checked again inside the grace: still verified, no second email, the first finding's time kept.
    await recheckAfter(24 * HOUR);
    expect(await claims("grace.test")).toMatchObject([{ status: "verified", failing_since: gone }]);
    expect(mails("f@f.test", "its single sign-on TXT record is gone")).toHaveLength(1);

    // 72 hours after it was first found gone: pending, audited, the owner told.
    clock.set(gone + 72 * HOUR - HOUR);
    await recheckAfter(HOUR);
    expect(await claims("grace.test")).toMatchObject([{ status: "pending", failing_since: null }]);
    expect((await auditRows(server, 5)).find((r) => r.action === "sso.domain_lost")).toMatchObject({
      target_type: "sso_connection",
      after: { domain: "grace.test" },
    });
    expect(mails("f@f.test", "grace.test is no longer verified for single sign-on")).toHaveLength(1);
    expect(await server.ctx.sso.signIn.connectionFor("p@grace.test")).toBeNull();
    expect(await claims("restore.test")).toMatchObject([{ status: "verified", failing_since: null }]);
    expect(mails("g@g.test", "no longer verified")).toHaveLength(0);
  });

  it("an address changed at the provider follows the identity: same account, new email (audited), unless another account holds it", async () => {
    const h = await owner("h@h.test");
    const r = await put(h, ["follow.test"]);
    const record = r.body.connection.domains[0].record;
    dns.txt(record.name, [record.value]);
    clock.advance(10_000);
    expect((await verify(h, "follow.test")).body.domain.status).toBe("verified");

    const signIn = async (email: string, login: string) => {
      const browser = new Browser();
      const start = await browser.fetch(`${server.url}/api/auth/sso/start?email=${email}`);
      expect(start.status, await start.clone().text()).toBe(302);
      const url = await throughProvider(browser, start.headers.get("location") as string, login, callback());
      const res = await browser.fetch(url, { headers: { accept: "application/json" } });
      const session = await browser.fetch(`${server.url}/api/auth/session`);
      const user = ((await session.json()) as { user: { id: string; email: string; email_verified: boolean } | null }).user;
      return { status: res.status, body: res.status === 302 ? null : ((await res.json()) as { code: string; reason?: string }), user };
    };

    idp.accounts.set("frank", { email: "frank@follow.test", email_verified: true });
    const first = await signIn("frank@follow.test", "frank");
    expect(first.status).toBe(302);
    const id = first.user?.id;
    expect(first.user).toMatchObject({ email: "frank@follow.test" });

    idp.accounts.set("frank", { email: "Frank.Miller@follow.test", email_verified: true });
    const moved = await signIn("frank.miller@follow.test", "frank");
    expect(moved.status).toBe(302);
    expect(moved.user).toMatchObject({ id, email: "frank.miller@follow.test", email_verified: true });
    expect(await server.ctx.accounts.byEmail("frank@follow.test")).toBeNull();
    expect((await auditRows(server, 3)).find((a) => a.action === "account.email")).toMatchObject({
      target_type: "account",
      target_id: id,
      before: { email: "frank@follow.test" },
      after: { email: "frank.miller@follow.test" },
    });

    // An address another account holds stays with it: signed in, the old address kept.
    const other = await server.ctx.accounts.create({ email: "taken@follow.test", password: "correct horse 1", verified: true });
    idp.accounts.set("frank", { email: "taken@follow.test", email_verified: true });
    const blocked = await signIn("taken@follow.test", "frank");
    expect(blocked.status).toBe(302);
    expect(blocked.user).toMatchObject({ id, email: "frank.miller@follow.test" });
    expect((await server.ctx.accounts.byEmail("taken@follow.test"))?.id).toBe(other.id);

    // Another subject of the provider given frank's address: refused, his account not opened.
    idp.accounts.set("impostor", { email: "frank.miller@follow.test", email_verified: true });
    const impostor = await signIn("frank.miller@follow.test", "impostor");
    expect([impostor.status, impostor.body?.code, impostor.body?.reason]).toEqual([400, "sso_failed", "identity"]);
    expect(impostor.user).toBeNull();
  });
});
