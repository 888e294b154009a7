// Issue 29's statistics over HTTP on both engines: visitors (a daily salt, no address stored), periods in a
// time zone across a daylight-saving change, the period before and the change, named ranges, QR scans
// apart (the marker taken off before rules), and account analytics for an owner and a team member.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";
import { UA, visit } from "../helpers/visit.js";
import { hit } from "../helpers/host.js";
import { linkNum } from "../helpers/links.js";
import { type TestAccount, joinTeam, testAccount } from "../helpers/team.js";
import { ManualClock } from "../../src/shared/clock.js";
import type { ClickInput } from "../../src/clicks/click-buffer.js";
import { AccountAnalytics } from "../../src/analytics/account-analytics.js";
import { recentFrom } from "../../src/clicks/pg-months.js";

const NOW = Date.UTC(2026, 9, 27, 10); // Tuesday 2026-10-27, two days after Europe's clocks went back
const HOST = "127.0.0.1";

describe.each(ENGINES)("analytics on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let owner: TestAccount;
  let member: TestAccount;
  let pro: TestAccount;
  let stranger: TestAccount;

  beforeAll(async () => {
    clock = new ManualClock(NOW);
    server = await startTestServer({ engine, clock });
    owner = await testAccount(server, "owner@example.com", "business");
    member = await testAccount(server, "member@example.com", "free");
    pro = await testAccount(server, "pro@example.com", "pro");
    stranger = await testAccount(server, "stranger@example.com", "business");
    await joinTeam(server, owner, member);
  });
  afterAll(async () => server?.close());

  async function newLink(c: ApiClient, alias: string, extra: Record<string, unknown> = {}) {
    const r = await c.post("/api/links", { url: `https://example.com/${alias}`, alias, ...extra });
    if (r.status !== 201) throw new Error(`link: ${r.status} ${r.text}`);
    return { id: r.body.link.id as string, num: await linkNum(server, r.body.link.id), tags: r.body.link.tags as Array<{ id: string }> };
  }
  const record = (link: { id: string; num: number }, at: number, extra: Partial<ClickInput> = {}) =>
    server.ctx.clicks.record({
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
    });

  /** Account analytics as the API reads them, `candidates` (the top links' first candidates) set or left as they are. */
  const analytics = (candidates?: number) =>
    new AccountAnalytics({
      db: server.ctx.storage.db,
      dialect: server.ctx.storage.dialect,
      stats: server.ctx.stats,
      origin: server.url,
      ownHost: HOST,
      ...(candidates === undefined ? {} : { candidates }),
    });

  it("counts a visitor once a day (a new salt the next day) and stores no address anywhere", async () => {
    const link = await newLink(pro.client, "visitors");
    clock.set(Date.UTC(2026, 9, 26, 9));
    for (const ua of [UA.windows, UA.windows, UA.iphone]) expect(await visit(server.url, "/visitors", { "user-agent": ua })).toBe(302);
    clock.set(Date.UTC(2026, 9, 27, 9));
    expect(await visit(server.url, "/visitors", { "user-agent": UA.windows })).toBe(302);
    clock.set(NOW);
    await server.ctx.clicks.flush();
    const r = await pro.client.get(`/api/links/${link.id}/stats?from=2026-10-25&to=2026-10-27`);
    expect(r.body.daily).toEqual([
      { date: "2026-10-25", clicks: 0, visitors: 0, qr: 0 },
      { date: "2026-10-26", clicks: 3, visitors: 2, qr: 0 },
      { date: "2026-10-27", clicks: 1, visitors: 1, qr: 0 },
    ]);
    expect([r.body.range_clicks, r.body.range_visitors]).toEqual([4, 3]);
    expect(r.body.devices).toEqual([
      { device: "desktop", clicks: 3, visitors: 2 },
      { device: "mobile", clicks: 1, visitors: 1 },
    ]);
    const db = server.ctx.storage.db;
    const salts = await db.selectFrom("visitor_salts").selectAll().orderBy("day").execute();
    expect(salts.map((s) => s.day)).toEqual(["2026-10-26", "2026-10-27"]);
    expect(salts[0]!.salt).not.toBe(salts[1]!.salt);
    const keys = await db.selectFrom("click_visitors").selectAll().execute();
    const day26 = new Set(keys.filter((k) => k.day === "2026-10-26").map((k) => String(k.visitor)));
    const day27 = keys.filter((k) => k.day === "2026-10-27").map((k) => String(k.visitor));
    expect(day26.size).toBe(2);
    expect(day27).toHaveLength(1);
    expect(day26.has(day27[0]!)).toBe(false); // the same browser, another day: another key
    const everything = JSON.stringify([
      await db.selectFrom("clicks").selectAll().execute(),
      await db.selectFrom("click_hourly").selectAll().execute(),
      await db.selectFrom("click_breakdown").selectAll().execute(),
      keys,
      salts,
    ]);
    expect(everything).not.toContain("127.0.0.1");
    expect(everything).not.toContain("198.51.100");
    // Two days on, the salts and keys of the days before yesterday are gone.
    record({ id: link.id, num: link.num }, Date.UTC(2026, 9, 29, 8));
    await server.ctx.clicks.flush();
    expect((await db.selectFrom("visitor_salts").select("day").execute()).map((s) => s.day)).toEqual(["2026-10-29"]);
    expect((await db.selectFrom("click_visitors").select("day").execute()).map((k) => k.day)).toEqual(["2026-10-29"]);
  });

  it("puts points in the time zone across a daylight-saving change; breakdowns stay by UTC day", async () => {
    const link = await newLink(pro.client, "paris");
    const times = [
      Date.UTC(2026, 9, 24, 21, 30), // Paris Oct 24 23:30 (CEST)
      Date.UTC(2026, 9, 24, 22, 30), // Paris Oct 25 00:30
      Date.UTC(2026, 9, 25, 0, 30), // Paris 02:30 CEST
      Date.UTC(2026, 9, 25, 1, 30), // Paris 02:30 again, CET
      Date.UTC(2026, 9, 25, 22, 30), // Paris Oct 25 23:30 CET
      Date.UTC(2026, 9, 25, 23, 30), // Paris Oct 26 00:30
    ];
    for (const t of times) record(link, t);
    await server.ctx.clicks.flush();
    const paris = (await pro.client.get(`/api/links/${link.id}/stats?from=2026-10-24&to=2026-10-26&tz=Europe/Paris`)).body;
    expect([paris.tz, paris.granularity, paris.from, paris.to]).toEqual(["Europe/Paris", "day", "2026-10-24", "2026-10-26"]);
    // One visitor, new on each UTC day (Oct 24 at 21:30, Oct 25 at 00:30 UTC).
    expect(paris.series).toEqual([
      { start: "2026-10-23T22:00:00.000Z", label: "2026-10-24", clicks: 1, visitors: 1, qr: 0 },
      { start: "2026-10-24T22:00:00.000Z", label: "2026-10-25", clicks: 4, visitors: 1, qr: 0 },
      { start: "2026-10-25T23:00:00.000Z", label: "2026-10-26", clicks: 1, visitors: 0, qr: 0 },
    ]);
    expect(paris.daily.map((d: { date: string; clicks: number }) => `${d.date} ${d.clicks}`)).toEqual(["2026-10-24 1", "2026-10-25 4", "2026-10-26 1"]);
    const utc = (await pro.client.get(`/api/links/${link.id}/stats?from=2026-10-24&to=2026-10-26`)).body;
    expect(utc.daily.map((d: { date: string; clicks: number }) => `${d.date} ${d.clicks}`)).toEqual(["2026-10-24 2", "2026-10-25 4", "2026-10-26 0"]);
    // The long day by hour: 25 points, 02:00 twice.
    const day = (await pro.client.get(`/api/links/${link.id}/stats?from=2026-10-25&to=2026-10-25&tz=Europe/Paris`)).body;
    expect(day.granularity).toBe("hour");
    expect(day.series).toHaveLength(25);
    expect(
      day.series.filter((p: { label: string }) => p.label === "2026-10-25T02:00").map((p: { start: string; clicks: number }) => `${p.start} ${p.clicks}`),
    ).toEqual(["2026-10-25T00:00:00.000Z 1", "2026-10-25T01:00:00.000Z 1"]);
    expect(day.range_clicks).toBe(4);
    // A zone a day ahead of UTC: its today is tomorrow in UTC; an unknown zone is refused.
    const kiritimati = (await pro.client.get(`/api/links/${link.id}/stats?range=7d&tz=Pacific/Kiritimati`)).body;
    expect([kiritimati.from, kiritimati.to]).toEqual(["2026-10-22", "2026-10-28"]);
    const bad = await pro.client.get(`/api/links/${link.id}/stats?tz=Mars/Olympus`);
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(["tz"]);
  });

  it("compares every total with the period of the same length before; named ranges and monthly points", async () => {
    const link = await newLink(pro.client, "compare");
    record(link, Date.UTC(2026, 9, 15, 9), { ip: "203.0.113.1" });
    record(link, Date.UTC(2026, 9, 18, 9), { ip: "203.0.113.2" });
    record(link, Date.UTC(2026, 9, 22, 9), { ip: "203.0.113.3" });
    record(link, Date.UTC(2026, 9, 27, 8), { ip: "203.0.113.4", qr: true });
    record(link, Date.UTC(2026, 9, 27, 9), { ip: "203.0.113.4" });
    record(link, Date.UTC(2025, 2, 15, 9)); // March 2025
    await server.ctx.clicks.flush();
    const week = (await pro.client.get(`/api/links/${link.id}/stats?range=7d`)).body;
    expect([week.from, week.to, week.range_clicks, week.range_visitors, week.range_qr]).toEqual(["2026-10-21", "2026-10-27", 3, 2, 1]);
    expect(week.previous).toEqual({ from: "2026-10-14", to: "2026-10-20", clicks: 2, visitors: 2, qr: 0 });
    expect(week.change).toEqual({ clicks: 0.5, visitors: 0, qr: null });
    expect(week.sources).toEqual([
      { source: "link", clicks: 2, visitors: 1 },
      { source: "qr", clicks: 1, visitors: 1 },
    ]);
    const named = async (range: string) => {
      const b = (await pro.client.get(`/api/links/${link.id}/stats?range=${range}`)).body;
      return [b.range, b.from, b.to, b.granularity, b.series.length, b.range_clicks, b.previous === undefined];
    };
    expect(await named("mtd")).toEqual(["mtd", "2026-10-01", "2026-10-27", "day", 27, 5, false]);
    expect(await named("lastmonth")).toEqual(["lastmonth", "2026-09-01", "2026-09-30", "day", 30, 0, false]);
    expect(await named("12mo")).toEqual(["12mo", "2025-11-01", "2026-10-27", "day", 361, 5, false]);
    // all: since the link was made (today): hours, and nothing before to compare with.
    expect(await named("all")).toEqual(["all", "2026-10-27", "2026-10-27", "hour", 24, 2, true]);
    const years = (await pro.client.get(`/api/links/${link.id}/stats?from=2024-01-01&to=2026-10-27`)).body;
    expect([years.granularity, years.series.length, years.series[0].label, years.series.at(-1).label, years.range_clicks]).toEqual([
      "month",
      34,
      "2024-01",
      "2026-10",
      6,
    ]);
    expect(years).not.toHaveProperty("daily");
    expect(years.series.find((p: { label: string }) => p.label === "2025-03").clicks).toBe(1);
    // The same months in another zone (read by hour) give the same counts.
    const tokyo = (await pro.client.get(`/api/links/${link.id}/stats?from=2024-01-01&to=2026-10-27&tz=Asia/Tokyo`)).body;
    expect(tokyo.series.map((p: { clicks: number }) => p.clicks)).toEqual(years.series.map((p: { clicks: number }) => p.clicks));
  });

  it("counts QR scans apart; the marker is taken off before redirect rules see the query", async () => {
    const rules = [
      { if: { query: { qr: "*" } }, url: "https://example.com/qr-rule" },
      { if: { query: { utm_source: "*" } }, url: "https://example.com/utm-rule" },
    ];
    const link = await newLink(owner.client, "scan-me", { rules });
    const go = (path: string) => hit(server.url, path, HOST);
    expect((await go("/scan-me?qr=1")).location).toBe("https://example.com/scan-me");
    expect((await go("/scan-me?utm_source=flyer&qr=1")).location).toBe("https://example.com/utm-rule");
    expect((await go("/scan-me?qr=2")).location).toBe("https://example.com/qr-rule"); // not the marker
    expect((await go("/scan-me")).location).toBe("https://example.com/scan-me");
    await server.ctx.clicks.flush();
    const s = (await owner.client.get(`/api/links/${link.id}/stats?range=7d`)).body;
    expect([s.range_clicks, s.range_qr]).toEqual([4, 2]);
    expect(s.sources).toEqual([
      { source: "link", clicks: 2, visitors: 0 },
      { source: "qr", clicks: 2, visitors: 1 },
    ]);
    expect(s.series.at(-1)).toMatchObject({ label: "2026-10-27", clicks: 4, visitors: 1, qr: 2 });
  });

  it("ranks the top 50 of 60 links exactly from a few candidates by all-time clicks", async () => {
    const many = await testAccount(server, "many@example.com", "business");
    const user = (await server.ctx.accounts.byId(many.id))!;
    for (let i = 0; i < 60; i++) {
      const link = await server.ctx.links.create(user, { url: `https://example.com/many/${i}`, alias: `many-${i}` });
      // Link i: i + 1 clicks this week, and i % 7 more long ago (all-time counts rank them a little differently).
      for (let k = 0; k <= i; k++) record({ id: link.id, num: link.num }, NOW - 3_600_000 - k, { ip: `203.0.113.${k}` });
      for (let k = 0; k < i % 7; k++) record({ id: link.id, num: link.num }, Date.UTC(2026, 5, 1) + k);
    }
    await server.ctx.clicks.flush();
    const read = (candidates: number) => analytics(candidates).read(user, { range: "7d" });
    const all = await read(1_000);
    expect(all.links).toHaveLength(50);
    expect(all.links.map((l) => l.clicks)).toEqual(Array.from({ length: 50 }, (_, i) => 60 - i));
    expect(all.links[0]).toMatchObject({ alias: "many-59", clicks: 60, visitors: 60 });
    // 56 candidates rule the other 4 out (the 56th has 8 all-time clicks, the 50th of the week 11); 5 cannot.
    // The 53rd has 11: a link left out with as many could tie with that 50th (and come first by id), so the links
    // with 11 or more are summed too.
    expect((await read(53)).links).toEqual(all.links);
    expect((await read(56)).links).toEqual(all.links);
    // 50 cannot, but their 50th weekly sum rules out every link with fewer all-time clicks: the rest are summed.
    expect((await read(50)).links).toEqual(all.links);
    expect((await read(5)).links).toEqual(all.links);
  });

  it("sums a link's compacted months from its monthly device rows and the other days from the daily ones", async () => {
    const months = await testAccount(server, "months@example.com", "business");
    const user = (await server.ctx.accounts.byId(months.id))!;
    const a = await server.ctx.links.create(user, { url: "https://example.com/months/a", alias: "months-a" });
    const b = await server.ctx.links.create(user, { url: "https://example.com/months/b", alias: "months-b" });
    const at = (m: number, d: number, h: number, min = 0) => Date.UTC(2026, m - 1, d, h, min);
    const click = (l: { id: string; num: number }, t: number, ip: string, userAgent: string = UA.windows) =>
      record({ id: l.id, num: l.num }, t, { ip, userAgent });
    // Edges of the range (2026-07-15 to 2026-10-27) and of the whole months inside it (August and September).
    click(a, at(7, 14, 23, 59), "192.0.2.1"); // the day before: out
    click(a, at(7, 15, 0, 1), "192.0.2.1");
    click(a, at(7, 31, 23, 59), "192.0.2.2", UA.iphone);
    click(a, at(8, 1, 0, 0), "192.0.2.2", UA.iphone);
    click(a, at(8, 1, 0, 30), "192.0.2.2", UA.iphone); // the same visitor that day
    click(a, at(8, 20, 12), "192.0.2.3", UA.googlebot);
    click(a, at(9, 30, 23, 59), "192.0.2.4");
    click(a, at(10, 1, 0, 0), "192.0.2.4");
    for (let i = 0; i < 3; i++) click(b, at(8, 31, 10 + i), `192.0.2.${10 + i}`, UA.iphone);
    click(b, at(9, 1, 8), "192.0.2.10");
    click(b, at(9, 1, 9), "192.0.2.10");
    click(b, at(10, 27, 9), "192.0.2.11");
    await server.ctx.clicks.flush();
    // October's clicks seen, the months before it are compacted (a roll-up or two).
    const through = async () => (await server.ctx.stats.monthsThrough(server.ctx.storage.db)) >= "2026-09";
    for (let i = 0; i < 20 && !(await through()); i++) await server.ctx.clicks.flush();
    expect(await through()).toBe(true);
    const read = await analytics().read(user, { from: "2026-07-15", to: "2026-10-27" });
    expect(read.links.map((l) => [l.alias, l.clicks, l.visitors])).toEqual([
      ["months-a", 7, 6],
      ["months-b", 6, 5],
    ]);
    expect([read.range_clicks, read.range_visitors]).toEqual([13, 11]);
    // The links' own statistics (daily rows) over the same days agree.
    for (const l of read.links) {
      const own = (await months.client.get(`/api/links/${l.link_id}/stats?from=2026-07-15&to=2026-10-27`)).body;
      expect([own.range_clicks, own.range_visitors], l.alias).toEqual([l.clicks, l.visitors]);
    }
  });

  it("account analytics: an owner's links and a member's view of them, filtered, with the plan gate and CSV", async () => {
    const a = await newLink(owner.client, "acct-a", { title: "=HYPERLINK(1)" });
    const b = await newLink(owner.client, "acct-b", { tags: ["promo"] });
    const c = await newLink(owner.client, "acct-c");
    for (let i = 0; i < 3; i++) record(a, NOW - 3_600_000 + i, { ip: `203.0.113.${i}` });
    for (let i = 0; i < 2; i++) record(b, NOW - 7_200_000 + i, { country: "DE" });
    record(c, NOW - 60_000, { qr: true, userAgent: UA.iphone });
    record(c, Date.UTC(2026, 9, 16, 12)); // the week before
    await server.ctx.clicks.flush();
    const mine = (await owner.client.get("/api/analytics?range=7d")).body;
    const ours = mine.links.filter((l: { alias: string }) => l.alias.startsWith("acct-"));
    expect(ours).toEqual([
      { link_id: a.id, alias: "acct-a", short_url: `${server.url}/acct-a`, url: "https://example.com/acct-a", title: "=HYPERLINK(1)", clicks: 3, visitors: 3 },
      { link_id: b.id, alias: "acct-b", short_url: `${server.url}/acct-b`, url: "https://example.com/acct-b", title: null, clicks: 2, visitors: 1 },
      { link_id: c.id, alias: "acct-c", short_url: `${server.url}/acct-c`, url: "https://example.com/acct-c", title: null, clicks: 1, visitors: 1 },
    ]);
    expect(mine.owner_id).toBe(owner.id);
    // Only the filtered links count: one link, one tag, the main host's name, another host.
    const only = async (q: string) => (await owner.client.get(`/api/analytics?range=7d&${q}`)).body;
    const one = await only(`link=${c.id}`);
    expect([one.range_clicks, one.range_qr, one.previous.clicks, one.change.clicks, one.links.length]).toEqual([1, 1, 1, 0, 1]);
    expect(one.devices).toEqual([{ device: "mobile", clicks: 1, visitors: 1 }]);
    const tagged = await only(`tag=${b.tags[0]!.id}`);
    expect([tagged.range_clicks, tagged.countries]).toEqual([2, [{ country: "DE", clicks: 2, visitors: 1 }]]);
    // A folder's links, and the links in no folder.
    const folder = (await owner.client.post("/api/folders", { name: "Acct" })).body.folder.id as string;
    expect((await owner.client.patch(`/api/links/${a.id}`, { folder_id: folder })).status).toBe(200);
    const foldered = await only(`folder_id=${folder}`);
    expect([foldered.range_clicks, foldered.links.map((l: { alias: string }) => l.alias)]).toEqual([3, ["acct-a"]]);
    const unfiled = await only("folder_id=none");
    expect(unfiled.links.filter((l: { alias: string }) => l.alias.startsWith("acct-")).map((l: { alias: string }) => l.alias)).toEqual(["acct-b", "acct-c"]);
    const csv = (await owner.client.get("/api/analytics.csv?range=7d&folder_id=" + folder)).text;
    expect([csv.includes("acct-a"), csv.includes("acct-b"), csv.includes("acct-c")]).toEqual([true, false, false]);
    expect((await only(`domain=${new URL(server.url).hostname}&link=${a.id}`)).range_clicks).toBe(3);
    expect((await only(`domain=elsewhere.example&link=${a.id}`)).range_clicks).toBe(0);
    // A member reads the owner's analytics; its own account (Free) is gated; a stranger learns nothing.
    const theirs = (await member.client.get(`/api/analytics?range=7d&owner=${owner.id}&link=${a.id}`)).body;
    expect([theirs.owner_id, theirs.range_clicks, theirs.links[0].alias]).toEqual([owner.id, 3, "acct-a"]);
    const gated = await member.client.get("/api/analytics");
    expect([gated.status, gated.body.code, gated.body.required_plan]).toEqual([403, "plan_required", "business"]);
    expect((await pro.client.get("/api/analytics")).status).toBe(403);
    const nosy = await stranger.client.get(`/api/analytics?owner=${owner.id}`);
    expect([nosy.status, nosy.body.code]).toEqual([404, "not_found"]);
    expect((await new ApiClient(server.url).get("/api/analytics")).status).toBe(401);
    expect((await owner.client.get("/api/analytics?range=1y")).status).toBe(400);
    // CSV: what the page shows, formulas neutralised.
    const res = await fetch(`${server.url}/api/analytics.csv?range=7d&link=${a.id}`, { headers: { cookie: owner.client.cookie ?? "" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="snip-analytics-2026-10-21-2026-10-27.csv"');
    const lines = (await res.text()).replace(/^\uFEFF/, "").split("\r\n");
    expect(lines[0]).toBe("from,to,tz,clicks,visitors,qr,previous_clicks,previous_visitors,previous_qr,change_clicks,change_visitors,change_qr");
    expect(lines[1]).toBe("2026-10-21,2026-10-27,UTC,3,3,0,0,0,0,,,");
    expect(lines).toContain(`acct-a,${server.url}/acct-a,https://example.com/acct-a,'=HYPERLINK(1),3,3`);
    expect(lines).toContain("2026-10-27,3,3,0");
    expect(lines).toContain("source,clicks,visitors");

    // Top links from a few candidates by all-time clicks, or from every link when those cannot rule the others out: the same answer.
    for (const candidates of [1, 2, 3]) {
      const got = await analytics(candidates).read((await server.ctx.accounts.byId(owner.id))!, { range: "7d" });
      expect(got.links, `candidates ${candidates}`).toEqual(mine.links);
    }
    // Unfiltered, the owner's own roll-ups answer: the same as every link through the per-link rows.
    const strip = (x: Record<string, unknown>) => ({ ...x, links: undefined });
    const all = (await owner.client.get("/api/analytics?range=7d&tz=Europe/Paris")).body;
    const viaLinks = (await owner.client.get(`/api/analytics?range=7d&tz=Europe/Paris&domain=${new URL(server.url).hostname}`)).body;
    expect(all.range_clicks).toBe(10); // scan-me's 4 and acct-a, b, c's 6
    expect(strip(all)).toEqual(strip(viaLinks));
    // A deleted link's clicks leave the account's totals with it.
    expect((await owner.client.delete(`/api/links/${a.id}`)).status).toBe(200);
    const after = (await owner.client.get("/api/analytics?range=7d")).body;
    expect([after.range_clicks, after.range_visitors, after.countries.reduce((n: number, c: { clicks: number }) => n + c.clicks, 0)]).toEqual([
      7,
      all.range_visitors - 3,
      7,
    ]);
    expect(after.series.at(-1).clicks).toBe(7);
    expect(after.links.map((l: { alias: string }) => l.alias)).not.toContain("acct-a");
  });

  it("unfiltered, adds the clicks not rolled up or not committed yet of the owner's links only (none listed up front)", async () => {
    // Roll-ups held back 10 minutes (SQLite's reads add them); PostgreSQL's clicks stay in memory until flushed.
    const fresh = await startTestServer({ engine, clock, env: { CLICK_ROLLUP_MS: "600000", CLICK_FLUSH_MS: engine === "postgres" ? "60000" : "50" } });
    try {
      clock.set(NOW);
      const [me, other] = [await testAccount(fresh, "fresh-me@example.com", "business"), await testAccount(fresh, "fresh-other@example.com", "business")];
      const link = async (who: TestAccount, alias: string) => {
        const r = await who.client.post("/api/links", { url: `https://example.com/${alias}`, alias });
        return { id: r.body.link.id as string, num: await linkNum(fresh, r.body.link.id) };
      };
      const [mine, theirs] = [await link(me, "fresh-mine"), await link(other, "fresh-theirs")];
      const click = (l: { id: string; num: number }, at: number, ip: string) =>
        fresh.ctx.clicks.record({ linkId: l.id, linkNum: l.num, at, userAgent: UA.windows, referer: "", ip, country: null, counted: false, destination: null });
      click(mine, NOW - 60_000, "198.51.100.20");
      click(mine, NOW - 50_000, "203.0.113.9");
      click(theirs, NOW - 40_000, "198.51.100.20");
      const read = async (who: TestAccount) => (await who.client.get("/api/analytics?range=7d")).body;
      // SQLite: written raw within 50 ms, then held back from the roll-ups; PostgreSQL: not committed.
      await new Promise((r) => setTimeout(r, 300));
      const seen = await read(me);
      expect([seen.range_clicks, seen.range_visitors, seen.links]).toEqual([
        2,
        2,
        [
          {
            link_id: mine.id,
            alias: "fresh-mine",
            short_url: `${fresh.url}/fresh-mine`,
            url: "https://example.com/fresh-mine",
            title: null,
            clicks: 2,
            visitors: 2,
          },
        ],
      ]);
      expect((await read(other)).range_clicks).toBe(1);
      await fresh.ctx.clicks.flush();
      const stored = await read(me);
      expect([stored.range_clicks, stored.range_visitors, stored.links]).toEqual([seen.range_clicks, seen.range_visitors, seen.links]);
    } finally {
      await fresh.close();
    }
  });
  it("ranks a month's top links by their clicks since the month before the last compacted one (PostgreSQL), exactly", async () => {
    // Months after any a server of today has compacted: 2031 and 2032.
    clock.set(Date.UTC(2032, 1, 3, 10));
    try {
      const acct = await testAccount(server, "recent@example.com", "business");
      const user = (await server.ctx.accounts.byId(acct.id))!;
      const make = (alias: string) => server.ctx.links.create(user, { url: `https://example.com/${alias}`, alias });
      const click = (l: { id: string; num: number }, at: number, ip: string) => record({ id: l.id, num: l.num }, at, { ip });
      // `dec`: 60 clicks on 5 December and 1 in the period; `busy`: 55 in June and 1 in it; `fresh` i: i + 2 in it.
      const dec = await make("recent-dec");
      const busy = await make("recent-busy");
      const fresh = [];
      for (let i = 0; i < 55; i++) fresh.push(await make(`recent-${i}`));
      for (let k = 0; k < 60; k++) click(dec, Date.UTC(2031, 11, 5, 12) + k, `203.0.113.${k}`);
      for (let k = 0; k < 55; k++) click(busy, Date.UTC(2031, 5, 10, 12) + k, `203.0.113.${k}`);
      click(busy, Date.UTC(2032, 0, 26, 12), "203.0.113.1");
      fresh.forEach((l, i) => {
        for (let k = 0; k < i + 2; k++) click(l, Date.UTC(2032, 0, 20, 12) + k, `198.51.100.${k}`);
      });
      await server.ctx.clicks.flush();
      // A click of February: January is compacted, and on PostgreSQL the months before it join the links' counts before.
      click(dec, Date.UTC(2032, 1, 2, 12), "198.51.100.99");
      const through = async () => (await server.ctx.stats.monthsThrough(server.ctx.storage.db)) >= "2032-01";
      for (let i = 0; i < 20 && !(await through()); i++) await server.ctx.clicks.flush();
      expect(await through()).toBe(true);
      const read = (candidates?: number) => analytics(candidates).read(user, { range: "30d" });
      const exact = await read(1_000);
      expect([exact.from, exact.to]).toEqual(["2032-01-05", "2032-02-03"]);
      expect(exact.links.map((l) => [l.alias, l.clicks])).toEqual(Array.from({ length: 50 }, (_, i) => [`recent-${54 - i}`, 56 - i]));
      // Ruled out by all-time clicks, and on PostgreSQL by recent ones too, from one candidate up: the same links. With 52
      // (dec, busy, 50 fresh ones) the 50th sum, 7, is the bound: dec's 61 all-time clicks reach it, its 1 since December not.
      for (const candidates of [1, 2, 50, 52, 57, undefined]) expect((await read(candidates)).links, `candidates ${candidates}`).toEqual(exact.links);
      if (engine === "postgres") {
        expect(await recentFrom(server.ctx.storage.db)).toBe("2032-01");
        const counts = await server.ctx.storage.db
          .selectFrom("link_click_order")
          .select(["link_id", "click_count", "base_count"])
          .where("link_id", "in", [dec.id, busy.id, fresh[54]!.id])
          .execute();
        const by = new Map(counts.map((c) => [c.link_id, [Number(c.click_count), Number(c.base_count)]]));
        expect([by.get(dec.id), by.get(busy.id), by.get(fresh[54]!.id)]).toEqual([
          [61, 60],
          [56, 55],
          [56, 0],
        ]);
      }
    } finally {
      clock.set(NOW);
    }
  });
});
