// Where each click went, through the whole click pipeline: statistics' destinations and destinations_daily
// (stored roll-ups, clicks held back from them or not committed yet, range=24h from raw clicks), the CSV
// export's destination column, and the link_click webhook payload. Clicks are recorded as the redirect
// records them (ClickRecorder.record), each with its destination code.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { UA, visit } from "../helpers/visit.js";
import { createLink, linkNum } from "../helpers/links.js";
import { within } from "../helpers/wait.js";
import { type Receiver, type TestCa, makeTestCa, startReceiver } from "../helpers/webhook-receivers.js";
import { ManualClock } from "../../src/shared/clock.js";
import type { ClickInput } from "../../src/clicks/recorder.js";

const NOW = Date.UTC(2026, 10, 2, 12, 0, 0); // 2026-11-02 12:00 UTC
/** A Business link's destinations carry its conversions too (docs/conversions.md): none here. */
const NO_CONVERSIONS = { leads: 0, sales: 0, revenue: {} };

const URLS = {
  url: "https://example.com/landing",
  ios: "https://apps.example.com/ios",
  android: "https://apps.example.com/android",
  rule1: "https://example.fr/",
  rule2: "https://example.com/desk",
  variant1: "https://a.example/",
  variant2: "https://b.example/",
};

/** [time, destination (null: the link's url), how many]: each click a second apart from the one before. */
type Seed = [number, string | null, number];

// Stored and rolled up before the reads.
const COMMITTED: Seed[] = [
  [Date.UTC(2026, 9, 30, 10), "rule:1", 5], // before the range
  [Date.UTC(2026, 9, 31, 10), null, 2],
  [Date.UTC(2026, 9, 31, 11), "rule:1", 1],
  [Date.UTC(2026, 10, 1, 9), "variant:2", 3],
  [Date.UTC(2026, 10, 1, 9, 30), "ios", 1],
  [Date.UTC(2026, 10, 1, 10), "rule:3", 1], // the link has 2 rules today: no url
  [Date.UTC(2026, 10, 2, 8), "ios", 1],
];
// Recorded just before the reads: held back from the roll-ups (SQLite) or not committed yet (PostgreSQL).
const FRESH: Seed[] = [
  [Date.UTC(2026, 10, 1, 23), "rule:1", 1],
  [Date.UTC(2026, 10, 2, 11), null, 1],
  [Date.UTC(2026, 10, 2, 11, 5), "variant:2", 1],
  [Date.UTC(2026, 10, 2, 11, 10), "android", 2],
];

const RANGE_DESTINATIONS = [
  { destination: "variant:2", url: URLS.variant2, clicks: 4, share: 0.2857, ...NO_CONVERSIONS },
  { destination: "default", url: URLS.url, clicks: 3, share: 0.2143, ...NO_CONVERSIONS },
  { destination: "rule:1", url: URLS.rule1, clicks: 2, share: 0.1429, ...NO_CONVERSIONS },
  { destination: "ios", url: URLS.ios, clicks: 2, share: 0.1429, ...NO_CONVERSIONS },
  { destination: "android", url: URLS.android, clicks: 2, share: 0.1429, ...NO_CONVERSIONS },
  { destination: "rule:3", url: null, clicks: 1, share: 0.0714, ...NO_CONVERSIONS },
];
const RANGE_DAILY = [
  { date: "2026-10-31", destination: "default", clicks: 2 },
  { date: "2026-10-31", destination: "rule:1", clicks: 1 },
  { date: "2026-11-01", destination: "rule:1", clicks: 1 },
  { date: "2026-11-01", destination: "rule:3", clicks: 1 },
  { date: "2026-11-01", destination: "ios", clicks: 1 },
  { date: "2026-11-01", destination: "variant:2", clicks: 3 },
  { date: "2026-11-02", destination: "default", clicks: 1 },
  { date: "2026-11-02", destination: "ios", clicks: 1 },
  { date: "2026-11-02", destination: "android", clicks: 2 },
  { date: "2026-11-02", destination: "variant:2", clicks: 1 },
];
// range=24h: 2026-11-01 13:00 to 2026-11-02 12:59.
const LAST_DAY_DESTINATIONS = [
  { destination: "android", url: URLS.android, clicks: 2, share: 0.3333, ...NO_CONVERSIONS },
  { destination: "default", url: URLS.url, clicks: 1, share: 0.1667, ...NO_CONVERSIONS },
  { destination: "rule:1", url: URLS.rule1, clicks: 1, share: 0.1667, ...NO_CONVERSIONS },
  { destination: "ios", url: URLS.ios, clicks: 1, share: 0.1667, ...NO_CONVERSIONS },
  { destination: "variant:2", url: URLS.variant2, clicks: 1, share: 0.1667, ...NO_CONVERSIONS },
];
const LAST_DAY_DAILY = [
  { date: "2026-11-01", destination: "rule:1", clicks: 1 },
  { date: "2026-11-02", destination: "default", clicks: 1 },
  { date: "2026-11-02", destination: "ios", clicks: 1 },
  { date: "2026-11-02", destination: "android", clicks: 2 },
  { date: "2026-11-02", destination: "variant:2", clicks: 1 },
];

