// The "+" page (docs/api.md, Where a link goes): `/{alias}+` answers every link state's page without a visit and
// without a click, hides what each state hides, escapes every piece of the owner's text, and sends the same
// headers as the other server-written pages (CSP without script, noindex, no-store).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLink, storedClicks } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { operator } from "../helpers/operator.js";
import { ManualClock } from "../../src/shared/clock.js";
import { HTML_CSP } from "../../src/http/pages.js";
import { type CheckingServer, startCheckingServer } from "../helpers/health-receivers.js";

const DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const HOUR = 3_600_000;

/** The page's visible words, tags dropped (what a reader sees). */
function words(html: string): string {
  return html
    .replace(/<style>[\s\S]*?<\/style>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");
}

describe.each(ENGINES)('the "+" page on %s', (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let pro: ApiClient;
  const plus = (alias: string, headers: Record<string, string> = {}, method = "GET") =>
    fetch(`${server.url}/${alias}+`, { method, redirect: "manual", headers: { "user-agent": DESKTOP, ...headers } });
  const create = (body: Record<string, unknown>) => createLink(pro, body);

  beforeAll(async () => {
    clock = new ManualClock(Date.parse("2026-03-01T10:00:00Z"));
    server = await startTestServer({ engine, clock });
    pro = await signedInClient(server, "plus-owner@example.com", "business");
  });
  afterAll(async () => server?.close());

  it("an active link: its whole destination, title, dates, other destinations and a button on; no click, no redirect", async () => {
    const link = await create({
      url: "https://example.com/landing?utm_source=a&b=<c>",
      alias: "plus-active",
      title: "Spring sale",
      expires_at: "2026-06-01T00:00:00.000Z",
      ios_url: "https://apps.apple.com/app/id1",
      rules: [{ if: { country: ["DE"] }, url: "https://example.de/" }],
      split: [
        { url: "https://example.com/landing?utm_source=a&b=<c>", weight: 50 },
        { url: "https://example.com/b", weight: 50 },
      ],
    });
    const r = await plus("plus-active");
    expect(r.status).toBe(200);
    expect(r.headers.get("location")).toBeNull();
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(r.headers.get("content-security-policy")).toBe(HTML_CSP);
    expect(r.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    const html = await r.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<meta name="robots" content="noindex">');
    // Stored normalised (as every destination is), shown whole and escaped.
    expect(html).toContain("https://example.com/landing?utm_source=a&amp;b=%3Cc%3E");
    const text = words(html);
    expect(text).toContain("Spring sale");
    expect(text).toContain("Active: it opens its destination.");
    expect(text).toContain("Created 2026-03-01 10:00 UTC");
    expect(text).toContain("Expires On 2026-06-01 00:00 UTC");
    expect(text).toContain("https://example.de/ by a redirect rule");
    expect(text).toContain("https://example.com/b in a split test");
    expect(text).toContain("https://apps.apple.com/app/id1 on iPhone and iPad");
    // The main destination is listed once, not again as a split's variant.
    expect(text.split("https://example.com/landing?utm_source=a&amp;b=%3Cc%3E").length).toBe(2);
    // The destination is text; the only way on is the short link itself, then the report form.
    expect(html).not.toContain('href="https://example.com/landing');
    expect(html).toContain('<a class="btn" href="/plus-active" rel="nofollow noreferrer">Continue to the link</a>');
    expect(html).toContain('href="/report?link=plus-active"');
    // Destinations are not checked on this server (LINK_CHECKS=off): the page says nothing of their health.
    expect(html).not.toContain("data-health");
    // HEAD answers alike, and neither counted a click.
    expect((await plus("plus-active", {}, "HEAD")).status).toBe(200);
    expect(await storedClicks(server, link.id)).toBe(0);
  });

  it("escapes the owner's text: a title and destination made to break out of the page", async () => {
    await create({ url: 'https://example.com/"><script>alert(1)</script>', alias: "plus-xss", title: '<img src=x onerror="alert(1)">' });
    const html = await (await plus("plus-xss")).text();
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).toContain("https://example.com/%22%3E%3Cscript%3Ealert(1)%3C/script%3E");
  });

  it("a password link shows only that a password is asked: no destination, title or dates", async () => {
    await create({ url: "https://secret.example/doc", alias: "plus-pw", password: "pw-1234", title: "Board minutes" });
    const r = await plus("plus-pw");
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).not.toContain("secret.example");
    expect(html).not.toContain("Board minutes");
    expect(html).not.toContain("Created");
    expect(words(html)).toContain("Protected by a password: its destination is shown only to people who have the password.");
    expect(html).toContain('href="/plus-pw"');
  });

  it("expired, limited and scheduled links: their state, no button on; a scheduled link hides where it goes", async () => {
    await create({ url: "https://example.com/old", alias: "plus-expired", expires_at: new Date(clock.now() + HOUR).toISOString() });
    const limited = await create({ url: "https://example.com/few", alias: "plus-limited", max_clicks: 1 });
    await create({ url: "https://launch.example/new", alias: "plus-later", starts_at: "2026-04-01T09:30:00.000Z" });
    expect((await fetch(`${server.url}/plus-limited`, { redirect: "manual" })).status).toBe(302);
    clock.advance(2 * HOUR);

    const expired = await (await plus("plus-expired")).text();
    expect(words(expired)).toContain("Expired: it no longer opens its destination.");
    expect(words(expired)).toContain("Expires Expired on 2026-03-01 11:00 UTC");
    expect(expired).toContain("https://example.com/old");
    expect(expired).not.toContain("Continue to the link");

    const used = await (await plus("plus-limited")).text();
    expect(words(used)).toContain("Its click limit is used up");
    expect(words(used)).toContain("Click limit 1 clicks");
    expect(used).not.toContain("Continue to the link");
    expect(await storedClicks(server, limited.id)).toBe(1);

    const later = await (await plus("plus-later")).text();
    expect(words(later)).toContain("Not open yet: it opens on 2026-04-01 09:30 UTC.");
    expect(later).not.toContain("launch.example");
    expect(later).not.toContain("Continue to the link");
  });

  it("blocked, disabled and reported links say so and hide the destination of the first two", async () => {
    const ops = await operator(server, `plus-ops-${engine}@example.com`);
    await create({ url: "https://phish.example.net/login", alias: "plus-blocked" });
    expect((await ops.client.post("/api/admin/blocklist", { host: "phish.example.net" })).status).toBe(201);
    const blocked = await (await plus("plus-blocked")).text();
    expect(words(blocked)).toContain("Disabled: it leads to a site this service has blocked as harmful.");
    expect(blocked).not.toContain("phish.example.net");

    const off = await create({ url: "https://takedown.example/x", alias: "plus-off" });
    expect((await ops.client.post(`/api/admin/links/${off.id}/disable`, { reason: "Court order", status: 451 })).status).toBe(200);
    const disabled = await (await plus("plus-off")).text();
    expect(words(disabled)).toContain("Disabled by the operator of this service.");
    expect(disabled).not.toContain("takedown.example");
    expect(disabled).not.toContain("Court order");

    await create({ url: "https://example.com/odd", alias: "plus-reported" });
    expect(words(await (await plus("plus-reported")).text())).not.toContain("Reported to the operators");
    const report = await fetch(`${server.url}/report`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ link: "plus-reported", reason: "phishing", details: "", email: "" }).toString(),
    });
    expect(report.status).toBe(200);
    expect(words(await (await plus("plus-reported")).text())).toContain("Reported to the operators of this service; not yet reviewed.");
  });

  it("unknown, reserved and malformed aliases answer 404 like a visit; JSON for clients that ask", async () => {
    for (const path of ["no-such-link+", "api+", "a+", "%2B", "ab%2Bcd+", `${"x".repeat(70)}+`, "plus+active+"]) {
      const r = await fetch(`${server.url}/${path}`, { redirect: "manual" });
      expect(r.status, path).toBe(404);
      await r.arrayBuffer();
    }
    const json = await fetch(`${server.url}/missing-one+`, { headers: { accept: "application/json" } });
    expect(json.status).toBe(404);
    expect(await json.json()).toMatchObject({ status: "error", code: "not_found" });
  });
});

