// GET /api/links/sparklines: each link's clicks per UTC day over the last 7 days, the numbers the statistics
// page shows for those days (stored roll-ups and clicks not rolled up yet); who may read which link; bad id lists.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { createLink, linkNum } from "../helpers/links.js";
import { UA, visit } from "../helpers/visit.js";
import { within } from "../helpers/wait.js";
import { ManualClock } from "../../src/shared/clock.js";
import type { ClickInput } from "../../src/clicks/recorder.js";

const NOW = Date.UTC(2026, 10, 2, 12, 0, 0); // 2026-11-02: the seven days are 2026-10-27 .. 2026-11-02
const day = (d: number, h = 9) => Date.UTC(2026, 9, d, h); // a day of October 2026 (32 = 1 November, 33 = 2 November)

describe.each(ENGINES)("link sparklines on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let owner: ApiClient;
  let ownerId: string;
  let n = 0;
  beforeAll(async () => {
    clock = new ManualClock(NOW);
    // Roll-ups held back for 10 minutes: reads must add what the roll-ups have not taken in yet.
    server = await startTestServer({ engine, clock, env: { CLICK_ROLLUP_MS: "600000" } });
    owner = await signedInClient(server, `spark-owner-${engine}@example.com`, "business");
    ownerId = (await owner.get("/api/profile")).body.user.id;
  });
  afterAll(async () => server?.close());

  const alias = (name: string) => `${name}-${++n}`;
  async function link(c: ApiClient, name: string, extra: Record<string, unknown> = {}) {
    const l = await createLink(c, { url: "https://example.com/landing", alias: alias(name), ...extra });
    return { ...l, num: await linkNum(server, l.id) };
  }
  const click = (l: { id: string; num: number }, at: number, extra: Partial<ClickInput> = {}): ClickInput => ({
    linkId: l.id,
    linkNum: l.num,
    at,
    userAgent: UA.windows,
    referer: "",
    ip: "198.51.100.20",
    country: null,
    counted: false,
    destination: null,
    ...extra,
  });
  const sparks = (c: ApiClient, ids: string[]) => c.get(`/api/links/sparklines?ids=${ids.map(encodeURIComponent).join(",")}`);

  it("seven UTC days, oldest first, today last; exact counts per day, bots included as on the statistics page", async () => {
    const a = await link(owner, "spark-a");
    const b = await link(owner, "spark-b");
    const quiet = await link(owner, "spark-quiet");
    const rec = (l: typeof a, at: number, extra: Partial<ClickInput> = {}) => server.ctx.clicks.record(click(l, at, extra));
    rec(a, day(26, 23)); // the day before the seven: left out
    rec(a, day(27, 0));
    rec(a, day(27, 23));
    rec(a, day(30));
    rec(a, day(31, 23));
    rec(a, Date.UTC(2026, 10, 1, 0, 0, 0));
    rec(b, day(29), { userAgent: UA.googlebot });
    rec(b, day(29));
    await server.ctx.clicks.flush();
    // Today's clicks through real redirects (the click time is the server clock's), not rolled up yet.
    for (let i = 0; i < 3; i++) expect(await visit(server.url, `/${a.alias}`, { "user-agent": UA.iphone })).toBe(302);
    expect(await visit(server.url, `/${b.alias}`, { "user-agent": UA.android })).toBe(302);
    const want = {
      [a.id]: [2, 0, 0, 1, 1, 1, 3],
      [b.id]: [0, 0, 2, 0, 0, 0, 1],
      [quiet.id]: [0, 0, 0, 0, 0, 0, 0],
    };
    const read = () => sparks(owner, [a.id, b.id, quiet.id]);
    const same = (got: Record<string, number[]>) => Object.keys(want).every((id) => JSON.stringify(got[id]) === JSON.stringify(want[id]));
    const r = await within(2000, read, (x) => same(x.body.sparklines));
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("cache-control")).toContain("no-store");
    expect(r.body).toEqual({ status: "success", sparklines: want });
    if (engine === "sqlite") {
      // Today's clicks came from the clicks held back from the roll-up, which has none of them yet.
      const today = await server.ctx.storage.db
        .selectFrom("click_daily")
        .select("clicks")
        .where("link_id", "=", a.id)
        .where("day", "=", "2026-11-02")
        .executeTakeFirst();
      expect(today).toBeUndefined();
    }
    // The statistics page shows the same numbers for the same days.
    for (const l of [a, b]) {
      const stats = await owner.get(`/api/links/${l.id}/stats?from=2026-10-27&to=2026-11-02`);
      expect(
        stats.body.daily.map((d: { clicks: number }) => d.clicks),
        l.alias,
      ).toEqual(want[l.id]);
    }

    // Once the roll-ups have caught up, the same numbers.
    await server.ctx.clicks.flush();
    expect((await read()).body.sparklines).toEqual(want);

    // Two days later the window has moved: 29 October is its first day.
    clock.set(NOW + 2 * 86_400_000);
    expect(await visit(server.url, `/${a.alias}`, { "user-agent": UA.iphone })).toBe(302);
    await server.ctx.clicks.flush();
    const later = await sparks(owner, [a.id, b.id]);
    expect(later.body.sparklines).toEqual({ [a.id]: [0, 1, 1, 1, 3, 0, 1], [b.id]: [2, 0, 0, 0, 1, 0, 0] });
    clock.set(NOW);
  });

  it("same access as reading a link: the owner and active members; unknown and other accounts' ids are absent", async () => {
    const mine = await link(owner, "spark-mine");
    server.ctx.clicks.record(click(mine, NOW));
    await server.ctx.clicks.flush();
    const other = await signedInClient(server, `spark-other-${engine}@example.com`, "business");
    const theirs = await link(other, "spark-theirs");
    server.ctx.clicks.record(click(theirs, NOW));
    await server.ctx.clicks.flush();

    const r = await sparks(owner, [mine.id, theirs.id, "NoSuchLink000000"]);
    expect(r.status, r.text).toBe(200);
    expect(r.body.sparklines).toEqual({ [mine.id]: [0, 0, 0, 0, 0, 0, 1] });
    expect((await sparks(other, [mine.id])).body).toEqual({ status: "success", sparklines: {} });

    // A member of the owner's team reads the owner's links, not while the owner's plan has no team.
    const memberEmail = `spark-member-${engine}@example.com`;
    const member = await signedInClient(server, memberEmail, "free");
    const memberId = (await member.get("/api/profile")).body.user.id;
    const db = server.ctx.storage.db;
    await db.insertInto("team_members").values({ owner_id: ownerId, member_id: memberId, joined_at: NOW }).execute();
    expect((await sparks(member, [mine.id, theirs.id])).body.sparklines).toEqual({ [mine.id]: [0, 0, 0, 0, 0, 0, 1] });
    await db.updateTable("users").set({ plan: "free" }).where("id", "=", ownerId).execute();
    expect((await sparks(member, [mine.id])).body.sparklines).toEqual({});
    // The owner still reads their own links on any plan.
    expect((await sparks(owner, [mine.id])).body.sparklines).toEqual({ [mine.id]: [0, 0, 0, 0, 0, 0, 1] });
    await db.updateTable("users").set({ plan: "business" }).where("id", "=", ownerId).execute();
    await db.deleteFrom("team_members").where("member_id", "=", memberId).execute();
    expect((await sparks(member, [mine.id])).body.sparklines).toEqual({});

    // Signed out: 401.
    const anonymous = new ApiClient(server.url);
    expect((await sparks(anonymous, [mine.id])).status).toBe(401);
  });

  it("bad id lists are refused with a field error; 100 ids are taken, 101 are not; repeated ids count once", async () => {
    const l = await link(owner, "spark-bad");
    const bad = async (query: string) => {
      const r = await owner.get(`/api/links/sparklines${query}`);
      expect(r.status, `${query}: ${r.text}`).toBe(400);
      expect(r.body.code, query).toBe("invalid_request");
      return r;
    };
    await bad("");
    expect((await bad("?ids=")).body.details).toEqual([{ field: "ids", message: "must name at least one link id" }]);
    await bad("?ids=%20");
    await bad(`?ids=${l.id},`);
    await bad(`?ids=${l.id},,${l.id}`);
    await bad("?ids=..%2Fetc%2Fpasswd");
    await bad("?ids=%3Cscript%3E");
    await bad(`?ids=${"a".repeat(65)}`);
    await bad(`?ids=${l.id}&extra=1`);
    await bad(`?ids=${"x".repeat(7000)}`);
    const many = Array.from({ length: 101 }, (_, i) => `Missing${String(i).padStart(9, "0")}`);
    expect((await bad(`?ids=${many.join(",")}`)).body.details).toEqual([{ field: "ids", message: "must name at most 100 links" }]);

    const hundred = [l.id, ...many.slice(0, 99)];
    const ok = await sparks(owner, hundred);
    expect(ok.status, ok.text).toBe(200);
    expect(Object.keys(ok.body.sparklines)).toEqual([l.id]);
    const repeated = await sparks(owner, [...hundred, l.id, l.id]);
    expect(repeated.status, repeated.text).toBe(200);
    expect(repeated.body.sparklines).toEqual({ [l.id]: [0, 0, 0, 0, 0, 0, 0] });
  });
});
