// Webhooks over real HTTP on both engines: management rules (plan, five per account, IDOR, validation,
// secret once and rotation), deliveries to real HTTPS receivers on loopback (signature, payload, timeout,
// redirect, queue bound and drops, connectors, TLS checked against the host name), DNS through a real
// loopback DNS server (rebinding), and the SSRF table at creation with WEBHOOK_ALLOW_PRIVATE off.
//
// The server runs in this process, so NODE_EXTRA_CA_CERTS (read once when Node starts) cannot bring the
// test CA in: the context takes it as an override (Node's bundled roots + the CA). webhooks-ca.test.ts
// runs the real `snip serve` as a child process with NODE_EXTRA_CA_CERTS, the production path.
import { createHmac, timingSafeEqual } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { UA, visit } from "../helpers/visit.js";
import { type Receiver, type TestCa, type TestDns, makeTestCa, startDns, startReceiver } from "../helpers/webhook-receivers.js";
import { INTERNAL_URLS } from "../helpers/internal-addresses.js";
import { waitFor } from "../helpers/wait.js";

const PUBLIC_IP = "93.184.216.34";

/** The receiver recipe of docs/webhooks.md: constant-time compare, timestamps older than 5 minutes refused. */
function verifySignature(secret: string, header: string | undefined, rawBody: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "");
  if (!m) return false;
  if (Math.abs(nowSeconds - Number(m[1])) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${m[1]}.${rawBody}`).digest();
  return timingSafeEqual(Buffer.from(m[2] as string, "hex"), expected);
}

const until = <T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 5_000): Promise<T> => waitFor(fn, { timeoutMs }) as Promise<T>;

let ca: TestCa;
beforeAll(() => {
  ca = makeTestCa();
});

describe.each(ENGINES)("webhooks (%s)", (engine) => {
  let server: TestServer;
  let dns: TestDns;
  let rx: Receiver;
  let n = 0;
  /** DNS answers per name: a fixed list, or a function of the query number. */
  const zone = new Map<string, string[] | ((n: number) => string[])>();

  beforeAll(async () => {
    dns = await startDns((name, k) => {
      const a = zone.get(name);
      return typeof a === "function" ? a(k) : (a ?? []);
    });
    zone.set("hook.test", ["127.0.0.1"]);
    zone.set("other.test", ["127.0.0.1"]);
    rx = await startReceiver(ca);
    server = await startTestServer({
      engine,
      env: { WEBHOOK_ALLOW_PRIVATE: "true", DNS_SERVERS: dns.server },
      webhooks: { ca: ca.trust, limits: { queue: 3, concurrency: 2 } },
    });
  });
  afterAll(async () => {
    await server?.close();
    await rx?.close();
    await dns?.close();
  });

  const business = async (plan = "business") => {
    const email = `wh${++n}-${engine}@example.com`;
    const c = await signedInClient(server, email, plan);
    const user = await server.ctx.storage.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    return { c, userId: user.id };
  };

  const createHook = async (c: ApiClient, body: Record<string, unknown>) => {
    const r = await c.post("/api/webhooks", body);
    expect(r.status, r.text).toBe(201);
    return r.body as { webhook: { id: string; url: string; kind: string }; secret?: string };
  };

  it("a click's event names the link's folder, at once after a move (the redirect's cached copy dropped)", async () => {
    const { c } = await business();
    await createHook(c, { name: "Folders", url: rx.url("/folders") });
    const f1 = (await c.post("/api/folders", { name: "One" })).body.folder.id as string;
    const f2 = (await c.post("/api/folders", { name: "Two" })).body.folder.id as string;
    const link = await createLink(c, { url: "https://example.com/foldered", folder_id: f1 });
    const clickFolder = async () => {
      const before = rx.requests.length;
      expect(await visit(server.url, `/${link.alias}`, { "user-agent": UA.iphone })).toBe(302);
      const [got] = (await rx.waitFor(before + 1)).slice(before);
      return JSON.parse(got?.body as string).link.folder_id as string | null;
    };
    expect(await clickFolder()).toBe(f1);
    expect((await c.patch("/api/links/bulk", { ids: [link.id], folder_id: f2 })).status).toBe(200);
    expect(await clickFolder()).toBe(f2);
    expect((await c.delete(`/api/folders/${f2}`)).body.moved).toBe(1);
    expect(await clickFolder()).toBeNull();
  });

  it("a click is delivered once, signed, with exactly the documented payload; the log and last_delivery show it", async () => {
    const { c } = await business();
    const { webhook, secret } = await createHook(c, { name: "Orders", url: rx.url("/one") });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const link = await createLink(c, { url: "https://example.com/landing?x=1" });
    const before = rx.requests.length;
    expect(await visit(server.url, `/${link.alias}`, { "user-agent": UA.iphone, referer: "https://news.example.org/item?id=3" })).toBe(302);
    const [got] = (await rx.waitFor(before + 1)).slice(before);
    expect(got?.method).toBe("POST");
    expect(got?.url).toBe("/one");
    expect(got?.headers["content-type"]).toBe("application/json");
    expect(got?.headers["x-snip-event"]).toBe("link_click");
    expect(verifySignature(secret as string, got?.headers["x-snip-signature"] as string, got?.body as string)).toBe(true);
    const body = JSON.parse(got?.body as string);
    expect(got?.headers["x-snip-delivery"]).toBe(body.id);
    expect(body).toEqual({
      version: 1,
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      type: "link_click",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      test: false,
      link: { id: link.id, alias: link.alias, domain: null, short_url: `${server.url}/${link.alias}`, url: "https://example.com/landing?x=1", folder_id: null },
      click: {
        at: expect.stringMatching(/Z$/),
        country: null,
        device: "mobile",
        os: "iOS",
        browser: "Mobile Safari",
        referrer_host: "news.example.org",
        bot: false,
        destination: "default",
        source: "link",
      },
    });
    const log = await until(async () => {
      const r = await c.get(`/api/webhooks/${webhook.id}/deliveries`);
      return r.body.deliveries.length > 0 ? r.body.deliveries : null;
    });
    // One delivery only (no retry, no duplicate): the webhook has nothing queued or in flight, and its
    // delivery log was written (up to a second after the request arrived) with no second request meanwhile.
    expect(server.ctx.clickDeliveries.backlog(webhook.id)).toBe(0);
    expect(rx.requests.length).toBe(before + 1);
    // The log keeps the body exactly as the receiver got it, and says it was not a test.
    expect(log).toEqual([
      {
        id: body.id,
        event: "link_click",
        at: expect.stringMatching(/Z$/),
        status_code: 204,
        error: null,
        duration_ms: expect.any(Number),
        test: false,
        payload: got?.body,
      },
    ]);
    const list = await c.get("/api/webhooks");
    expect(list.body.webhooks).toEqual([
      {
        id: webhook.id,
        name: "Orders",
        url: rx.url("/one"),
        kind: "custom",
        active: true,
        created_at: expect.any(String),
        last_delivery: log[0],
        dropped: 0,
        events: ["link_click"],
      },
    ]);
    expect(list.text).not.toContain("whsec_");
    // This server runs with WEBHOOK_ALLOW_PRIVATE=true, and says so.
    expect(list.body.private_receivers).toBe(true);
  });

  it("the secret is stored encrypted, never in clear; rotation makes the old secret fail at once", async () => {
    const { c } = await business();
    const { webhook, secret } = await createHook(c, { name: "Rotating", url: rx.url("/rot") });
    const row = await server.ctx.storage.db.selectFrom("webhooks").selectAll().where("id", "=", webhook.id).executeTakeFirstOrThrow();
    expect(row.secret_enc).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain((secret as string).slice(6));

    const rot = await c.post(`/api/webhooks/${webhook.id}/secret`);
    expect(rot.status).toBe(200);
    const fresh = rot.body.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    const t = await c.post(`/api/webhooks/${webhook.id}/test`);
    expect(t.status, t.text).toBe(200);
    const got = rx.requests.find((r) => r.headers["x-snip-delivery"] === t.body.delivery.id);
    expect(verifySignature(secret as string, got?.headers["x-snip-signature"] as string, got?.body as string)).toBe(false);
    expect(verifySignature(fresh, got?.headers["x-snip-signature"] as string, got?.body as string)).toBe(true);
    // The recipe refuses an old timestamp even with the right secret.
    expect(verifySignature(fresh, got?.headers["x-snip-signature"] as string, got?.body as string, Math.floor(Date.now() / 1000) + 600)).toBe(false);
  });

  it("the test event is delivered at once with test: true and answers with the delivery, marked as a test with its payload", async () => {
    const { c } = await business();
    const { webhook, secret } = await createHook(c, { name: "T", url: rx.url("/test") });
    const t = await c.post(`/api/webhooks/${webhook.id}/test`);
    expect(t.status).toBe(200);
    const got = rx.requests.find((r) => r.headers["x-snip-delivery"] === t.body.delivery.id);
    expect(t.body.delivery).toEqual({
      id: expect.any(String),
      event: "link_click",
      at: expect.any(String),
      status_code: 204,
      error: null,
      duration_ms: expect.any(Number),
      test: true,
      payload: got?.body,
    });
    expect(JSON.parse(got?.body as string)).toMatchObject({ version: 1, type: "link_click", test: true, link: { alias: "example" } });
    expect(verifySignature(secret as string, got?.headers["x-snip-signature"] as string, got?.body as string)).toBe(true);
    const log = await c.get(`/api/webhooks/${webhook.id}/deliveries`);
    expect(log.body.deliveries[0]).toEqual(t.body.delivery);
  });

  it("free and Pro are refused with plan_required; a sixth webhook with limit_reached", async () => {
    for (const plan of ["free", "pro"]) {
      const { c } = await business(plan);
      for (const r of [await c.get("/api/webhooks"), await c.post("/api/webhooks", { name: "x", url: rx.url() })]) {
        expect(r.status).toBe(403);
        expect(r.body).toMatchObject({ status: "error", code: "plan_required", required_plan: "business" });
      }
    }
    const { c } = await business("enterprise");
    for (let i = 0; i < 5; i++) await createHook(c, { name: `h${i}`, url: rx.url(`/h${i}`) });
    const sixth = await c.post("/api/webhooks", { name: "h6", url: rx.url("/h6") });
    expect(sixth.status).toBe(403);
    expect(sixth.body.code).toBe("limit_reached");
    expect((await c.get("/api/webhooks")).body.webhooks).toHaveLength(5);
  });

  it("concurrent creations cannot pass five", async () => {
    const { c } = await business();
    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => c.post("/api/webhooks", { name: `c${i}`, url: rx.url(`/c${i}`) })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 403 && r.body.code === "limit_reached")).toHaveLength(4);
  });

  it("another account's webhook ids answer 404 everywhere", async () => {
    const a = await business();
    const b = await business();
    const { webhook } = await createHook(a.c, { name: "mine", url: rx.url("/mine") });
    const id = webhook.id;
    for (const r of [
      await b.c.patch(`/api/webhooks/${id}`, { active: false }),
      await b.c.delete(`/api/webhooks/${id}`),
      await b.c.post(`/api/webhooks/${id}/secret`),
      await b.c.post(`/api/webhooks/${id}/test`),
      await b.c.get(`/api/webhooks/${id}/deliveries`),
      await b.c.get(`/api/webhooks/nope/deliveries`),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect((await a.c.get("/api/webhooks")).body.webhooks[0].active).toBe(true);
  });

  it("bad input: 400 invalid_request, nothing written", async () => {
    const { c, userId } = await business();
    const cases: unknown[] = [
      { name: "x", url: rx.url(), extra: 1 },
      { name: "x", url: rx.url(), kind: "webex" },
      { name: "", url: rx.url() },
      { name: "x\u0000y", url: rx.url() },
      { name: "x", url: "http://example.com/" },
      { name: "x", url: "javascript:alert(1)" },
      { name: "x", url: "https://user:pw@hook.test/" },
      { name: "x", url: `https://hook.test/${"a".repeat(3000)}` },
      { name: "x", url: "https://unknown.test/" },
      { name: "x", url: 5 },
      { name: "x" },
    ];
    for (const body of cases) {
      const r = await c.post("/api/webhooks", body);
      expect([JSON.stringify(body).slice(0, 60), r.status, r.body.code]).toEqual([JSON.stringify(body).slice(0, 60), 400, "invalid_request"]);
    }
    const bad = await c.request("POST", "/api/webhooks", "{not json", { "content-type": "application/json" });
    expect(bad.status).toBe(400);
    const count = await server.ctx.storage.db
      .selectFrom("webhooks")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("owner_id", "=", userId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
    const { webhook } = await createHook(c, { name: "ok", url: rx.url() });
    expect((await c.patch(`/api/webhooks/${webhook.id}`, { url: "http://hook.test/" })).status).toBe(400);
    expect((await c.patch(`/api/webhooks/${webhook.id}`, { secret: "x" })).status).toBe(400);
    expect((await c.get("/api/webhooks")).body.webhooks[0].url).toBe(rx.url());
    const noCsrf = await c.request("POST", "/api/webhooks", { name: "x", url: rx.url() }, { "x-csrf-token": "wrong" });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe("csrf_failed");
  });

  it("a receiver answering after 3 s is a timeout near 2 s and gets exactly one request", async () => {
    let answered!: () => void;
    const slowAnswer = new Promise<void>((resolve) => (answered = resolve));
    const slow = await startReceiver(
      ca,
      (_r, res) =>
        void setTimeout(() => {
          res.writeHead(200).end();
          answered();
        }, 3_000),
    );
    try {
      const { c } = await business();
      const { webhook } = await createHook(c, { name: "slow", url: slow.url("/slow") });
      const t = await c.post(`/api/webhooks/${webhook.id}/test`);
      expect(t.body.delivery.status_code).toBeNull();
      expect(t.body.delivery.error).toBe("timeout after 2000 ms");
      expect(t.body.delivery.duration_ms).toBeGreaterThanOrEqual(1_950);
      expect(t.body.delivery.duration_ms).toBeLessThan(2_600);
      // No second request until the receiver's own (late) answer: the whole exchange it was asked for.
      await slowAnswer;
      expect(slow.requests).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it("a 302 is a failed delivery and its target is never contacted", async () => {
    const target = await startReceiver(ca);
    const redirecting = await startReceiver(ca, (_r, res) => res.writeHead(302, { location: target.url("/internal") }).end());
    try {
      const { c } = await business();
      const { webhook } = await createHook(c, { name: "redir", url: redirecting.url("/r") });
      const t = await c.post(`/api/webhooks/${webhook.id}/test`);
      expect(t.body.delivery).toMatchObject({ status_code: 302, error: "redirect not followed (302)" });
      // The delivery is answered once its one exchange is over: a followed redirect would have been
      // answered by the target first, and a receiver records a request before answering it.
      expect(redirecting.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
    } finally {
      await target.close();
      await redirecting.close();
    }
  });

  it("a receiver's error status is a failed delivery", async () => {
    const failing = await startReceiver(ca, (_r, res) => res.writeHead(500).end("boom"));
    try {
      const { c } = await business();
      const { webhook } = await createHook(c, { name: "500", url: failing.url() });
      const t = await c.post(`/api/webhooks/${webhook.id}/test`);
      expect(t.body.delivery).toMatchObject({ status_code: 500, error: "receiver answered 500" });
    } finally {
      await failing.close();
    }
  });

  it("TLS is verified against the host name, not the address: a certificate not naming the host fails", async () => {
    const { c } = await business();
    // other.test resolves to the receiver's address, but the certificate does not name other.test.
    const { webhook } = await createHook(c, { name: "tls", url: rx.url("/tls", "other.test") });
    const before = rx.requests.length;
    const t = await c.post(`/api/webhooks/${webhook.id}/test`);
    expect(t.body.delivery.status_code).toBeNull();
    expect(t.body.delivery.error).toMatch(/^TLS verification failed \(ERR_TLS_CERT_ALTNAME_INVALID\)$/);
    expect(rx.requests.length).toBe(before);
    // hook.test is named by the certificate: delivered.
    await c.patch(`/api/webhooks/${webhook.id}`, { url: rx.url("/tls", "hook.test") });
    expect((await c.post(`/api/webhooks/${webhook.id}/test`)).body.delivery).toMatchObject({ status_code: 204, error: null });
  });

  it("a full queue drops events and counts them; the receiver gets exactly what fitted", async () => {
    const slowish = await startReceiver(ca, (_r, res) => void setTimeout(() => res.writeHead(200).end(), 600));
    try {
      const { c } = await business();
      const { webhook } = await createHook(c, { name: "q", url: slowish.url("/q") });
      const link = await createLink(c, { url: "https://example.com/q" });
      // concurrency 2 + queue 3 = 5 accepted; the other 7 are dropped.
      for (let i = 0; i < 12; i++) expect(await visit(server.url, `/${link.alias}`, { "user-agent": UA.windows })).toBe(302);
      expect(server.ctx.clickDeliveries.backlog(webhook.id)).toBe(5);
      await slowish.waitFor(5, 6_000);
      // Nothing queued or in flight: every delivery has had its answer, so each request was recorded.
      await until(async () => server.ctx.clickDeliveries.backlog(webhook.id) === 0);
      expect(slowish.requests).toHaveLength(5);
      const shown = await until(async () => {
        const r = await c.get("/api/webhooks");
        return r.body.webhooks[0].dropped === 7 ? r.body.webhooks[0] : null;
      });
      expect(shown.dropped).toBe(7);
      const log = await until(async () => {
        const r = await c.get(`/api/webhooks/${webhook.id}/deliveries`);
        return r.body.deliveries.length === 5 ? r.body.deliveries : null;
      });
      expect(log.every((d: { status_code: number }) => d.status_code === 200)).toBe(true);
      // The stored count survives: it is in the database, not only in this instance's memory.
      const row = await server.ctx.storage.db.selectFrom("webhooks").select("dropped").where("id", "=", webhook.id).executeTakeFirstOrThrow();
      expect(Number(row.dropped)).toBe(7);
    } finally {
      await slowish.close();
    }
  });

  it("inactive webhooks get nothing; owners without an active webhook are not in the in-memory set", async () => {
    const { c, userId } = await business();
    const own = await startReceiver(ca);
    try {
      const { webhook } = await createHook(c, { name: "toggle", url: own.url("/t") });
      expect(server.ctx.clickDeliveries.owners.has(userId)).toBe(true);
      const link = await createLink(c, { url: "https://example.com/t" });
      expect((await c.patch(`/api/webhooks/${webhook.id}`, { active: false })).body.webhook.active).toBe(false);
      expect(server.ctx.clickDeliveries.owners.has(userId)).toBe(false);
      // The redirect hands a click to the deliveries before answering (checked below, when active):
      // with nothing queued, in flight or received once the 302 is in, nothing will be sent.
      await visit(server.url, `/${link.alias}`);
      expect(server.ctx.clickDeliveries.backlog(webhook.id)).toBe(0);
      expect(own.requests).toHaveLength(0);
      await c.patch(`/api/webhooks/${webhook.id}`, { active: true, name: "toggled" });
      await visit(server.url, `/${link.alias}`);
      expect(server.ctx.clickDeliveries.backlog(webhook.id) > 0 || own.requests.length > 0, "the click is handed over before the 302").toBe(true);
      await own.waitFor(1);
      expect((await c.delete(`/api/webhooks/${webhook.id}`)).status).toBe(200);
      expect(server.ctx.clickDeliveries.owners.has(userId)).toBe(false);
      expect((await c.get(`/api/webhooks/${webhook.id}/deliveries`)).status).toBe(404);
      await visit(server.url, `/${link.alias}`);
      expect(server.ctx.clickDeliveries.backlog(webhook.id)).toBe(0);
      expect(own.requests).toHaveLength(1);
    } finally {
      await own.close();
    }
  });

  it("connectors get their chat tool's message, unsigned, with hostile text escaped", async () => {
    const { c } = await business();
    const chat = await startReceiver(ca);
    try {
      for (const kind of ["slack", "discord", "teams"]) {
        const r = await createHook(c, { name: kind, url: chat.url(`/${kind}`), kind });
        expect(r.secret).toBeUndefined();
        expect(r.webhook.kind).toBe(kind);
      }
      const link = await createLink(c, { url: "https://example.com/<@everyone>*x*" });
      await visit(server.url, `/${link.alias}`, { "user-agent": UA.android });
      const got = await chat.waitFor(3);
      const by = Object.fromEntries(got.map((r) => [r.url.slice(1), r]));
      for (const r of got) {
        expect(r.headers["x-snip-signature"]).toBeUndefined();
        expect(r.headers["content-type"]).toBe("application/json");
      }
      const slack = JSON.parse(by.slack?.body as string);
      expect(Object.keys(slack).sort()).toEqual(["blocks", "text"]);
      expect(slack.text).toContain(`${server.url}/${link.alias}`);
      expect(slack.text).toContain("device mobile");
      expect(slack.text).not.toMatch(/[<>]/);
      const discord = JSON.parse(by.discord?.body as string);
      expect(Object.keys(discord).sort()).toEqual(["allowed_mentions", "content", "embeds"]);
      expect(discord.embeds[0].fields.map((f: { name: string }) => f.name)).toEqual(["Short URL", "Destination", "Country", "Device"]);
      expect(discord.embeds[0].fields[1].value).toBe("https://example.com/%3C\\@everyone%3E\\*x\\*");
      const teams = JSON.parse(by.teams?.body as string);
      expect(teams.type).toBe("message");
      expect(teams.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
      expect(teams.attachments[0].content.type).toBe("AdaptiveCard");
      expect(teams.attachments[0].content.body[1].facts[3]).toEqual({ title: "Device", value: "mobile" });
      // A custom-only action on a connector.
      const slackId = (await c.get("/api/webhooks")).body.webhooks[0].id;
      expect((await c.post(`/api/webhooks/${slackId}/secret`)).status).toBe(400);
    } finally {
      await chat.close();
    }
  });

  it("DNS rebinding: each delivery connects to the address its own check got, with no second lookup", async () => {
    // rebind.test answers 127.0.0.1 and 127.0.0.2 in turn; a receiver listens on each, same port.
    const first = await startReceiver(ca, undefined, { host: "127.0.0.1" });
    const second = await startReceiver(ca, undefined, { host: "127.0.0.2", port: first.port });
    zone.set("rebind.test", (k) => [k % 2 === 1 ? "127.0.0.1" : "127.0.0.2"]);
    try {
      const { c } = await business();
      const { webhook } = await createHook(c, { name: "rebind", url: first.url("/rb", "rebind.test") }); // check 1: .1
      const asked = () => dns.queries.filter((q) => q === "rebind.test A").length;
      expect(asked()).toBe(1);
      const d1 = (await c.post(`/api/webhooks/${webhook.id}/test`)).body.delivery; // check 2: .2
      expect(d1).toMatchObject({ status_code: 204, error: null });
      expect(asked()).toBe(2);
      expect(second.requests.map((r) => r.headers["x-snip-delivery"])).toEqual([d1.id]);
      expect(first.requests).toHaveLength(0);
      const d2 = (await c.post(`/api/webhooks/${webhook.id}/test`)).body.delivery; // check 3: .1
      expect(d2).toMatchObject({ status_code: 204, error: null });
      expect(asked()).toBe(3);
      expect(first.requests.map((r) => r.headers["x-snip-delivery"])).toEqual([d2.id]);
      expect(first.requests[0]?.headers.host).toBe(`rebind.test:${first.port}`);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe.each(ENGINES)("receiver addresses with WEBHOOK_ALLOW_PRIVATE off (%s)", (engine) => {
  let server: TestServer;
  let dns: TestDns;
  let rx: Receiver;
  let c: ApiClient;
  let flipped = false;

  beforeAll(async () => {
    dns = await startDns((name) => {
      switch (name) {
        case "private.test":
          return ["127.0.0.1"];
        case "metadata.test":
          return ["169.254.169.254"];
        case "mixed.test":
          return [PUBLIC_IP, "10.0.0.1"];
        case "localhost":
          return ["127.0.0.1"];
        case "public.test":
        case "example.com":
        case "hooks.slack.com":
        case "discord.com":
        case "contoso.webhook.office.com":
          return [PUBLIC_IP];
        case "flip.test":
          return [flipped ? "127.0.0.1" : PUBLIC_IP];
        default:
          return [];
      }
    });
    rx = await startReceiver(ca);
    server = await startTestServer({ engine, env: { DNS_SERVERS: dns.server }, webhooks: { ca: ca.trust } });
    c = await signedInClient(server, `ssrf-${engine}@example.com`, "business");
  });
  afterAll(async () => {
    await server?.close();
    await rx?.close();
    await dns?.close();
  });

  it.each(INTERNAL_URLS)("%s (%s) is refused at creation", async (url) => {
    const r = await c.post("/api/webhooks", { name: "x", url });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_request");
    expect(r.body.details[0].field).toBe("url");
  });

  it.each([
    ["https://private.test/", "private.test resolves to a loopback address (127.0.0.1)"],
    ["https://metadata.test/", "link-local"],
    ["https://mixed.test/", "private address (10.0.0.1)"],
    ["https://localhost/", "loopback"],
    ["https://nothing.test/", "does not resolve"],
    ["http://public.test/", "https"],
  ])("%s is refused at creation (%s)", async (url, why) => {
    const r = await c.post("/api/webhooks", { name: "x", url });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain(why);
  });

  it("the loopback receiver itself is refused, at creation and on edit; the list says private receivers are off", async () => {
    expect((await c.get("/api/webhooks")).body.private_receivers).toBe(false);
    expect((await c.post("/api/webhooks", { name: "x", url: rx.url() })).status).toBe(400);
    const ok = await c.post("/api/webhooks", { name: "pub", url: "https://public.test/hook" });
    expect(ok.status).toBe(201);
    const edit = await c.patch(`/api/webhooks/${ok.body.webhook.id}`, { url: rx.url() });
    expect(edit.status).toBe(400);
    expect((await c.delete(`/api/webhooks/${ok.body.webhook.id}`)).status).toBe(200);
  });

  it("connector kinds only go to their chat tool's hosts", async () => {
    const r = await c.post("/api/webhooks", { name: "x", url: "https://example.com/services/T/B/X", kind: "slack" });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("is not a slack webhook address");
    for (const kind of ["discord", "teams"]) expect((await c.post("/api/webhooks", { name: "x", url: "https://public.test/x", kind })).status).toBe(400);
    // The chat tools' own hosts are accepted (nothing is sent at creation), on port 443 only.
    expect((await c.post("/api/webhooks", { name: "x", url: "https://hooks.slack.com:8443/services/T/B/X", kind: "slack" })).status).toBe(400);
    expect((await c.post("/api/webhooks", { name: "x", url: "https://hooks.slack.com/services/T/B/X", kind: "discord" })).status).toBe(400);
    const made: string[] = [];
    for (const [kind, url] of [
      ["slack", "https://hooks.slack.com/services/T/B/X"],
      ["discord", "https://discord.com/api/webhooks/1/abc"],
      ["teams", "https://contoso.webhook.office.com/webhookb2/x"],
    ]) {
      const r = await c.post("/api/webhooks", { name: kind, url, kind });
      expect([kind, r.status]).toEqual([kind, 201]);
      made.push(r.body.webhook.id);
    }
    for (const id of made) await c.delete(`/api/webhooks/${id}`);
  });

  it("a name that answers public at creation and loopback at delivery is refused at delivery: nothing is sent", async () => {
    flipped = false;
    const ok = await c.post("/api/webhooks", { name: "flip", url: `https://flip.test:${rx.port}/hook` });
    expect(ok.status, ok.text).toBe(201);
    flipped = true;
    const t = await c.post(`/api/webhooks/${ok.body.webhook.id}/test`);
    expect(t.body.delivery).toMatchObject({ status_code: null, error: "address refused: flip.test resolves to a loopback address (127.0.0.1)" });
    expect(rx.requests).toHaveLength(0);
    await c.delete(`/api/webhooks/${ok.body.webhook.id}`);
  });
});

describe.skipIf(!ENGINES.includes("postgres"))("two instances on one PostgreSQL", () => {
  let a: TestServer;
  let b: TestServer;
  let rx: Receiver;

  beforeAll(async () => {
    rx = await startReceiver(ca);
    const env = { WEBHOOK_ALLOW_PRIVATE: "true", SESSION_SECRET: "x".repeat(40) };
    a = await startTestServer({ engine: "postgres", env, webhooks: { ca: ca.trust } });
    b = await startTestServer({ databaseUrl: a.databaseUrl, env, webhooks: { ca: ca.trust } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await rx?.close();
  });

  it("a webhook made on one instance is known to the other at once; the instance that answers the click delivers it", async () => {
    const c = await signedInClient(a, "two@example.com", "business");
    const user = await a.ctx.storage.db.selectFrom("users").select("id").where("email", "=", "two@example.com").executeTakeFirstOrThrow();
    const { body } = await c.post("/api/webhooks", { name: "x", url: rx.url("/two") });
    await until(async () => b.ctx.clickDeliveries.owners.has(user.id), 2_000);
    const link = await createLink(c, { url: "https://example.com/two" });
    await visit(b.url, `/${link.alias}`);
    const [got] = await rx.waitFor(1);
    const sig = /^t=(\d+),v1=([0-9a-f]+)$/.exec(got?.headers["x-snip-signature"] as string);
    expect(createHmac("sha256", body.secret).update(`${sig?.[1]}.${got?.body}`).digest("hex")).toBe(sig?.[2]);
    // Exactly once: B has nothing left queued or in flight, and A (which never saw the click) nothing at all.
    await until(async () => b.ctx.clickDeliveries.backlog(body.webhook.id) === 0);
    expect(a.ctx.clickDeliveries.queueState().queued).toBe(0);
    expect(rx.requests).toHaveLength(1);
    await c.patch(`/api/webhooks/${body.webhook.id}`, { active: false });
    await until(async () => !b.ctx.clickDeliveries.owners.has(user.id), 2_000);
  });
});
