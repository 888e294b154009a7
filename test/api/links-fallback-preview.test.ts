// The fallback URL (a 302 there once a link expired or used its clicks, without a click) and the preview
// card (a page of Open Graph and Twitter tags for link-preview crawlers, a 302 for everyone else), on the
// cached fast path and the full one alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLink, storedClicks } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { ManualClock } from "../../src/shared/clock.js";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const CRAWLERS: Record<string, string> = {
  Slackbot: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  Twitterbot: "Twitterbot/1.0",
  facebookexternalhit: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  LinkedInBot: "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
  Discordbot: "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
  WhatsApp: "WhatsApp/2.23.20.0 A",
  TelegramBot: "TelegramBot (like TwitterBot)",
  Applebot:
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
  Skype: "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5",
  Mastodon: "http.rb/5.1.1 (Mastodon/4.2.0; +https://mastodon.social/) Bot",
};

describe.each(ENGINES)("fallback URL and preview card on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let pro: ApiClient;
  const go = (alias: string, ua = CHROME) => fetch(`${server.url}/${alias}`, { redirect: "manual", headers: { "user-agent": ua } });
  /** Twice: the second answer comes from the link cache (the fast path), and must be the same. */
  const twice = async (alias: string, ua = CHROME) => {
    const a = await go(alias, ua);
    const b = await go(alias, ua);
    expect(b.status).toBe(a.status);
    expect(b.headers.get("location")).toBe(a.headers.get("location"));
    return a;
  };

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    server = await startTestServer({ engine, clock });
    pro = await signedInClient(server, "fallback@example.com", "pro");
  });
  afterAll(async () => server?.close());

  it("expired with a fallback: 302 to it and no click; without one, 410 as before", async () => {
    const at = new Date(clock.now() + 60_000).toISOString();
    const fb = await createLink(pro, { url: "https://example.com/live", alias: "fb-expiring", expires_at: at, expired_url: "https://example.com/over" });
    await createLink(pro, { url: "https://example.com/live", alias: "no-fb-expiring", expires_at: at });
    const pw = await createLink(pro, {
      url: "https://example.com/live",
      alias: "fb-expiring-pw",
      expires_at: at,
      expired_url: "https://example.com/over-pw",
      password: "pw",
    });
    expect((await twice("fb-expiring")).headers.get("location")).toBe("https://example.com/live");
    expect(await storedClicks(server, fb.id)).toBe(2);
    clock.advance(60_000);
    const r = await twice("fb-expiring");
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("https://example.com/over");
    expect(await storedClicks(server, fb.id)).toBe(2);
    expect((await twice("no-fb-expiring")).status).toBe(410);
    // Expiry comes before the password: the fallback needs none.
    expect((await twice("fb-expiring-pw")).headers.get("location")).toBe("https://example.com/over-pw");
    expect(await storedClicks(server, pw.id)).toBe(0);
  });

  it("click limit reached with a fallback: 302 to it, the count stays at the limit; device destinations before", async () => {
    const link = await createLink(pro, {
      url: "https://example.com/a",
      ios_url: "https://apps.apple.com/x",
      alias: "fb-limited",
      max_clicks: 2,
      expired_url: "https://example.com/sold-out",
    });
    expect((await go("fb-limited", IPHONE)).headers.get("location")).toBe("https://apps.apple.com/x");
    expect((await go("fb-limited")).headers.get("location")).toBe("https://example.com/a");
    for (const ua of [CHROME, IPHONE]) {
      const r = await go("fb-limited", ua);
      expect(r.status).toBe(302);
      expect(r.headers.get("location")).toBe("https://example.com/sold-out");
    }
    expect(await storedClicks(server, link.id)).toBe(2);
    // Password links at their limit: the fallback, not the form.
    await createLink(pro, { url: "https://example.com/p", alias: "fb-limited-pw", max_clicks: 1, password: "pw", expired_url: "https://example.com/pw-over" });
    const unlock = await fetch(`${server.url}/fb-limited-pw`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "password=pw",
    });
    expect(unlock.headers.get("location")).toBe("https://example.com/p");
    expect((await go("fb-limited-pw")).headers.get("location")).toBe("https://example.com/pw-over");
    // Removing the fallback brings back the 403.
    const id = (await pro.get("/api/links")).body.links.find((l: { alias: string }) => l.alias === "fb-limited").id;
    await pro.patch(`/api/links/${id}`, { expired_url: null });
    expect((await twice("fb-limited")).status).toBe(403);
  });

  it("each listed crawler gets the card page with escaped Open Graph and Twitter tags, counted as a bot click", async () => {
    const link = await createLink(pro, {
      url: "https://example.com/landing?a=1&b=2",
      alias: "carded",
      preview: { title: `Big "sale" <now>`, description: "Half & half", image: "https://cdn.example.com/card.png" },
    });
    for (const [name, ua] of Object.entries(CRAWLERS)) {
      const r = await twice("carded", ua);
      expect(r.status, name).toBe(200);
      expect(r.headers.get("content-type"), name).toBe("text/html; charset=utf-8");
      const html = await r.text();
      expect(html, name).toContain(`<meta property="og:title" content="Big &quot;sale&quot; &lt;now&gt;">`);
      expect(html).toContain(`<meta property="og:description" content="Half &amp; half">`);
      expect(html).toContain(`<meta property="og:image" content="https://cdn.example.com/card.png">`);
      expect(html).toContain(`<meta name="twitter:card" content="summary_large_image">`);
      expect(html).toContain(`<meta http-equiv="refresh" content="0;url=https://example.com/landing?a=1&amp;b=2">`);
      expect(html).not.toContain("<now>");
    }
    const crawlerVisits = Object.keys(CRAWLERS).length * 2;
    expect(await storedClicks(server, link.id)).toBe(crawlerVisits);
    const stats = await pro.get(`/api/links/${link.id}/stats`);
    expect(stats.body.bots).toBe(crawlerVisits);

    // A person's browser and command-line clients get the 302 as before.
    for (const ua of [CHROME, IPHONE, "curl/8.5.0", "Wget/1.21.4", "python-requests/2.31.0", ""]) {
      const r = await twice("carded", ua);
      expect(r.status, ua).toBe(302);
      expect(r.headers.get("location")).toBe("https://example.com/landing?a=1&b=2");
    }
  });

  it("a link without a card sends crawlers the 302; a card without an image is a summary card titled by the short URL when untitled", async () => {
    await createLink(pro, { url: "https://example.com/plain", alias: "no-card" });
    const r = await twice("no-card", CRAWLERS.Slackbot);
    expect(r.status).toBe(302);
    await createLink(pro, { url: "https://example.com/d", alias: "desc-only", preview: { description: "Only words" } });
    const html = await (await go("desc-only", CRAWLERS.Twitterbot)).text();
    expect(html).toContain(`<meta name="twitter:card" content="summary">`);
    expect(html).toContain(`<meta property="og:title" content="${server.url}/desc-only">`);
    expect(html).not.toContain("og:image");
  });
});
