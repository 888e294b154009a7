// App figures on every engine (docs/deep-links.md, Store visits, installs and opens): the store visits the redirect
// made, and the installs and opens POST /api/deeplinks/open recorded, counted exactly in a link's statistics (`apps`,
// only for a link with an app or figures), account analytics, both CSV exports, the click stream's outbox and the
// webhooks that opt into app.install and app.open (signed, the documented payload, once per install).
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createLink } from "../helpers/links.js";
import { testAccount, type TestAccount } from "../helpers/team.js";
import { waitFor } from "../helpers/wait.js";
import { type Receiver, type TestCa, type TestDns, makeTestCa, startDns, startReceiver } from "../helpers/webhook-receivers.js";
import { decodeOutward } from "../../src/streams/event-outbox.js";
import { ManualClock } from "../../src/shared/clock.js";

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1";
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36";
const DAY = "2026-11-20";
const NOW = Date.parse(`${DAY}T12:00:00Z`);
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let ca: TestCa;
beforeAll(() => {
  ca = makeTestCa();
});

describe.each(ENGINES)("app figures on %s", (engine) => {
  let server: TestServer;
  let dns: TestDns;
  let rx: Receiver;
  let owner: TestAccount;
  let key: string;
  let app: { id: string; alias: string };
  let plain: { id: string; alias: string };
  let hookSecret: string;
  let sinkId: string;
  let androidClick: string;
  const range = `from=${DAY}&to=${DAY}&tz=UTC`;

  async function visit(alias: string, ua: string, ip: string) {
    const res = await fetch(`${server.url}/${alias}`, { redirect: "manual", headers: { "user-agent": ua, "x-forwarded-for": ip, "accept-language": "en-US" } });
    await res.text();
    return res.headers.get("location") ?? "";
  }
  async function open(body: unknown, ip: string) {
    const res = await fetch(`${server.url}/api/deeplinks/open`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-forwarded-for": ip },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as { match: string };
    expect(res.status).toBe(200);
    return answer.match;
  }

  beforeAll(async () => {
    dns = await startDns((name) => (name === "hook.test" ? ["127.0.0.1"] : []));
    rx = await startReceiver(ca);
    const clock = new ManualClock(NOW);
    server = await startTestServer({
      engine,
      clock,
      env: { TRUST_PROXY: "true", WEBHOOK_ALLOW_PRIVATE: "true", DNS_SERVERS: dns.server },
      webhooks: { ca: ca.trust },
    });
    owner = await testAccount(server, `figures-${engine}@example.com`, "business");
    key = (await owner.client.post("/api/keys", { name: "app", scopes: ["deeplinks:open"] })).body.secret;
    const h = await owner.client.post("/api/webhooks", { name: "apps", url: rx.url(`/apps-${engine}`), events: ["app.install", "app.open"] });
    expect(h.status, h.text).toBe(201);
    expect(h.body.webhook.events).toEqual(["app.install", "app.open"]);
    hookSecret = h.body.secret;
    const s = await owner.client.post("/api/streams", { name: "R", kind: "redis", url: "redis://127.0.0.1:1" });
    expect(s.status, s.text).toBe(201);
    sinkId = s.body.stream.id;
    app = await createLink(owner.client, { url: "https://shop.example.com/p", app_ios_store_id: "389801252", app_android_package: "com.example.shop" });
    plain = await createLink(owner.client, { url: "https://shop.example.com/plain" });
    // Three store visits (two iPhones, one Android), a desktop visit that is none, a plain link's phone visit that is none.
    await visit(app.alias, IPHONE, "198.51.100.1");
    await visit(app.alias, IPHONE, "198.51.100.2");
    const play = new URL(await visit(app.alias, ANDROID, "198.51.100.3"));
    androidClick = new URLSearchParams(play.searchParams.get("referrer")!).get("snip_click_id")!;
    await visit(app.alias, DESKTOP, "198.51.100.4");
    await visit(plain.alias, IPHONE, "198.51.100.5");
    // Written, and on SQLite rolled up (the daily series reads the roll-ups).
    await server.ctx.clicks.flush();
    // One install each way, asked twice (one counted), two opens.
    expect(await open({ click_id: androidClick }, "198.51.100.3")).toBe("deterministic");
    expect(await open({ click_id: androidClick }, "198.51.100.3")).toBe("deterministic");
    expect(await open({ platform: "ios", os_version: "17.1.2", device_model: "iPhone", language: "en-US" }, "198.51.100.1")).toBe("probabilistic");
    expect(await open({ platform: "ios", os_version: "17.1.2", device_model: "iPhone", language: "en-US" }, "198.51.100.1")).toBe("none");
    expect(await open({ url: `${server.url}/${app.alias}` }, "198.51.100.6")).toBe("deterministic");
    expect(await open({ url: `${server.url}/${app.alias}?utm_source=mail` }, "198.51.100.6")).toBe("deterministic");
  });
  afterAll(async () => {
    await server?.close();
    await rx?.close();
    await dns?.close();
  });

  const FIGURES = { store_visits: 3, installs: 2, opens: 2, installs_by_match: { deterministic: 1, probabilistic: 1 } };

  it("counts a link's store visits, installs and opens in its statistics, and gives no `apps` to a link without an app", async () => {
    const s = await owner.client.get(`/api/links/${app.id}/stats?${range}`);
    expect(s.status, s.text).toBe(200);
    expect(s.body.apps).toEqual(FIGURES);
    // The phones' destinations are the store listings they were sent to.
    const dest = Object.fromEntries(
      (s.body.destinations as Array<{ destination: string; url: string; clicks: number }>).map((d) => [d.destination, [d.url, d.clicks]]),
    );
    expect(dest).toEqual({
      ios: ["https://apps.apple.com/app/id389801252", 2],
      android: ["https://play.google.com/store/apps/details?id=com.example.shop", 1],
      default: ["https://shop.example.com/p", 1],
    });
    const p = await owner.client.get(`/api/links/${plain.id}/stats?${range}`);
    expect(p.status).toBe(200);
    expect("apps" in p.body).toBe(false);
    // Another day: the link has an app, so zeros.
    const before = await owner.client.get(`/api/links/${app.id}/stats?from=2026-11-19&to=2026-11-19&tz=UTC`);
    expect(before.body.apps).toEqual({ store_visits: 0, installs: 0, opens: 0, installs_by_match: { deterministic: 0, probabilistic: 0 } });
  });

  it("answers the external API's statistics as the session's: the same apps and conversion fields", async () => {
    const reader = (await owner.client.post("/api/keys", { name: "reader", scopes: ["stats:read"] })).body.secret as string;
    const ext = await fetch(`${server.url}/api/external/links/${app.id}/stats?${range}`, { headers: { authorization: `Bearer ${reader}` } });
    const body = (await ext.json()) as Record<string, unknown>;
    expect(ext.status).toBe(200);
    expect(body.apps).toEqual(FIGURES);
    expect(body.tracks_conversions).toBe(false);
    const own = await owner.client.get(`/api/links/${app.id}/stats?${range}`);
    expect(body).toEqual(own.body);
  });

  it("totals them in account analytics (filtered as the rest), and in both CSV exports after the existing columns", async () => {
    const a = await owner.client.get(`/api/analytics?${range}`);
    expect(a.status, a.text).toBe(200);
    expect(a.body.apps).toEqual(FIGURES);
    const filtered = await owner.client.get(`/api/analytics?${range}&link=${plain.id}`);
    expect("apps" in filtered.body).toBe(false);
    const csv = async (path: string) => {
      const res = await fetch(server.url + path, { headers: { cookie: owner.client.cookie ?? "" } });
      expect(res.status).toBe(200);
      return (await res.text()).replace(/^\uFEFF/, "").split("\r\n");
    };
    const daily = await csv(`/api/links/${app.id}/stats.csv?${range}`);
    expect(daily.slice(0, 3)).toEqual(["date,clicks,store_visits,installs,opens", `${DAY},4,3,2,2`, ""]);
    const plainDaily = await csv(`/api/links/${plain.id}/stats.csv?${range}`);
    expect(plainDaily.slice(0, 2)).toEqual(["date,clicks", `${DAY},1`]);
    const totals = await csv(`/api/analytics.csv?${range}`);
    expect(totals[0]).toBe(
      "from,to,tz,clicks,visitors,qr,previous_clicks,previous_visitors,previous_qr,change_clicks,change_visitors,change_qr,store_visits,installs,opens,installs_deterministic,installs_probabilistic",
    );
    expect(totals[1]!.split(",").slice(3, 4)).toEqual(["5"]);
    expect(totals[1]!.split(",").slice(-5)).toEqual(["3", "2", "2", "1", "1"]);
  });

  it("writes app.install and app.open to the click stream's outbox, once per install, in order", async () => {
    const rows = await server.ctx.storage.db.selectFrom("stream_outbox").selectAll().where("sink_id", "=", sinkId).orderBy("id").execute();
    // The clicks' batches are there too; the events are the rows that decode as one.
    const events = rows.filter((r) => decodeOutward(r.events as string) !== null);
    const outward = events.map((r) => decodeOutward(r.events as string)!);
    expect(outward.map((e) => [e.type, e.owner_id, e.link?.link_id, e.link?.alias])).toEqual([
      ["app.install", owner.id, app.id, app.alias],
      ["app.install", owner.id, app.id, app.alias],
      ["app.open", owner.id, app.id, app.alias],
      ["app.open", owner.id, app.id, app.alias],
    ]);
    const stored = await server.ctx.storage.db.selectFrom("app_events").select(["id", "kind", "match", "click_id"]).where("link_id", "=", app.id).execute();
    const deterministic = stored.find((e) => e.kind === "app_install" && e.match === "deterministic")!;
    expect(deterministic.click_id).toBe(androidClick);
    expect(JSON.parse(`{${outward[0]!.tail}}`)).toEqual({
      app_event: { id: deterministic.id, kind: "app_install", match: "deterministic", click_id: androidClick, created_at: new Date(NOW).toISOString() },
    });
    expect(events[0]!.event_id).toBe(`app.install:${deterministic.id}`);
  });

  it("delivers app.install and app.open to the webhook that opted in: signed, the documented payload", async () => {
    const at = () => rx.requests.filter((r) => r.url === `/apps-${engine}`);
    const got = await waitFor(() => (at().length >= 4 ? at() : null), { what: "the four deliveries" });
    expect(got.map((r) => r.headers["x-snip-event"]).sort()).toEqual(["app.install", "app.install", "app.open", "app.open"]);
    for (const r of got) {
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers["x-snip-signature"]));
      expect(m !== null && createHmac("sha256", hookSecret).update(`${m[1]}.${r.body}`).digest("hex") === m[2]).toBe(true);
    }
    const install = got.map((r) => JSON.parse(r.body)).find((b) => b.type === "app.install" && b.app_event.match === "probabilistic");
    expect(install).toEqual({
      version: 1,
      id: expect.stringMatching(UUID),
      type: "app.install",
      created_at: expect.stringMatching(ISO),
      test: false,
      link: { id: app.id, alias: app.alias, domain: null, short_url: `${server.url}/${app.alias}`, url: "https://shop.example.com/p", folder_id: null },
      app_event: {
        id: expect.any(String),
        kind: "app_install",
        match: "probabilistic",
        click_id: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
        created_at: expect.stringMatching(ISO),
      },
    });
  });
});