let ca: TestCa;
beforeAll(() => {
  ca = makeTestCa();
});

describe.each(ENGINES)("click destinations on %s", (engine) => {
  let server: TestServer;
  let rx: Receiver;
  let biz: ApiClient;
  let link: { id: string; alias: string; num: number };
  const range = "from=2026-10-31&to=2026-11-02";

  beforeAll(async () => {
    rx = await startReceiver(ca);
    server = await startTestServer({
      engine,
      clock: new ManualClock(NOW),
      // Roll-ups held back 10 minutes (SQLite's reads add them); PostgreSQL's clicks stay in memory until flushed.
      env: { CLICK_ROLLUP_MS: "600000", CLICK_FLUSH_MS: engine === "postgres" ? "60000" : "50", WEBHOOK_ALLOW_PRIVATE: "true" },
      webhooks: { ca: ca.trust },
    });
    biz = await signedInClient(server, `dest-${engine}@example.com`, "business");
    const l = await createLink(biz, { url: URLS.url, alias: `dest-${engine}` });
    link = { id: l.id, alias: l.alias, num: await linkNum(server, l.id) };
    await server.ctx.storage.db
      .updateTable("links")
      .set({
        ios_url: URLS.ios,
        android_url: URLS.android,
        rules: JSON.stringify([
          { if: { country: ["FR"] }, url: URLS.rule1 },
          { if: { device: ["desktop"] }, url: URLS.rule2 },
        ]),
        split: JSON.stringify([
          { url: URLS.variant1, weight: 50 },
          { url: URLS.variant2, weight: 50 },
        ]),
      })
      .where("id", "=", link.id)
      .execute();
  });
  afterAll(async () => {
    await server?.close();
    await rx?.close();
  });

  const record = (seeds: Seed[]) => {
    for (const [at, destination, n] of seeds) {
      for (let i = 0; i < n; i++) {
        const c: ClickInput = {
          linkId: link.id,
          linkNum: link.num,
          at: at + i * 1000,
          userAgent: UA.windows,
          referer: "",
          ip: "",
          country: null,
          counted: false,
          destination,
        };
        server.ctx.clicks.record(c);
      }
    }
  };
  const stats = async (query: string) => {
    const r = await biz.get(`/api/links/${link.id}/stats?${query}`);
    expect(r.status, r.text).toBe(200);
    return r.body as { range_clicks: number; destinations: unknown[]; destinations_daily: unknown[] };
  };
  const destinationRows = async () =>
    (
      await server.ctx.storage.db
        .selectFrom("click_breakdown")
        .select(["day", "value", "clicks"])
        .where("link_id", "=", link.id)
        .where("dimension", "=", "destination")
        .orderBy("day")
        .orderBy("value")
        .execute()
    ).map((r) => `${r.day} ${r.value} ${Number(r.clicks)}`);

  it("statistics: destinations and per day, stored, fresh (held back or not committed) and for range=24h", async () => {
    record(COMMITTED);
    await server.ctx.clicks.flush();
    // Only clicks not sent to the link's url have roll-up rows.
    expect(await destinationRows()).toEqual([
      "2026-10-30 rule:1 5",
      "2026-10-31 rule:1 1",
      "2026-11-01 ios 1",
      "2026-11-01 rule:3 1",
      "2026-11-01 variant:2 3",
      "2026-11-02 ios 1",
    ]);
    const stored = await stats(range);
    expect(stored.range_clicks).toBe(9);
    expect(stored.destinations).toEqual([
      { destination: "variant:2", url: URLS.variant2, clicks: 3, share: 0.3333, ...NO_CONVERSIONS },
      { destination: "default", url: URLS.url, clicks: 2, share: 0.2222, ...NO_CONVERSIONS },
      { destination: "ios", url: URLS.ios, clicks: 2, share: 0.2222, ...NO_CONVERSIONS },
      { destination: "rule:1", url: URLS.rule1, clicks: 1, share: 0.1111, ...NO_CONVERSIONS },
      { destination: "rule:3", url: null, clicks: 1, share: 0.1111, ...NO_CONVERSIONS },
    ]);

    record(FRESH);
    if (engine === "postgres") {
      // Still in this process's memory: nothing of them is stored yet.
      const raw = await server.ctx.storage.db
        .selectFrom("clicks")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("link_num", "=", link.num)
        .executeTakeFirstOrThrow();
      expect(Number(raw.n)).toBe(14);
    }
    const fresh = await within(
      5_000,
      () => stats(range),
      (s) => s.range_clicks === 14,
    );
    expect(fresh.destinations).toEqual(RANGE_DESTINATIONS);
    expect(fresh.destinations_daily).toEqual(RANGE_DAILY);
    const day = await within(
      5_000,
      () => stats("range=24h"),
      (s) => s.range_clicks === 6,
    );
    expect(day.destinations).toEqual(LAST_DAY_DESTINATIONS);
    expect(day.destinations_daily).toEqual(LAST_DAY_DAILY);
    // Not rolled up yet: the fresh clicks came from memory.
    expect(await destinationRows()).toHaveLength(6);

    await server.ctx.clicks.flush();
    expect(await destinationRows()).toEqual([
      "2026-10-30 rule:1 5",
      "2026-10-31 rule:1 1",
      "2026-11-01 ios 1",
      "2026-11-01 rule:1 1",
      "2026-11-01 rule:3 1",
      "2026-11-01 variant:2 3",
      "2026-11-02 android 2",
      "2026-11-02 ios 1",
      "2026-11-02 variant:2 1",
    ]);
    const after = await stats(range);
    expect(after.destinations).toEqual(RANGE_DESTINATIONS);
    expect(after.destinations_daily).toEqual(RANGE_DAILY);
    const dayAfter = await stats("range=24h");
    expect(dayAfter.destinations).toEqual(LAST_DAY_DESTINATIONS);
    expect(dayAfter.destinations_daily).toEqual(LAST_DAY_DAILY);
    // The raw clicks keep the code; null for the link's url.
    const raw = await server.ctx.storage.db.selectFrom("clicks").select("destination").where("link_num", "=", link.num).orderBy("at").execute();
    expect(raw.map((r) => r.destination)).toEqual([...COMMITTED, ...FRESH].sort((a, b) => a[0] - b[0]).flatMap(([, d, n]) => Array<string | null>(n).fill(d)));
  });

  it("a link without rules, split or device addresses: only default, and no destination rows", async () => {
    const plain = await createLink(biz, { url: "https://example.org/plain", alias: `plain-${engine}` });
    const num = await linkNum(server, plain.id);
    for (let i = 0; i < 3; i++)
      server.ctx.clicks.record({
        linkId: plain.id,
        linkNum: num,
        at: NOW - 3_600_000 + i,
        userAgent: UA.iphone,
        referer: "",
        ip: "",
        country: null,
        counted: false,
        destination: null,
      });
    await server.ctx.clicks.flush();
    const r = await biz.get(`/api/links/${plain.id}/stats?range=7d`);
    expect(r.body.destinations).toEqual([{ destination: "default", url: "https://example.org/plain", clicks: 3, share: 1, ...NO_CONVERSIONS }]);
    expect(r.body.destinations_daily).toEqual([{ date: "2026-11-02", destination: "default", clicks: 3 }]);
    const none = await biz.get(`/api/links/${plain.id}/stats?from=2026-10-01&to=2026-10-31`);
    expect(none.body.destinations).toEqual([]);
    expect(none.body.destinations_daily).toEqual([]);
    const rows = await server.ctx.storage.db
      .selectFrom("click_breakdown")
      .select("dimension")
      .where("link_id", "=", plain.id)
      .where("dimension", "=", "destination")
      .execute();
    expect(rows).toEqual([]);
  });

  it("CSV export: each click's destination, default for the link's url", async () => {
    const res = await fetch(`${server.url}/api/links/${link.id}/stats.csv?${range}`, { headers: { cookie: biz.cookie ?? "" } });
    expect(res.status).toBe(200);
    const lines = (await res.text()).split("\r\n");
    const header = lines.indexOf("time,country,device,os,browser,referrer,bot,destination");
    expect(header).toBeGreaterThan(0);
    const log = lines.slice(header + 1, -1).map((l) => `${l.split(",")[0]} ${l.split(",").at(-1)}`);
    const expected = [...COMMITTED, ...FRESH]
      .filter(([at]) => at >= Date.UTC(2026, 9, 31))
      .sort((a, b) => a[0] - b[0])
      .flatMap(([at, d, n]) => Array.from({ length: n }, (_, i) => `${new Date(at + i * 1000).toISOString()} ${d ?? "default"}`));
    expect(log).toEqual(expected);
    expect(log).toHaveLength(14);
  });

  it("webhooks: the link_click payload names the destination", async () => {
    const hook = await biz.post("/api/webhooks", { name: "Dest", url: rx.url("/dest") });
    expect(hook.status, hook.text).toBe(201);
    const owner = await server.ctx.storage.db.selectFrom("users").select("id").where("email", "=", `dest-${engine}@example.com`).executeTakeFirstOrThrow();
    const before = rx.requests.length;
    // A real redirect (a desktop visitor: the link's rule 2 holds) and a click handed over with a variant.
    expect(await visit(server.url, `/${link.alias}`, { "user-agent": UA.windows })).toBe(302);
    const got = await rx.waitFor(before + 1);
    server.ctx.clickDeliveries.linkClicked(
      owner.id,
      { id: link.id, url: URLS.url },
      "",
      { alias: link.alias, userAgent: UA.iphone, referer: "", ip: "", country: null, qr: false },
      NOW,
      "variant:2",
    );
    const all = (await rx.waitFor(before + 2)).slice(before);
    expect(got.length).toBeGreaterThan(before);
    const bodies = all
      .filter((r) => r.url === "/dest")
      .map((r) => JSON.parse(r.body) as { link: { id: string }; click: { destination: string; device: string } });
    expect(bodies.map((b) => [b.link.id, b.click.device, b.click.destination])).toEqual([
      [link.id, "desktop", "rule:2"],
      [link.id, "mobile", "variant:2"],
    ]);
  });
});
