// Link statistics over HTTP: counts, zero-filled daily series, breakdowns from real redirects, bots,
// plan gating, date validation, ownership, CSV export (quoting, formulas, complete log past a page) and no raw IP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { UA, visit } from "../helpers/visit.js";
import { linkNum } from "../helpers/links.js";
import { ManualClock } from "../../src/shared/clock.js";
import type { ClickInput } from "../../src/clicks/recorder.js";

const NOW = Date.UTC(2026, 10, 2, 12, 0, 0); // 2026-11-02, a Monday, just after a month boundary

function click(link: { id: string; num: number }, at: number, extra: Partial<ClickInput> = {}): ClickInput {
  return {
    linkId: link.id,
    linkNum: link.num,
    at,
    userAgent: UA.windows,
    referer: "",
    ip: "198.51.100.20",
    country: null,
    counted: false,
    destination: null,
    ...extra,
  };
}

async function newLink(server: TestServer, c: ApiClient, alias: string): Promise<{ id: string; alias: string; num: number }> {
  const r = await c.post("/api/links", { url: "https://example.com/landing", alias });
  if (r.status !== 201) throw new Error(`link creation failed: ${r.status} ${r.text}`);
  return { ...r.body.link, num: await linkNum(server, r.body.link.id) };
}

describe.each(ENGINES)("link statistics on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let pro: ApiClient;
  let free: ApiClient;
  let other: ApiClient;
  beforeAll(async () => {
    clock = new ManualClock(NOW);
    server = await startTestServer({ engine, clock });
    pro = await signedInClient(server, "pro@example.com", "pro");
    free = await signedInClient(server, "free@example.com", "free");
    other = await signedInClient(server, "other@example.com", "business");
  });
  afterAll(async () => server?.close());

  it("a new link: 0 clicks, 30 zero days ending today, empty breakdowns", async () => {
    const link = await newLink(server, pro, "fresh-one");
    const r = await pro.get(`/api/links/${link.id}/stats`);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toContain("no-store");
    expect(r.body).toMatchObject({
      status: "success",
      link_id: link.id,
      from: "2026-10-04",
      to: "2026-11-02",
      total_clicks: 0,
      advanced: true,
      range_clicks: 0,
      countries: [],
      devices: [],
      browsers: [],
      os: [],
      referrers: [],
      bots: 0,
      bot_share: 0,
    });
    expect(r.body.daily).toHaveLength(30);
    expect(r.body.daily.every((d: { clicks: number }) => d.clicks === 0)).toBe(true);
    expect(r.body.daily[0].date).toBe("2026-10-04");
    expect(r.body.daily[29].date).toBe("2026-11-02");
  });

  it("zero-fills across a month boundary and counts UTC days; total_clicks is all-time", async () => {
    const link = await newLink(server, pro, "month-edge");
    const ctx = server.ctx;
    ctx.clicks.record(click(link, Date.UTC(2026, 9, 29, 12))); // before the range
    ctx.clicks.record(click(link, Date.UTC(2026, 9, 31, 23, 59, 59, 999)));
    ctx.clicks.record(click(link, Date.UTC(2026, 10, 1, 0, 0, 0)));
    ctx.clicks.record(click(link, Date.UTC(2026, 10, 1, 8, 0, 0)));
    await ctx.clicks.flush();
    const r = await pro.get(`/api/links/${link.id}/stats?from=2026-10-30&to=2026-11-02`);
    expect(r.status).toBe(200);
    // One visitor (same address and agent): new on each UTC day it came.
    expect(r.body.daily).toEqual([
      { date: "2026-10-30", clicks: 0, visitors: 0, qr: 0 },
      { date: "2026-10-31", clicks: 1, visitors: 1, qr: 0 },
      { date: "2026-11-01", clicks: 2, visitors: 1, qr: 0 },
      { date: "2026-11-02", clicks: 0, visitors: 0, qr: 0 },
    ]);
    expect(r.body.range_clicks).toBe(3);
    expect(r.body.total_clicks).toBe(4);
    // Across a year end too.
    const y = await pro.get(`/api/links/${link.id}/stats?from=2025-12-30&to=2026-01-02`);
    expect(y.body.daily.map((d: { date: string }) => d.date)).toEqual(["2025-12-30", "2025-12-31", "2026-01-01", "2026-01-02"]);
  });

  it("breakdowns over whole months plus edge days add up exactly (monthly and daily roll-ups)", async () => {
    const link = await newLink(server, pro, "month-mix");
    const days: Array<[number, number, string]> = [
      [8, 14, "SE"], // outside the range
      [8, 15, "DE"],
      [8, 30, "DE"],
      [9, 1, "FR"],
      [9, 31, "FR"],
      [9, 31, "DE"],
      [10, 1, "FR"],
      [10, 2, "JP"],
    ];
    for (const [m, d, country] of days) server.ctx.clicks.record(click(link, Date.UTC(2026, m, d, 6), { country }));
    await server.ctx.clicks.flush();
    const r = await pro.get(`/api/links/${link.id}/stats?from=2026-09-15&to=2026-11-02`);
    expect(r.body.range_clicks).toBe(7);
    // One visitor, new on each day; on Oct 31 its first click (FR) is the day's visit.
    expect(r.body.countries).toEqual([
      { country: "DE", clicks: 3, visitors: 2 },
      { country: "FR", clicks: 3, visitors: 3 },
      { country: "JP", clicks: 1, visitors: 1 },
    ]);
    expect(r.body.devices).toEqual([{ device: "desktop", clicks: 7, visitors: 6 }]);
    expect(r.body.range_visitors).toBe(6);
    const oct = await pro.get(`/api/links/${link.id}/stats?from=2026-10-01&to=2026-10-31`);
    expect(oct.body.countries).toEqual([
      { country: "FR", clicks: 2, visitors: 2 },
      { country: "DE", clicks: 1, visitors: 0 },
    ]);
  });

  it("breakdowns from real redirects: devices, browsers, OS, referrers; bots flagged; country header ignored without TRUST_PROXY", async () => {
    const link = await newLink(server, pro, "many-agents");
    const hits: Array<Record<string, string>> = [
      { "user-agent": UA.iphone, referer: "https://news.example.org/story", "cf-ipcountry": "DE" },
      { "user-agent": UA.iphone, "cf-ipcountry": "DE" },
      { "user-agent": UA.android, referer: "https://news.example.org/other" },
      { "user-agent": UA.windows },
      { "user-agent": UA.googlebot },
      { "user-agent": UA.curl },
      {}, // no User-Agent at all
      { "user-agent": "" },
    ];
    for (const h of hits) expect(await visit(server.url, "/many-agents", h)).toBe(302);
    await server.ctx.clicks.flush();
    const r = await pro.get(`/api/links/${link.id}/stats`);
    expect(r.body.total_clicks).toBe(8);
    expect(r.body.range_clicks).toBe(8);
    // Visitors: one per user agent (one address): the two iPhone visits and the two without an agent are one each.
    expect(r.body.daily.at(-1)).toEqual({ date: "2026-11-02", clicks: 8, visitors: 6, qr: 0 });
    expect(r.body.devices).toEqual([
      { device: "bot", clicks: 4, visitors: 3 },
      { device: "mobile", clicks: 3, visitors: 2 },
      { device: "desktop", clicks: 1, visitors: 1 },
    ]);
    expect(r.body.bots).toBe(4);
    expect(r.body.bot_share).toBe(0.5);
    expect(r.body.browsers).toEqual(
      expect.arrayContaining([
        { browser: "Mobile Safari", clicks: 2, visitors: 1 },
        { browser: "Chrome", clicks: 2, visitors: 2 },
      ]),
    );
    expect(r.body.os).toEqual(
      expect.arrayContaining([
        { os: "iOS", clicks: 2, visitors: 1 },
        { os: "Android", clicks: 1, visitors: 1 },
        { os: "Windows", clicks: 1, visitors: 1 },
      ]),
    );
    // A visitor counts under the referrer of its first visit of the day.
    expect(r.body.referrers).toEqual([
      { referrer: "direct", clicks: 6, visitors: 4 },
      { referrer: "news.example.org", clicks: 2, visitors: 2 },
    ]);
    expect(r.body.countries).toEqual([{ country: "unknown", clicks: 8, visitors: 6 }]);
    // Sorted by clicks, descending, in every breakdown.
    for (const key of ["countries", "devices", "browsers", "os", "referrers"]) {
      const counts = r.body[key].map((x: { clicks: number }) => x.clicks);
      expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
    }
  });

  it("free plan: total only, advanced:false, no breakdown keys; CSV is 403 plan_required", async () => {
    const link = await newLink(server, free, "free-link");
    expect(await visit(server.url, "/free-link", { "user-agent": UA.iphone })).toBe(302);
    await server.ctx.clicks.flush();
    const r = await free.get(`/api/links/${link.id}/stats`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "success", total_clicks: 1, advanced: false, required_plan: "pro" });
    expect(r.body.message).toMatch(/Pro/);
    for (const key of ["range_clicks", "daily", "countries", "devices", "browsers", "os", "referrers", "bots", "bot_share"]) {
      expect(r.body, key).not.toHaveProperty(key);
    }
    const csv = await free.get(`/api/links/${link.id}/stats.csv`);
    expect(csv.status).toBe(403);
    expect(csv.body).toMatchObject({ status: "error", code: "plan_required", required_plan: "pro" });
  });

  it("range=24h: the current UTC hour and the 23 before it, exact at both edges, breakdowns of those hours only", async () => {
    const link = await newLink(server, pro, "last-day");
    const H = 3_600_000;
    const start = Date.UTC(2026, 10, 1, 13); // NOW is 12:00: the window is 2026-11-01 13:00 to 2026-11-02 13:00
    const at: Array<[number, Partial<ClickInput>]> = [
      [start - 1, { country: "SE" }], // one millisecond before the window
      [start, { country: "DE" }],
      [start + 30 * 60_000, { country: "DE", userAgent: UA.iphone }],
      [Date.UTC(2026, 10, 1, 23, 59, 59, 999), { country: "FR" }],
      [Date.UTC(2026, 10, 2, 0, 0, 0), { country: "FR", userAgent: UA.googlebot }],
      [NOW, { country: "JP" }],
      [NOW + 59 * 60_000, { country: "JP" }], // still the current hour (a clock ahead by minutes)
      [NOW + H, { country: "SE" }], // the next hour: not in the window
    ];
    for (const [t, extra] of at) server.ctx.clicks.record(click(link, t, extra));
    await server.ctx.clicks.flush();
    const r = await pro.get(`/api/links/${link.id}/stats?range=24h`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: "success",
      range: "24h",
      from: "2026-11-01",
      to: "2026-11-02",
      total_clicks: 8,
      advanced: true,
      range_clicks: 6,
      bots: 1,
    });
    expect(r.body).not.toHaveProperty("daily");
    expect(r.body.hourly).toHaveLength(24);
    // Visitors are new per UTC day: the Windows visitor's first click of Nov 1 came just before the window.
    expect(r.body.hourly[0]).toEqual({ hour: "2026-11-01T13:00:00.000Z", clicks: 2, visitors: 1, qr: 0 });
    expect(r.body.hourly[23]).toEqual({ hour: "2026-11-02T12:00:00.000Z", clicks: 2, visitors: 1, qr: 0 });
    const nonZero = (r.body.hourly as Array<{ hour: string; clicks: number }>).filter((h) => h.clicks > 0);
    expect(nonZero).toEqual([
      { hour: "2026-11-01T13:00:00.000Z", clicks: 2, visitors: 1, qr: 0 },
      { hour: "2026-11-01T23:00:00.000Z", clicks: 1, visitors: 0, qr: 0 },
      { hour: "2026-11-02T00:00:00.000Z", clicks: 1, visitors: 1, qr: 0 },
      { hour: "2026-11-02T12:00:00.000Z", clicks: 2, visitors: 1, qr: 0 },
    ]);
    expect(r.body.series.map((p: { label: string }) => p.label).slice(0, 2)).toEqual(["2026-11-01T13:00", "2026-11-01T14:00"]);
    expect(r.body.hourly.map((h: { hour: string }) => Date.parse(h.hour) - start)).toEqual(Array.from({ length: 24 }, (_, i) => i * H));
    expect(r.body.countries).toEqual([
      { country: "DE", clicks: 2, visitors: 1 },
      { country: "FR", clicks: 2, visitors: 1 },
      { country: "JP", clicks: 2, visitors: 1 },
    ]);
    expect(r.body.devices).toEqual([
      { device: "desktop", clicks: 4, visitors: 1 },
      { device: "bot", clicks: 1, visitors: 1 },
      { device: "mobile", clicks: 1, visitors: 1 },
    ]);
    expect(r.body.bot_share).toBeCloseTo(1 / 6, 4);

    // On SQLite a long tail's raw clicks wait in click_staging for the next roll-up: they count too.
    if (engine === "sqlite") {
      const row = { link_num: link.num, country: "NL", device: "desktop", os: "Linux", browser: "Firefox", referrer: "direct", is_bot: 0 };
      await server.ctx.storage.db
        .insertInto("click_staging")
        .values([
          { ...row, at: start + 5 * H },
          { ...row, at: start - H },
        ])
        .execute();
      const staged = await pro.get(`/api/links/${link.id}/stats?range=24h`);
      expect(staged.body.range_clicks).toBe(7);
      expect(staged.body.hourly[5]).toEqual({ hour: "2026-11-01T18:00:00.000Z", clicks: 1, visitors: 0, qr: 0 });
      expect(staged.body.countries).toContainEqual({ country: "NL", clicks: 1, visitors: 0 });
    }
  });

  it("range=7d|30d|90d are the days ending today; range with from/to, or another name, is 400", async () => {
    const link = await newLink(server, pro, "named-ranges");
    server.ctx.clicks.record(click(link, Date.UTC(2026, 9, 27, 10))); // 7 days ago: inside 7d (Oct 27 to Nov 2)
    server.ctx.clicks.record(click(link, Date.UTC(2026, 9, 26, 10))); // 8 days ago
    server.ctx.clicks.record(click(link, Date.UTC(2026, 7, 5, 10))); // 89 days ago
    await server.ctx.clicks.flush();
    const want: Array<[string, string, number, number]> = [
      ["7d", "2026-10-27", 7, 1],
      ["30d", "2026-10-04", 30, 2],
      ["90d", "2026-08-05", 90, 3],
    ];
    for (const [name, from, days, clicks] of want) {
      const r = await pro.get(`/api/links/${link.id}/stats?range=${name}`);
      expect(r.status, name).toBe(200);
      expect([r.body.range, r.body.from, r.body.to, r.body.daily.length, r.body.range_clicks], name).toEqual([name, from, "2026-11-02", days, clicks]);
      expect(r.body).not.toHaveProperty("hourly");
      // The same answer as the days spelled out.
      const same = await pro.get(`/api/links/${link.id}/stats?from=${from}&to=2026-11-02`);
      expect({ ...same.body, range: name }).toEqual(r.body);
    }
    for (const q of ["range=24h&from=2026-11-01", "range=7d&to=2026-11-02", "range=1h", "range=", "range=24H"]) {
      const r = await pro.get(`/api/links/${link.id}/stats?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.code, q).toBe("invalid_request");
      expect(r.body.details?.map((d: { field: string }) => d.field).join(","), q).toContain("range");
    }
    // Free: range=24h gives the total only, as every range does.
    const freeLink = await newLink(server, free, "free-24h");
    const f = await free.get(`/api/links/${freeLink.id}/stats?range=24h`);
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({ advanced: false, range: "24h", total_clicks: 0, required_plan: "pro" });
    for (const key of ["hourly", "daily", "range_clicks", "countries"]) expect(f.body, key).not.toHaveProperty(key);
  });

  it("refuses bad dates with 400 invalid_request naming the field", async () => {
    const link = await newLink(server, pro, "dates");
    const cases: Array<[string, string]> = [
      ["from=2026-02-30&to=2026-03-01", "from"],
      ["from=2026-10-01&to=2026-13-01", "to"],
      ["from=2026-1-1", "from"],
      ["from=yesterday", "from"],
      ["from=2026-11-02&to=2026-11-01", "from"],
      ["from=2016-01-01&to=2026-11-01", "from"], // past 3,660 days
      ["from=1999-12-31&to=2000-01-05", "from"],
      ["to=2026-11-04", "to"], // two days ahead
      ["from=2026-10-01&to=2026-10-02&extra=1", "extra"],
    ];
    for (const [q, field] of cases) {
      for (const path of [`/api/links/${link.id}/stats?${q}`, `/api/links/${link.id}/stats.csv?${q}`]) {
        const r = await pro.get(path);
        expect(r.status, path).toBe(400);
        expect(r.body.code, path).toBe("invalid_request");
        expect(r.body.details?.map((d: { field: string }) => d.field).join(","), path).toContain(field);
      }
    }
    // The edges that are allowed: 366 days (and 367, by month), tomorrow, 2000-01-01, only one end given.
    for (const q of [
      "from=2025-11-01&to=2026-11-01",
      "from=2025-10-31&to=2026-11-01",
      "to=2026-11-03",
      "from=2000-01-01&to=2000-12-31",
      "from=2026-11-02",
      "to=2026-06-30",
      "from=&to=",
    ]) {
      const r = await pro.get(`/api/links/${link.id}/stats?${q}`);
      expect(r.status, q).toBe(200);
    }
    const one = await pro.get(`/api/links/${link.id}/stats?to=2026-06-30`);
    expect([one.body.from, one.body.to, one.body.daily.length]).toEqual(["2026-06-01", "2026-06-30", 30]);
    const leap = await pro.get(`/api/links/${link.id}/stats?from=2024-02-28&to=2024-03-01`);
    expect(leap.body.daily.map((d: { date: string }) => d.date)).toEqual(["2024-02-28", "2024-02-29", "2024-03-01"]);
  });

  it("another user's link is 404 (JSON and CSV); signed out is 401; unknown id is 404", async () => {
    const link = await newLink(server, pro, "mine-only");
    for (const path of [`/api/links/${link.id}/stats`, `/api/links/${link.id}/stats.csv`]) {
      const r = await other.get(path);
      expect(r.status, path).toBe(404);
      expect(r.body.code).toBe("not_found");
      const anon = await new ApiClient(server.url).get(path);
      expect(anon.status, path).toBe(401);
      expect(anon.body.code).toBe("unauthenticated");
    }
    expect((await pro.get(`/api/links/nope/stats`)).status).toBe(404);
  });

  it("CSV: BOM, CRLF, both sections, RFC 4180 quoting and formula neutralisation from real referrers", async () => {
    const link = await newLink(server, pro, "csv-me");
    clock.set(Date.UTC(2026, 10, 1, 9, 30));
    expect(await visit(server.url, "/csv-me", { "user-agent": UA.windows, referer: "https://=1+2/" })).toBe(302);
    clock.set(Date.UTC(2026, 10, 2, 10, 0));
    expect(await visit(server.url, "/csv-me", { "user-agent": UA.iphone, referer: 'http://a,b"c/x' })).toBe(302);
    expect(await visit(server.url, "/csv-me", { "user-agent": UA.curl, referer: "http://-2+3/" })).toBe(302);
    clock.set(NOW);
    await server.ctx.clicks.flush();

    const res = await fetch(`${server.url}/api/links/${link.id}/stats.csv?from=2026-10-31&to=2026-11-02`, { headers: { cookie: pro.cookie ?? "" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="snip-csv-me-2026-10-31-2026-11-02.csv"');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString("utf8");
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    expect(text.split("\r\n")).toEqual([
      "date,clicks",
      "2026-10-31,0",
      "2026-11-01,1",
      "2026-11-02,2",
      "",
      "time,country,device,os,browser,referrer,bot,destination",
      "2026-11-01T09:30:00.000Z,unknown,desktop,Windows,Chrome,'=1+2,false,default",
      '2026-11-02T10:00:00.000Z,unknown,mobile,iOS,Mobile Safari,"a,b""c",false,default',
      "2026-11-02T10:00:00.000Z,unknown,bot,unknown,bot,'-2+3,true,default",
      "",
    ]);
  });

  it("CSV filename: the alias is sanitised for the header", async () => {
    const link = await newLink(server, pro, "Caf-2026");
    await server.ctx.storage.db.updateTable("links").set({ alias: 'we"ird;al/ias\u00e9' }).where("id", "=", link.id).execute();
    const r = await pro.get(`/api/links/${link.id}/stats.csv?from=2026-11-01&to=2026-11-02`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="snip-we_ird_al_ias_-2026-11-01-2026-11-02.csv"');
  });

  it("CSV click log is complete past one page (5,000 rows), staged clicks included, in time order", async () => {
    const link = await newLink(server, pro, "busy-log");
    const start = Date.UTC(2026, 9, 20);
    const db = server.ctx.storage.db;
    // 12,345 clicks, two per second; on SQLite every 37th is a long tail's click not yet moved out of click_staging.
    const N = 12_345;
    const row = (i: number) => ({
      link_num: link.num,
      at: start + Math.floor(i / 2) * 1000,
      country: "NL",
      device: "desktop",
      os: "Linux",
      browser: "Firefox",
      referrer: `r${i}`,
      is_bot: 0,
    });
    const staged = (i: number) => engine === "sqlite" && i % 37 === 0;
    const all = Array.from({ length: N }, (_, i) => i);
    for (let k = 0; k < N; k += 1000) {
      const chunk = all.slice(k, k + 1000);
      await db
        .insertInto("clicks")
        .values(chunk.filter((i) => !staged(i)).map(row))
        .execute();
      const st = chunk.filter(staged);
      if (st.length) await db.insertInto("click_staging").values(st.map(row)).execute();
    }
    // Outside the range on both sides.
    await db
      .insertInto("clicks")
      .values([
        { ...row(0), at: start - 1, referrer: "before" },
        { ...row(0), at: Date.UTC(2026, 9, 22), referrer: "after" },
      ])
      .execute();

    const res = await fetch(`${server.url}/api/links/${link.id}/stats.csv?from=2026-10-20&to=2026-10-21`, { headers: { cookie: pro.cookie ?? "" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-snip-log-truncated")).toBeNull();
    const lines = (await res.text()).split("\r\n");
    const log = lines.slice(lines.indexOf("time,country,device,os,browser,referrer,bot,destination") + 1, -1);
    expect(log).toHaveLength(N);
    const times = log.map((l) => Date.parse(l.split(",")[0] as string));
    expect(times.every((t, i) => i === 0 || t >= (times[i - 1] as number))).toBe(true);
    expect(times[0]).toBe(start);
    expect(times.at(-1)).toBe(start + Math.floor((N - 1) / 2) * 1000);
    const refs = log.map((l) => l.split(",")[5]);
    expect(new Set(refs).size).toBe(N);
    expect(refs.sort()).toEqual(all.map((i) => `r${i}`).sort());
    expect(log[0]).toMatch(/^2026-10-20T00:00:00\.000Z,NL,desktop,Linux,Firefox,r[01],false,default$/);
  });

  it("stores no raw IP anywhere in the click tables", async () => {
    const link = await newLink(server, pro, "no-ip");
    server.ctx.clicks.record(click(link, NOW, { ip: "203.0.113.77", userAgent: UA.android }));
    server.ctx.clicks.record(click(link, NOW, { ip: "2001:db8::77" }));
    await server.ctx.clicks.flush();
    const db = server.ctx.storage.db;
    const rows = [
      ...(await db.selectFrom("clicks").selectAll().where("link_num", "=", link.num).execute()),
      ...(await db.selectFrom("click_daily").selectAll().where("link_id", "=", link.id).execute()),
      ...(await db.selectFrom("click_hourly").selectAll().where("link_id", "=", link.id).execute()),
      ...(await db.selectFrom("click_breakdown").selectAll().where("link_id", "=", link.id).execute()),
      ...(await db.selectFrom("click_visitors").selectAll().execute()),
      ...(await db.selectFrom("visitor_salts").selectAll().execute()),
    ];
    expect(rows.length).toBeGreaterThan(2);
    const flat = JSON.stringify(rows);
    expect(flat).not.toContain("203.0.113");
    expect(flat).not.toContain("2001:db8");
    expect(Object.keys(await db.selectFrom("clicks").selectAll().where("link_num", "=", link.num).executeTakeFirstOrThrow()).sort()).toEqual([
      "at",
      "browser",
      "city",
      "counted",
      "country",
      "destination",
      "device",
      "id",
      "is_bot",
      "link_num",
      "new_visitor",
      "os",
      "qr",
      "referrer",
      "referrer_url",
      "region",
      "utm",
    ]);
  });
});

describe.each(ENGINES)("countries from a trusted proxy header on %s", (engine) => {
  let server: TestServer;
  let pro: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ engine, clock: new ManualClock(NOW), env: { TRUST_PROXY: "true" } });
    pro = await signedInClient(server, "pro@example.com", "pro");
  });
  afterAll(async () => server?.close());

  it("counts the cf-ipcountry header; XX, T1 and junk are unknown", async () => {
    const r0 = await pro.post("/api/links", { url: "https://example.com/", alias: "geo" });
    const id = r0.body.link.id;
    for (const c of ["DE", "de", "FR", "XX", "T1", "<script>"])
      expect(await visit(server.url, "/geo", { "user-agent": UA.windows, "cf-ipcountry": c })).toBe(302);
    await server.ctx.clicks.flush();
    const r = await pro.get(`/api/links/${id}/stats`);
    // One visitor (one address and agent): its first click (DE) is the day's visit.
    expect(r.body.countries).toEqual([
      { country: "unknown", clicks: 3, visitors: 0 },
      { country: "DE", clicks: 2, visitors: 1 },
      { country: "FR", clicks: 1, visitors: 0 },
    ]);
  });
});