describe.each(ENGINES)('the "+" page with link checks on (%s)', (engine) => {
  let checking: CheckingServer;
  let server: TestServer;
  let owner: ApiClient;
  const clock = new ManualClock(Date.parse("2026-03-01T10:00:00Z"));
  const dest = () => checking.dest;
  const check = () => server.ctx.linkHealth.runNow();
  /** The Health fact: its state attribute, whether it is a warning, and its words. */
  const healthOf = async (alias: string) => {
    const html = await (await fetch(`${server.url}/${alias}+`, { headers: { "user-agent": DESKTOP } })).text();
    expect(html).not.toMatch(/<script/i);
    const m = /<dt>Health<\/dt><dd><span( class="warn")? data-health="([a-z]+)">([^<]*)<\/span><\/dd>/.exec(html);
    return m ? { state: m[2], warn: m[1] !== undefined, text: m[3] } : null;
  };

  beforeAll(async () => {
    checking = await startCheckingServer({ engine, clock });
    server = checking.server;
    owner = await signedInClient(server, `plus-health-${engine}@example.com`, "business");
  });
  afterAll(async () => checking?.close());

  it("says whether the destination answers, since when it does not, and when it was checked; no click counted", async () => {
    const ok = await createLink(owner, { url: `${dest().origin}/ok`, alias: "health-ok" });
    await createLink(owner, { url: `${dest().origin}/500`, alias: "health-down" });
    await createLink(owner, { url: `${dest().origin}/429`, alias: "health-unknown" });
    await createLink(owner, { url: `${dest().origin}/ok`, ios_url: `${dest().origin}/404`, alias: "health-others" });
    await createLink(owner, { url: `${dest().origin}/500`, alias: "health-pw", password: "pw-123456" });
    expect(await healthOf("health-ok")).toEqual({ state: "unknown", warn: false, text: "Not checked yet." });
    await check();
    expect(await healthOf("health-ok")).toEqual({ state: "ok", warn: false, text: "Answering when checked just now." });
    expect(await healthOf("health-down")).toEqual({
      state: "failing",
      warn: false,
      text: "Did not answer when checked just now; it is checked again within the hour.",
    });
    expect(await healthOf("health-unknown")).toEqual({ state: "unknown", warn: false, text: "Not checked yet." });
    // A password link hides where it goes, and so whether that answers.
    expect(await healthOf("health-pw")).toBeNull();
    for (let i = 0; i < 2; i++) {
      clock.advance(HOUR);
      await check();
    }
    clock.advance(3 * HOUR + 20 * 60_000);
    expect(await healthOf("health-ok")).toEqual({ state: "ok", warn: false, text: "Answering when checked 5 hours ago." });
    expect(await healthOf("health-down")).toEqual({
      state: "broken",
      warn: true,
      text: "Not answering since 2026-03-01 12:00 UTC (checked 3 hours ago).",
    });
    expect(await healthOf("health-others")).toEqual({
      state: "ok",
      warn: true,
      text: "Answering when checked 5 hours ago. 1 of the other destinations is not answering.",
    });
    expect(await storedClicks(server, ok.id)).toBe(0);
  });

  it("an expired link says nothing of a destination it no longer opens", async () => {
    await createLink(owner, { url: `${dest().origin}/ok`, alias: "health-expired", expires_at: new Date(clock.now() + HOUR).toISOString() });
    await check();
    expect((await healthOf("health-expired"))?.state).toBe("ok");
    clock.advance(2 * HOUR);
    expect(await healthOf("health-expired")).toBeNull();
  });
});
