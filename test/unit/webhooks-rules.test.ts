// Webhook rules without a server: address classes and spellings, connector hosts, the payload and the
// three connector messages (hostile text escaped), the signature recipe, and the secret box.
import { createHmac, timingSafeEqual } from "node:crypto";
import { describe, expect, it } from "vitest";
import { addressAllowed, classifyAddress, isConnectorHost, parseReceiverUrl } from "../../src/webhooks/address-guard.js";
import { type LinkClickEvent, bodyFor, discordMessage, escapeDiscord, escapeSlack, slackMessage, teamsMessage, teamsText } from "../../src/webhooks/payload.js";
import { SecretBox, newWebhookSecret, signatureHeader } from "../../src/webhooks/secrets.js";
import { INTERNAL_URLS } from "../helpers/internal-addresses.js";

describe("address classes", () => {
  it.each(INTERNAL_URLS)("%s is %s and refused", (url, cls) => {
    const { host, literal } = parseReceiverUrl(url);
    expect(literal).toBe(true);
    expect(classifyAddress(host)).toBe(cls);
    expect(addressAllowed(host, false)).toEqual({ ok: false, cls });
  });

  it("public addresses pass", () => {
    for (const ip of ["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "2a00:1450:4001::1"]) {
      expect([ip, classifyAddress(ip)]).toEqual([ip, "public"]);
    }
  });

  it("WEBHOOK_ALLOW_PRIVATE lets loopback and private through, never link-local, multicast, reserved or mapped forms", () => {
    for (const ip of ["127.0.0.1", "::1", "10.0.0.1", "192.168.0.1", "fd00::1"]) expect(addressAllowed(ip, true)).toEqual({ ok: true });
    for (const ip of ["169.254.169.254", "fe80::1", "224.0.0.1", "0.0.0.0", "::ffff:7f00:1", "240.0.0.1", "100.64.0.1"]) {
      expect(addressAllowed(ip, true).ok).toBe(false);
    }
  });

  it("only https, no credentials, at most 2048 characters", () => {
    expect(() => parseReceiverUrl("http://example.com/")).toThrow("https");
    expect(() => parseReceiverUrl("ftp://example.com/")).toThrow("https");
    expect(() => parseReceiverUrl("https://user:pw@example.com/")).toThrow("user name");
    expect(() => parseReceiverUrl("not a url")).toThrow("absolute");
    expect(() => parseReceiverUrl(`https://example.com/${"a".repeat(2048)}`)).toThrow("2048");
    expect(parseReceiverUrl("https://Example.COM./x").host).toBe("example.com");
  });

  it("connector kinds only accept their chat tool's hosts", () => {
    expect(isConnectorHost("slack", "hooks.slack.com")).toBe(true);
    expect(isConnectorHost("slack", "hooks.slack.com.evil.com")).toBe(false);
    expect(isConnectorHost("slack", "evilhooks.slack.com")).toBe(false);
    expect(isConnectorHost("discord", "discord.com")).toBe(true);
    expect(isConnectorHost("discord", "discordapp.com")).toBe(true);
    expect(isConnectorHost("discord", "discord.com.evil.io")).toBe(false);
    expect(isConnectorHost("teams", "contoso.webhook.office.com")).toBe(true);
    expect(isConnectorHost("teams", "prod-01.westus.logic.azure.com")).toBe(true);
    expect(isConnectorHost("teams", "webhook.office.com")).toBe(false);
    expect(isConnectorHost("teams", "evilwebhook.office.com")).toBe(false);
    expect(isConnectorHost("teams", "hooks.slack.com")).toBe(false);
  });
});

const HOSTILE = `<!channel> *bold* _it_ [x](https://evil.example) @everyone <@123> \`code\` & </script>`;

function event(over: Partial<LinkClickEvent["link"]> = {}): LinkClickEvent {
  const link = { id: "L1", alias: "promo", domain: null, short_url: "https://sn.ip/promo", url: "https://example.com/a?b=1&c=2", folder_id: null, ...over };
  return {
    version: 1,
    id: "6f1c0f0e-5d3a-4d0b-9a37-2a4f7b5c9e11",
    type: "link_click",
    created_at: "2026-11-23T10:00:00.000Z",
    test: false,
    link,
    click: {
      at: "2026-11-23T09:59:59.000Z",
      country: "DE",
      device: "mobile",
      os: "iOS",
      browser: "Mobile Safari",
      referrer_host: "news.example",
      bot: false,
      destination: "default",
      source: "link",
    },
  };
}

describe("payloads", () => {
  it("a custom receiver gets the event as docs/webhooks.md gives it, nothing more (no IP)", () => {
    const e = event();
    expect(JSON.parse(bodyFor("custom", e))).toEqual({
      version: 1,
      id: e.id,
      type: "link_click",
      created_at: "2026-11-23T10:00:00.000Z",
      test: false,
      link: { id: "L1", alias: "promo", domain: null, short_url: "https://sn.ip/promo", url: "https://example.com/a?b=1&c=2", folder_id: null },
      click: {
        at: "2026-11-23T09:59:59.000Z",
        country: "DE",
        device: "mobile",
        os: "iOS",
        browser: "Mobile Safari",
        referrer_host: "news.example",
        bot: false,
        destination: "default",
        source: "link",
      },
    });
  });

  it("Slack: text + blocks, user text in plain_text or escaped", () => {
    expect(slackMessage(event())).toMatchInlineSnapshot(`
      {
        "blocks": [
          {
            "text": {
              "emoji": false,
              "text": "Link clicked",
              "type": "plain_text",
            },
            "type": "header",
          },
          {
            "fields": [
              {
                "emoji": false,
                "text": "Short URL: https://sn.ip/promo",
                "type": "plain_text",
              },
              {
                "emoji": false,
                "text": "Destination: https://example.com/a?b=1&c=2",
                "type": "plain_text",
              },
              {
                "emoji": false,
                "text": "Country: DE",
                "type": "plain_text",
              },
              {
                "emoji": false,
                "text": "Device: mobile",
                "type": "plain_text",
              },
            ],
            "type": "section",
          },
        ],
        "text": "Click on https://sn.ip/promo -&gt; https://example.com/a?b=1&amp;c=2 (country DE, device mobile)",
      }
    `);
    const hostile = slackMessage(event({ url: `https://example.com/${HOSTILE}` }));
    expect(hostile.text).not.toMatch(/[<>]/);
    expect(hostile.text).toContain("&lt;!channel&gt;");
    expect(hostile.text).not.toMatch(/&(?!amp;|lt;|gt;)/);
    for (const f of hostile.blocks[1]?.fields ?? []) expect(f.type).toBe("plain_text");
    expect(escapeSlack("a<b>&c")).toBe("a&lt;b&gt;&amp;c");
  });

  it("Discord: content + embeds, markdown escaped, no mentions", () => {
    expect(discordMessage(event())).toMatchInlineSnapshot(`
      {
        "allowed_mentions": {
          "parse": [],
        },
        "content": "Click on https://sn.ip/promo",
        "embeds": [
          {
            "description": "https://sn.ip/promo → https://example.com/a?b=1&c=2",
            "fields": [
              {
                "inline": false,
                "name": "Short URL",
                "value": "https://sn.ip/promo",
              },
              {
                "inline": false,
                "name": "Destination",
                "value": "https://example.com/a?b=1&c=2",
              },
              {
                "inline": true,
                "name": "Country",
                "value": "DE",
              },
              {
                "inline": true,
                "name": "Device",
                "value": "mobile",
              },
            ],
            "timestamp": "2026-11-23T09:59:59.000Z",
            "title": "Link clicked",
          },
        ],
      }
    `);
    const out = escapeDiscord(HOSTILE);
    expect(out).toBe("\\<!channel\\> \\*bold\\* \\_it\\_ \\[x\\]\\(https://evil.example\\) \\@everyone \\<\\@123\\> \\`code\\` & \\</script\\>");
    expect(discordMessage(event({ url: HOSTILE })).allowed_mentions).toEqual({ parse: [] });
  });

  it("Teams: an Adaptive Card message, URLs raw and clickable (buttons too), only markdown characters made harmless", () => {
    const msg = teamsMessage(event());
    expect(msg.type).toBe("message");
    expect(msg.attachments).toHaveLength(1);
    const card = msg.attachments[0];
    expect(card?.contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(card?.content.type).toBe("AdaptiveCard");
    expect(card?.content.body).toMatchInlineSnapshot(`
      [
        {
          "size": "Medium",
          "text": "Link clicked",
          "type": "TextBlock",
          "weight": "Bolder",
          "wrap": true,
        },
        {
          "facts": [
            {
              "title": "Short URL",
              "value": "https://sn.ip/promo",
            },
            {
              "title": "Destination",
              "value": "https://example.com/a?b=1&c=2",
            },
            {
              "title": "Country",
              "value": "DE",
            },
            {
              "title": "Device",
              "value": "mobile",
            },
          ],
          "type": "FactSet",
        },
      ]
    `);
    expect(card?.content.actions).toEqual([
      { type: "Action.OpenUrl", title: "Open destination", url: "https://example.com/a?b=1&c=2" },
      { type: "Action.OpenUrl", title: "Open short link", url: "https://sn.ip/promo" },
    ]);
    // No markdown link, emphasis, list, code or escape survives; what is no markdown stays as it was.
    expect(teamsText(HOSTILE)).toBe("%3C!channel%3E %2Abold%2A %5Fit%5F %5Bx%5D%28https://evil.example%29 @everyone %3C@123%3E %60code%60 & %3C/script%3E");
    expect(teamsText("https://example.com/a_b/(c)*~d\\e")).toBe("https://example.com/a%5Fb/%28c%29%2A%7Ed%5Ce");
    // Still one valid address; a percent-encoded unreserved character names the same resource (RFC 3986, 6.2.2.2).
    expect(new URL(teamsText("https://example.com/a_b~c")).pathname).toBe("/a%5Fb%7Ec");
    const hostile = teamsMessage(event({ url: `https://example.com/[x](https://evil.example)` }));
    expect(hostile.attachments[0]?.content.body[1]).toMatchObject({
      facts: expect.arrayContaining([{ title: "Destination", value: "https://example.com/%5Bx%5D%28https://evil.example%29" }]),
    });
  });
});

describe("signature", () => {
  it("connectors name the click's destination as a Route when it is not the link's url", () => {
    const routed: LinkClickEvent = { ...event(), click: { ...event().click, destination: "variant:2" } };
    expect(slackMessage(routed).blocks[1]!.fields!.at(-1)).toEqual({ type: "plain_text", text: "Route: variant:2", emoji: false });
    expect(discordMessage(routed).embeds[0]!.fields.at(-1)).toEqual({ name: "Route", value: "variant:2", inline: true });
    expect(teamsMessage(routed).attachments[0]!.content.body[1]!.facts!.at(-1)).toEqual({ title: "Route", value: "variant:2" });
    expect(slackMessage(event()).blocks[1]!.fields!.map((f) => f.text)).not.toContain("Route: default");
    expect(discordMessage(event()).embeds[0]!.fields.map((f) => f.name)).not.toContain("Route");
    expect(teamsMessage(event()).attachments[0]!.content.body[1]!.facts!.map((f) => f.title)).not.toContain("Route");
  });

  it("t=<unix>,v1=<hex HMAC-SHA256(secret, t.body)> verifies with the documented recipe", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const body = '{"version":1}';
    const header = signatureHeader(secret, 1_790_000_000, body);
    // The recipe of docs/webhooks.md, written out independently.
    const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
    expect(m).not.toBeNull();
    const expected = createHmac("sha256", secret).update(`${m?.[1]}.${body}`).digest();
    expect(timingSafeEqual(Buffer.from(m?.[2] ?? "", "hex"), expected)).toBe(true);
    expect(signatureHeader(secret, 1_790_000_000, body + " ")).not.toBe(header);
    expect(signatureHeader(newWebhookSecret(), 1_790_000_000, body)).not.toBe(header);
  });
});

describe("secret box", () => {
  it("seals with AES-256-GCM bound to the webhook id; another key or id cannot open it", () => {
    const box = new SecretBox("s".repeat(40));
    const secret = newWebhookSecret();
    const sealed = box.seal(secret, "wh1");
    expect(sealed).not.toContain(secret.slice(6));
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(box.open(sealed, "wh1")).toBe(secret);
    expect(box.open(sealed, "wh2")).toBeNull();
    expect(new SecretBox("t".repeat(40)).open(sealed, "wh1")).toBeNull();
    const parts = sealed.split(".");
    const tampered = [
      parts[0],
      parts[1],
      parts[2],
      Buffer.from("x" + Buffer.from(parts[3] ?? "", "base64url").toString("latin1"), "latin1").toString("base64url"),
    ].join(".");
    expect(box.open(tampered, "wh1")).toBeNull();
    expect(box.seal(secret, "wh1")).not.toBe(sealed); // a fresh IV each time
  });
});

describe("WEBHOOK_ALLOW_PRIVATE", () => {
  it("is off by default, true/false/1/0 accepted, anything else stops start-up naming the variable", async () => {
    const { loadConfig } = await import("../../src/config.js");
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const base = { DATA_DIR: mkdtempSync(join(tmpdir(), "snip-cfg-")), SESSION_SECRET: "x".repeat(40) };
    expect(loadConfig(base).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ ...base, WEBHOOK_ALLOW_PRIVATE: "true" }).webhookAllowPrivate).toBe(true);
    expect(loadConfig({ ...base, WEBHOOK_ALLOW_PRIVATE: "0" }).webhookAllowPrivate).toBe(false);
    expect(() => loadConfig({ ...base, WEBHOOK_ALLOW_PRIVATE: "yes" })).toThrow('WEBHOOK_ALLOW_PRIVATE: must be true or false, got "yes"');
  });
});
