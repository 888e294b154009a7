// Abuse reports (docs/operator.md): the public form (rendering, escaping, storage, the same answer for
// unknown links, the throttle, cross-origin posts, hostile input) and the operators' queue (list, dismiss,
// disable the link, ban the owner, conflicts, audit entries), on SQLite and PostgreSQL.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { failuresPerHour } from "../../src/admin/reports.js";
import { EXTERNAL_CREATE_PATH } from "../../src/http/routes/external.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { visit } from "../helpers/visit.js";

interface Page {
  status: number;
  headers: Headers;
  text: string;
}

let addressCounter = 0;
/** A client address of its own (TRUST_PROXY is set), so each test starts with a fresh throttle. */
const newAddress = () => `203.0.113.${++addressCounter}`;

describe.each(ENGINES)("abuse reports on %s", (engine) => {
  let server: TestServer;
  const clock = new ManualClock();
  let owner: ApiClient;
  let ops: ApiClient;
  let ownerId: string;
  const OWNER = "owner@example.com";
  const REPORTER = "reporter@example.com";

  beforeAll(async () => {
    server = await startTestServer({ engine, clock, env: { TRUST_PROXY: "127.0.0.1", REPORTS_PER_HOUR: "2" } });
    owner = await signedInClient(server, OWNER, "business");
    ownerId = (await owner.get("/api/profile")).body.user.id;
    await server.ctx.accounts.create({ email: "ops@example.com", password: "correct horse 1", verified: true, admin: true });
    ops = new ApiClient(server.url);
    expect((await ops.login("ops@example.com")).status).toBe(200);
  });
  afterAll(async () => server?.close());

  const get = async (path: string, headers: Record<string, string> = {}): Promise<Page> => {
    const res = await fetch(server.url + path, { headers: { accept: "text/html", ...headers }, redirect: "manual" });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  /** POSTs the form (urlencoded) from `ip`; headers replace the defaults (a browser's Accept and Origin). */
  const report = async (fields: Record<string, string> | string, ip: string, headers: Record<string, string> = {}): Promise<Page> => {
    const body = typeof fields === "string" ? fields : new URLSearchParams(fields).toString();
    const res = await fetch(`${server.url}/report`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: server.url, "x-forwarded-for": ip, ...headers },
      body,
      redirect: "manual",
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const rows = () => server.ctx.storage.db.selectFrom("abuse_reports").selectAll().orderBy("created_at").orderBy("id").execute();
  const reportsOf = async (linkId: string) => (await rows()).filter((r) => r.link_id === linkId);
  const shortUrl = (alias: string) => `${server.url}/${alias}`;
  /** Files a report of `alias` and returns its id. */
  const fileReport = async (alias: string, reason = "phishing", details = "") => {
    const r = await report({ link: shortUrl(alias), reason, details }, newAddress());
    expect(r.status, r.text).toBe(200);
    clock.advance(1000);
    const all = await rows();
    return all[all.length - 1]!.id;
  };

  describe("the public form", () => {
    it("renders the form with the link prefilled and escaped, under a strict CSP whose form-action is 'self'", async () => {
      const plain = await get("/report?link=" + encodeURIComponent(`${server.url}/abc123`));
      expect(plain.status).toBe(200);
      expect(plain.headers.get("content-type")).toMatch(/^text\/html/);
      expect(plain.headers.get("content-security-policy")).toContain("form-action 'self'");
      expect(plain.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(plain.headers.get("x-frame-options")).toBe("DENY");
      expect(plain.headers.get("cache-control")).toBe("private, no-store");
      expect(plain.text).toContain(`name="link" type="text" required maxlength="2048" placeholder="https://…/abc123" value="${server.url}/abc123"`);
      for (const reason of ["phishing", "malware", "spam", "illegal", "other"]) expect(plain.text).toContain(`<option value="${reason}">`);
      expect(plain.text).toContain('<textarea id="details" name="details" maxlength="2000"');
      expect(plain.text).toContain('<form method="post" action="/report">');
      expect(plain.text).not.toContain("<script");

      const hostile = await get("/report?link=" + encodeURIComponent(`"><script>alert(1)</script>`));
      expect(hostile.status).toBe(200);
      expect(hostile.text).not.toContain("<script>");
      expect(hostile.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
      // Empty, and refused parameters: the form, with the error.
      expect((await get("/report")).text).toContain('value=""');
      const unknown = await get("/report?link=x&zzz=1");
      expect(unknown.status).toBe(400);
      expect(unknown.text).toContain("The report was not sent");
    });

    it("stores a report with exact fields (short URL, or the bare alias on the page's host)", async () => {
      const link = await createLink(owner, { url: "https://example.com/login", alias: "phish-1" });
      const before = clock.now();
      const r = await report(
        { link: `  ${shortUrl("phish-1")}/  `, reason: "phishing", details: "It asks for my bank password\r\nTwice.", email: " Reporter@Example.com " },
        newAddress(),
      );
      expect(r.status, r.text).toBe(200);
      expect(r.text).toContain("Thank you");
      expect(await reportsOf(link.id)).toEqual([
        {
          id: expect.stringMatching(/^[A-Za-z0-9]{16}$/),
          link_id: link.id,
          domain: "",
          alias: "phish-1",
          url: "https://example.com/login",
          reason: "phishing",
          details: "It asks for my bank password\nTwice.",
          reporter_email: REPORTER,
          state: "open",
          created_at: before,
          resolved_at: null,
          resolved_by: null,
          source: "form",
        },
      ]);
      clock.advance(1000);
      // The alias alone, no email, no details; the host without a scheme.
      expect((await report({ link: "phish-1", reason: "spam" }, newAddress())).status).toBe(200);
      clock.advance(1000);
      expect((await report({ link: `127.0.0.1/phish-1`, reason: "other", details: "", email: "" }, newAddress())).status).toBe(200);
      const stored = await reportsOf(link.id);
      expect(stored.map((s) => [s.reason, s.details, s.reporter_email, s.domain, s.alias])).toEqual([
        ["phishing", "It asks for my bank password\nTwice.", REPORTER, "", "phish-1"],
        ["spam", "", null, "", "phish-1"],
        ["other", "", null, "", "phish-1"],
      ]);
      clock.advance(1000);
    });

    it("resolves a short URL on a verified custom domain; another host is not a short link", async () => {
      const now = clock.now();
      await server.ctx.storage.db
        .insertInto("domains")
        .values({
          id: "dom0000000000001",
          owner_id: ownerId,
          hostname: "go.brand.example",
          status: "verified",
          txt_token: "t",
          next_action: null,
          last_checked_at: now,
          verified_at: now,
          lost_at: null,
          next_check_at: null,
          verify_requested_at: null,
          created_at: now,
        })
        .execute();
      const link = await createLink(owner, { url: "https://example.com/brand", alias: "brand-1", domain: "go.brand.example" });
      expect((await report({ link: "https://GO.brand.example./brand-1", reason: "malware" }, newAddress())).status).toBe(200);
      expect((await reportsOf(link.id)).map((r) => [r.domain, r.alias, r.url])).toEqual([["go.brand.example", "brand-1", "https://example.com/brand"]]);
      const foreign = await report({ link: "https://evil.example/brand-1", reason: "malware" }, newAddress());
      expect(foreign.status).toBe(400);
      expect(foreign.text).toContain("Short link: is not a short link of this service");
      expect(foreign.text).toContain('value="https://evil.example/brand-1"');
      clock.advance(1000);
    });

    it("answers an unknown link exactly as a known one, stores nothing for it, and never shows the owner", async () => {
      const link = await createLink(owner, { url: "https://example.com/known", alias: "known-1" });
      const known = await report({ link: shortUrl("known-1"), reason: "spam", details: "x" }, newAddress());
      const count = (await rows()).length;
      const unknown = await report({ link: shortUrl("never-made"), reason: "spam", details: "x" }, newAddress());
      const reserved = await report({ link: "report", reason: "spam", details: "x" }, newAddress());
      expect(known.status).toBe(200);
      expect(unknown.status).toBe(200);
      expect(reserved.status).toBe(200);
      expect(unknown.text).toBe(known.text);
      expect(reserved.text).toBe(known.text);
      expect([...unknown.headers.entries()].filter(([k]) => k !== "date")).toEqual([...known.headers.entries()].filter(([k]) => k !== "date"));
      expect((await rows()).length).toBe(count);
      // Every public answer about this link: the form, the thanks, a refusal, the throttle, a cross-site refusal, the error pages.
      const ip = newAddress();
      const answers = [
        await get(`/report?link=${encodeURIComponent(shortUrl("known-1"))}`),
        known,
        await report({ link: shortUrl("known-1"), reason: "nope" }, ip),
        await report({ link: shortUrl("known-1"), reason: "spam" }, ip),
        await report({ link: shortUrl("known-1"), reason: "spam" }, ip),
        await report({ link: shortUrl("known-1"), reason: "spam" }, ip),
        await report({ link: shortUrl("known-1"), reason: "spam" }, newAddress(), { origin: "https://evil.example" }),
        await report({ link: shortUrl("known-1"), reason: "spam" }, newAddress(), { accept: "application/json" }),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 400, 200, 200, 429, 403, 200]);
      for (const a of answers) {
        expect(a.text).not.toContain(OWNER);
        expect(a.text).not.toContain(ownerId);
        expect(a.text).not.toContain(link.id);
        expect(a.text).not.toContain("https://example.com/known");
      }
      clock.advance(1000);
    });

    it("throttles per address: REPORTS_PER_HOUR accepted reports (known link or not), then 429 with Retry-After; other addresses unaffected", async () => {
      await createLink(owner, { url: "https://example.com/t", alias: "throttled-1" });
      const ip = newAddress();
      const start = clock.now();
      expect((await report({ link: shortUrl("throttled-1"), reason: "spam" }, ip)).status).toBe(200);
      clock.advance(10_000);
      expect((await report({ link: shortUrl("not-a-link"), reason: "spam" }, ip)).status).toBe(200);
      clock.advance(5_000);
      const third = await report({ link: shortUrl("throttled-1"), reason: "spam" }, ip);
      expect(third.status).toBe(429);
      expect(third.headers.get("retry-after")).toBe(String(3600 - 15));
      expect(third.headers.get("content-type")).toMatch(/^text\/html/);
      expect(third.text).toContain("Too many reports");
      // As JSON for clients that prefer it; invalid input is not even read.
      const json = await report({ link: "", reason: "" }, ip, { accept: "application/json" });
      expect(json.status).toBe(429);
      expect(JSON.parse(json.text)).toEqual({ status: "error", code: "rate_limited", message: "Too many reports from this address; try again later" });
      // Another address is not affected.
      expect((await report({ link: shortUrl("throttled-1"), reason: "spam" }, newAddress())).status).toBe(200);
      // The window slides: an hour after the first, one slot is free again.
      clock.set(start + 3_600_001);
      expect((await report({ link: shortUrl("throttled-1"), reason: "spam" }, ip)).status).toBe(200);
      expect((await report({ link: shortUrl("throttled-1"), reason: "spam" }, ip)).status).toBe(429);
      clock.advance(1000);
    });

    it("bounds refused attempts per address too, without taking accepted slots", async () => {
      const ip = newAddress();
      const limit = failuresPerHour(2);
      expect(limit).toBe(20);
      for (let i = 0; i < limit; i++) expect((await report({ link: "x", reason: "spam" }, ip)).status).toBe(400);
      const after = await report({ link: shortUrl("anything"), reason: "spam" }, ip);
      expect(after.status).toBe(429);
      expect(Number(after.headers.get("retry-after"))).toBe(3600);
      clock.advance(1000);
    });

    it("refuses a cross-origin post (403) and stores nothing; the same origin and no Origin pass", async () => {
      const link = await createLink(owner, { url: "https://example.com/x", alias: "cross-1" });
      const fields = { link: shortUrl("cross-1"), reason: "spam" };
      for (const origin of ["https://evil.example", "null", "http://127.0.0.1:1", "garbage"]) {
        const r = await report(fields, newAddress(), { origin });
        expect(r.status, origin).toBe(403);
        expect(r.text).toContain("Reports can only be sent from this site");
      }
      const json = await report(fields, newAddress(), { origin: "https://evil.example", accept: "application/json" });
      expect(JSON.parse(json.text)).toMatchObject({ status: "error", code: "forbidden" });
      expect(await reportsOf(link.id)).toEqual([]);
      expect((await report(fields, newAddress())).status).toBe(200);
      expect((await report(fields, newAddress(), { origin: "" })).status).toBe(403);
      const noOrigin = await fetch(`${server.url}/report`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": newAddress() },
        body: new URLSearchParams(fields).toString(),
      });
      expect(noOrigin.status).toBe(200);
      expect((await reportsOf(link.id)).length).toBe(2);
      // HTTP/1.0 without Host: still judged by Origin, and a bare alias means the main host.
      const raw = (origin: string) =>
        new Promise<string>((resolve, reject) => {
          const body = `link=cross-1&reason=spam`;
          // Written without ending our side: a half-closed request may be dropped as aborted before the answer.
          const sock = net.connect(Number(new URL(server.url).port), "127.0.0.1", () =>
            sock.write(
              `POST /report HTTP/1.0\r\n${origin}X-Forwarded-For: ${newAddress()}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
            ),
          );
          let data = "";
          sock.on("data", (b) => (data += b.toString("latin1")));
          sock.on("close", () => resolve(data));
          sock.on("error", reject);
        });
      expect(await raw("Origin: https://evil.example\r\n")).toMatch(/^HTTP\/1\.[01] 403 /);
      expect(await raw("")).toMatch(/^HTTP\/1\.[01] 200 /);
      expect((await reportsOf(link.id)).length).toBe(3);
      clock.advance(1000);
    });

    it("refuses hostile input with the form again (input kept, escaped) or 413, storing nothing", async () => {
      await createLink(owner, { url: "https://example.com/h", alias: "hostile-1" });
      const count = (await rows()).length;
      const nul = await report({ link: shortUrl("hostile-1"), reason: "spam", details: "a\u0000b <b>bold</b>" }, newAddress());
      expect(nul.status).toBe(400);
      expect(nul.headers.get("content-type")).toMatch(/^text\/html/);
      expect(nul.text).toContain("The report was not sent");
      expect(nul.text).toContain(">a\uFFFDb &lt;b&gt;bold&lt;/b&gt;</textarea>");
      expect(nul.text).not.toContain("\u0000");

      const unknownReason = await report(
        { link: shortUrl("hostile-1"), reason: "because", details: `"><img src=x onerror=alert(1)>`, email: "me@example.com" },
        newAddress(),
      );
      expect(unknownReason.status).toBe(400);
      expect(unknownReason.text).toContain("Reason: choose one of phishing, malware, spam, illegal, other");
      expect(unknownReason.text).toContain(">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</textarea>");
      expect(unknownReason.text).toContain('value="me@example.com"');
      expect(unknownReason.text).not.toContain("<img");

      const long = await report({ link: shortUrl("hostile-1"), reason: "spam", details: "é".repeat(2001) }, newAddress());
      expect(long.status).toBe(400);
      expect(long.text).toContain("Details: must be at most 2000 characters (you wrote 2001)");
      const badEmail = await report({ link: shortUrl("hostile-1"), reason: "spam", email: "not-an-email" }, newAddress());
      expect(badEmail.status).toBe(400);
      expect(badEmail.text).toContain("Your email: Enter an email address such as you@example.com");
      const missing = await report({}, newAddress());
      expect(missing.status).toBe(400);
      expect(missing.text).toContain("Short link: is required");
      expect(missing.text).toContain("Reason: choose one of");
      const extra = await report({ link: shortUrl("hostile-1"), reason: "spam", admin: "1" }, newAddress());
      expect(extra.status).toBe(400);
      const badJson = await report({ link: shortUrl("hostile-1"), reason: "because" }, newAddress(), { accept: "application/json" });
      expect(badJson.status).toBe(400);
      expect(JSON.parse(badJson.text)).toMatchObject({
        status: "error",
        code: "invalid_request",
        details: [{ field: "reason", message: "choose one of phishing, malware, spam, illegal, other" }],
      });

      const huge = await report(`link=${shortUrl("hostile-1")}&reason=spam&details=${"a".repeat(1024 * 1024)}`, newAddress());
      expect(huge.status).toBe(413);
      expect(huge.headers.get("content-type")).toMatch(/^text\/html/);
      expect((await rows()).length).toBe(count);

      // 2,000 characters exactly (CRLF line breaks counting as one, as the textarea counts them) pass.
      const full = "é".repeat(1990) + "\r\n".repeat(10);
      expect((await report({ link: shortUrl("hostile-1"), reason: "spam", details: full }, newAddress())).status).toBe(200);
      expect((await rows()).length).toBe(count + 1);
      clock.advance(1000);
    });

    it("links the report form from the link's error pages and the password page, not from a 404", async () => {
      await createLink(owner, { url: "https://example.com/e", alias: "expiring-1", expires_at: new Date(clock.now() + 60_000).toISOString() });
      await createLink(owner, { url: "https://example.com/p", alias: "locked-1", password: "open sesame" });
      clock.advance(120_000);
      const expired = await get("/expiring-1");
      expect(expired.status).toBe(410);
      expect(expired.text).toContain('<a href="/report?link=expiring-1">Report this link</a>');
      // Twice: the second answer comes from the fast path's prebuilt page.
      for (let i = 0; i < 2; i++) {
        const locked = await get("/locked-1");
        expect(locked.status).toBe(200);
        expect(locked.text).toContain('<a href="/report">Report this link</a>');
      }
      expect((await get("/no-such-link")).text).not.toContain("Report this link");
      // "report" can never be an alias: the path is the form's.
      const taken = await owner.post("/api/links", { url: "https://example.com/r", alias: "Report" });
      expect(taken.status).toBe(400);
    });
  });

  describe("the operators' queue", () => {
    const list = async (query = "") => {
      const r = await ops.get(`/api/admin/reports${query}`);
      expect(r.status, r.text).toBe(200);
      return r.body as { reports: any[]; next_cursor: string | null };
    };
    const audit = async (target: string) => (await ops.get(`/api/admin/audit?target=${target}`)).body.entries as any[];

    it("is for operators only", async () => {
      expect((await owner.get("/api/admin/reports")).status).toBe(403);
      expect((await owner.post("/api/admin/reports/x/dismiss")).status).toBe(403);
      expect((await new ApiClient(server.url).get("/api/admin/reports")).status).toBe(401);
    });

    it("lists reports newest first with the link (AdminLink), the reporter, and the link's report count; filters and pages", async () => {
      const link = await createLink(owner, { url: "https://example.com/listed", alias: "listed-1" });
      const first = await fileReport("listed-1", "spam", "first");
      const r = await report({ link: shortUrl("listed-1"), reason: "malware", details: "second <b>", email: "someone@example.com" }, newAddress());
      expect(r.status).toBe(200);
      clock.advance(1000);
      const second = (await reportsOf(link.id))[1]!.id;
      const page = await list("?state=open&limit=1");
      expect(page.reports).toHaveLength(1);
      const shown = page.reports[0];
      expect(shown).toMatchObject({
        id: second,
        domain: null,
        alias: "listed-1",
        url: "https://example.com/listed",
        reason: "malware",
        details: "second <b>",
        reporter_email: "someone@example.com",
        state: "open",
        resolved_at: null,
        resolved_by_email: null,
        reports_for_link: 2,
      });
      expect(shown.created_at).toBe(new Date(clock.now() - 1000).toISOString());
      expect(shown.link).toMatchObject({
        id: link.id,
        alias: "listed-1",
        short_url: shortUrl("listed-1"),
        owner_id: ownerId,
        owner_email: OWNER,
        disabled: null,
        destination_blocked: false,
      });
      expect(page.next_cursor).toEqual(expect.any(String));
      const next = await list(`?state=open&limit=1&cursor=${page.next_cursor}`);
      expect(next.reports.map((x) => x.id)).toEqual([first]);
      expect((await list("?state=dismissed")).reports.every((x) => x.state === "dismissed")).toBe(true);
      expect((await ops.get("/api/admin/reports?state=closed")).status).toBe(400);
      expect((await ops.get("/api/admin/reports?cursor=nope")).status).toBe(400);
    });

    it("dismisses a report and the link's other open reports, audited; a resolved report is 409, an unknown one 404", async () => {
      const link = await createLink(owner, { url: "https://example.com/d", alias: "dismiss-1" });
      const a = await fileReport("dismiss-1");
      const b = await fileReport("dismiss-1", "spam");
      const r = await ops.post(`/api/admin/reports/${a}/dismiss`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.report).toMatchObject({
        id: a,
        state: "dismissed",
        resolved_at: new Date(clock.now()).toISOString(),
        resolved_by_email: "ops@example.com",
        reports_for_link: 2,
      });
      expect((await reportsOf(link.id)).map((x) => [x.id, x.state])).toEqual([
        [a, "dismissed"],
        [b, "dismissed"],
      ]);
      const opsId = (await ops.get("/api/profile")).body.user.id;
      const at = new Date(clock.now()).toISOString();
      expect(await audit(a)).toEqual([
        {
          id: expect.any(String),
          at,
          actor_id: opsId,
          actor_email: "ops@example.com",
          actor_role: "operator",
          action: "report.dismiss",
          target_type: "report",
          target_id: a,
          summary: "Report of 127.0.0.1/dismiss-1 (phishing) dismissed",
          before: { state: "open" },
          after: { state: "dismissed", also_resolved: [b] },
        },
      ]);
      expect(await audit(b)).toEqual([
        {
          id: expect.any(String),
          at,
          actor_id: opsId,
          actor_email: "ops@example.com",
          actor_role: "operator",
          action: "report.dismiss",
          target_type: "report",
          target_id: b,
          summary: `Resolved with report ${a} (dismissed)`,
          before: { state: "open" },
          after: { state: "dismissed", resolved_with: a },
        },
      ]);
      // The link is untouched.
      expect(await visit(server.url, "/dismiss-1")).toBe(302);
      for (const action of ["dismiss", "disable-link", "ban-owner"]) {
        const again = await ops.post(`/api/admin/reports/${b}/${action}`, action === "dismiss" ? undefined : {});
        expect(again.status, action).toBe(409);
        expect(again.body.code).toBe("conflict");
      }
      expect((await ops.post("/api/admin/reports/nosuchreport0000/dismiss")).status).toBe(404);
      expect((await audit(b)).length).toBe(1);
    });

    it("disables the link (410, or 451): visitors are refused at once, through the cached fast path too", async () => {
      const link = await createLink(owner, { url: "https://example.com/bad", alias: "disable-1" });
      // Cached: the second visit is answered by the fast path.
      expect(await visit(server.url, "/disable-1")).toBe(302);
      expect(await visit(server.url, "/disable-1")).toBe(302);
      const a = await fileReport("disable-1");
      const b = await fileReport("disable-1", "malware");
      const r = await ops.post(`/api/admin/reports/${a}/disable-link`, { reason: "Phishing page for a bank", status: 410 });
      expect(r.status, r.text).toBe(200);
      const at = new Date(clock.now()).toISOString();
      expect(r.body.report).toMatchObject({ id: a, state: "link_disabled", resolved_by_email: "ops@example.com" });
      expect(r.body.report.link.disabled).toEqual({ reason: "Phishing page for a bank", status: 410, at });
      expect(await visit(server.url, "/disable-1")).toBe(410);
      const page = await get("/disable-1");
      expect(page.status).toBe(410);
      expect(page.text).toContain("disabled by the operator");
      // The owner sees why.
      expect((await owner.get(`/api/links/${link.id}`)).body.link.disabled).toEqual({ reason: "Phishing page for a bank", status: 410, at });
      expect((await reportsOf(link.id)).map((x) => x.state)).toEqual(["link_disabled", "link_disabled"]);
      const opsId = (await ops.get("/api/profile")).body.user.id;
      expect(await audit(a)).toEqual([
        {
          id: expect.any(String),
          at,
          actor_id: opsId,
          actor_email: "ops@example.com",
          actor_role: "operator",
          action: "report.disable_link",
          target_type: "report",
          target_id: a,
          summary: "Report of 127.0.0.1/disable-1 (phishing): link disabled (410): Phishing page for a bank",
          before: { state: "open", link: { id: link.id, disabled: null } },
          after: { state: "link_disabled", link: { id: link.id, disabled: { reason: "Phishing page for a bank", status: 410 } }, also_resolved: [b] },
        },
      ]);
      expect((await audit(b)).map((e) => [e.action, e.after])).toEqual([["report.disable_link", { state: "link_disabled", resolved_with: a }]]);

      // 451, with the default reason.
      await createLink(owner, { url: "https://example.com/legal", alias: "legal-1" });
      expect(await visit(server.url, "/legal-1")).toBe(302);
      const c = await fileReport("legal-1", "illegal");
      const legal = await ops.post(`/api/admin/reports/${c}/disable-link`, { status: 451 });
      expect(legal.status, legal.text).toBe(200);
      expect(legal.body.report.link.disabled).toMatchObject({ reason: "Reported as illegal", status: 451 });
      expect(await visit(server.url, "/legal-1")).toBe(451);
      expect((await ops.post(`/api/admin/reports/${c}/disable-link`, { status: 404 })).status).toBe(400);
    });

    it("bans the owner: suspended (API key refused), every link 410 even when cached, their links' open reports resolved", async () => {
      const bad = await signedInClient(server, "spammer@example.com", "business");
      const badId = (await bad.get("/api/profile")).body.user.id;
      const key = (await bad.post("/api/keys", { name: "k" })).body.secret as string;
      const l1 = await createLink(bad, { url: "https://example.com/s1", alias: "spam-1" });
      const l2 = await createLink(bad, { url: "https://example.com/s2", alias: "spam-2" });
      const l3 = await createLink(bad, { url: "https://example.com/s3", alias: "spam-3" });
      for (const alias of ["spam-1", "spam-2", "spam-1", "spam-2"]) expect(await visit(server.url, `/${alias}`)).toBe(302);
      const c3 = await fileReport("spam-3", "illegal");
      const d3 = await ops.post(`/api/admin/reports/${c3}/disable-link`, { reason: "Earlier decision", status: 451 });
      expect(d3.status).toBe(200);
      const a = await fileReport("spam-1", "spam");
      const b = await fileReport("spam-2", "spam");
      const r = await ops.post(`/api/admin/reports/${a}/ban-owner`, { reason: "Spam campaign" });
      expect(r.status, r.text).toBe(200);
      expect(r.body.report).toMatchObject({ id: a, state: "owner_banned", resolved_by_email: "ops@example.com" });
      expect(r.body.report.link.disabled).toMatchObject({ reason: "Spam campaign", status: 410 });

      const user = await server.ctx.storage.db.selectFrom("users").select("status").where("id", "=", badId).executeTakeFirstOrThrow();
      expect(user.status).toBe("suspended");
      const api = await fetch(server.url + EXTERNAL_CREATE_PATH, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ url: "https://example.com/new" }),
      });
      expect(api.status).toBe(403);
      expect(((await api.json()) as { code: string }).code).toBe("account_inactive");
      expect(await visit(server.url, "/spam-1")).toBe(410);
      expect(await visit(server.url, "/spam-2")).toBe(410);
      // A link disabled before keeps its own decision.
      expect(await visit(server.url, "/spam-3")).toBe(451);
      expect((await reportsOf(l2.id)).map((x) => x.state)).toEqual(["owner_banned"]);
      expect((await reportsOf(l3.id)).map((x) => x.state)).toEqual(["link_disabled"]);
      const opsId = (await ops.get("/api/profile")).body.user.id;
      const at = new Date(clock.now()).toISOString();
      expect(await audit(a)).toEqual([
        {
          id: expect.any(String),
          at,
          actor_id: opsId,
          actor_email: "ops@example.com",
          actor_role: "operator",
          action: "report.ban_owner",
          target_type: "report",
          target_id: a,
          summary: "Report of 127.0.0.1/spam-1 (spam): owner spammer@example.com suspended, 2 link(s) disabled: Spam campaign",
          before: { state: "open", owner: { id: badId, email: "spammer@example.com", status: "active" } },
          after: {
            state: "owner_banned",
            owner: { id: badId, email: "spammer@example.com", status: "suspended" },
            links_disabled: expect.arrayContaining([l1.id, l2.id]),
            also_resolved: [b],
          },
        },
      ]);
      expect((await audit(a))[0].after.links_disabled).toHaveLength(2);
      expect((await audit(b)).map((e) => [e.action, e.after])).toEqual([["report.ban_owner", { state: "owner_banned", resolved_with: a }]]);
    });

    it("refuses to ban without an owner or one's own account, and to act on a deleted link (409), leaving the report open", async () => {
      const anon = await new ApiClient(server.url).init();
      const made = await anon.post("/api/links", { url: "https://example.com/anon" });
      expect(made.status).toBe(201);
      const anonReport = await fileReport(made.body.link.alias);
      const noOwner = await ops.post(`/api/admin/reports/${anonReport}/ban-owner`, {});
      expect(noOwner.status).toBe(409);
      expect(noOwner.body.message).toContain("no owner");

      const own = await createLink(ops, { url: "https://example.com/mine", alias: "ops-own-1" });
      const ownReport = await fileReport("ops-own-1");
      expect((await ops.post(`/api/admin/reports/${ownReport}/ban-owner`, {})).status).toBe(409);
      expect((await ops.get("/api/profile")).body.user.status).toBe("active");

      const doomed = await createLink(owner, { url: "https://example.com/gone", alias: "gone-1" });
      const goneReport = await fileReport("gone-1");
      expect((await owner.delete(`/api/links/${doomed.id}`)).status).toBe(200);
      // No body at all is the same as {}.
      expect((await ops.post(`/api/admin/reports/${goneReport}/disable-link`)).status).toBe(409);
      const listed = (await list("?state=open")).reports.find((x) => x.id === goneReport);
      expect(listed).toMatchObject({ link: null, alias: "gone-1", domain: null, url: "https://example.com/gone", reports_for_link: 1 });
      expect((await rows()).filter((x) => [anonReport, ownReport, goneReport].includes(x.id)).map((x) => x.state)).toEqual(["open", "open", "open"]);
      expect((await ops.post(`/api/admin/reports/${goneReport}/dismiss`)).status).toBe(200);
      expect(own.id).toEqual(expect.any(String));
    });
  });
});
