// Orphan visits (docs/orphan-visits.md): requests that matched no link, counted per day, host, path,
// referrer host and device class, bounded per host and day; the operator's report of every host, a domain
// owner's of that domain (404 for anyone else), with the alias that would answer each missing path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:http";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { verifiedDomain } from "../helpers/verified-domain.js";
import { account, type Account } from "../helpers/operator.js";
import { ManualClock } from "../../src/shared/clock.js";
import { createLink } from "../helpers/links.js";

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";

function visit(base: string, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

describe.each(ENGINES)("orphan visits on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let op: Account;
  let owner: Account;
  let other: Account;
  let domainId: string;

  beforeAll(async () => {
    clock = new ManualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
    server = await startTestServer({ engine, clock, env: { ORPHAN_PATHS_PER_DAY: "10", NOT_FOUND_PER_MINUTE: "0" } });
    op = await account(server, "orphan-op@example.com", { admin: true });
    owner = await account(server, "orphan-owner@example.com", { plan: "business" });
    other = await account(server, "orphan-other@example.com", { plan: "business" });
    domainId = "dom00000000orphan";
    await verifiedDomain(server, domainId, owner.id, "go.orphan.example");
    await createLink(owner.client, { url: "https://example.com/real", alias: "real-link", domain: "go.orphan.example" });
  });
  afterAll(async () => server?.close());

  it("counts misses on the main host and a custom domain, never a link's visit; the owner sees their domain's only", async () => {
    const host = new URL(server.url).host;
    for (let i = 0; i < 3; i++)
      expect(await visit(server.url, "/summer-sael?utm_source=poster", { host, "user-agent": IPHONE, referer: "https://news.example.org/a?b" })).toBe(404);
    expect(await visit(server.url, "/wp-login.php", { host, "user-agent": "curl/8.0" })).toBe(404);
    expect(await visit(server.url, "/promo", { host: "go.orphan.example", "user-agent": CHROME })).toBe(404);
    expect(await visit(server.url, "/real-link", { host: "go.orphan.example", "user-agent": CHROME })).toBe(302);
    // The API and the dashboard's own pages are not short links.
    expect(await visit(server.url, "/api/nothing", { host })).toBe(404);
    // The icons browsers ask for by themselves are not missing links.
    for (const icon of ["/favicon.ico", "/apple-touch-icon.png", "/apple-touch-icon-precomposed.png", "/apple-touch-icon-120x120.png"])
      expect(await visit(server.url, icon, { host, "user-agent": CHROME })).toBe(404);

    const all = await op.client.get("/api/admin/orphan-visits?days=7");
    expect(all.status, all.text).toBe(200);
    const o = all.body.orphans;
    expect(o.total).toBe(5);
    expect(o.by_day).toHaveLength(7);
    expect(o.by_day[6]).toEqual({ day: "2026-11-28", visits: 5 });
    expect(o.top_paths).toEqual([
      { host: null, path: "/summer-sael", alias: "summer-sael", visits: 3 },
      { host: "go.orphan.example", path: "/promo", alias: "promo", visits: 1 },
      { host: null, path: "/wp-login.php", alias: null, visits: 1 },
    ]);
    expect(o.referrers).toEqual([
      { referrer_host: "news.example.org", visits: 3 },
      { referrer_host: "direct", visits: 2 },
    ]);
    expect(o.devices).toEqual([
      { device: "mobile", visits: 3 },
      { device: "bot", visits: 1 },
      { device: "desktop", visits: 1 },
    ]);

    const mine = await owner.client.get(`/api/domains/${domainId}/orphan-visits`);
    expect(mine.status).toBe(200);
    expect(mine.body.orphans.days).toBe(30);
    expect(mine.body.orphans.total).toBe(1);
    expect(mine.body.orphans.top_paths).toEqual([{ host: "go.orphan.example", path: "/promo", alias: "promo", visits: 1 }]);
  });

  it("refuses other accounts (404), non-operators (403), and bad days (400)", async () => {
    expect((await other.client.get(`/api/domains/${domainId}/orphan-visits`)).status).toBe(404);
    expect((await owner.client.get(`/api/domains/nope/orphan-visits`)).status).toBe(404);
    const notOp = await owner.client.get("/api/admin/orphan-visits");
    expect(notOp.status).toBe(403);
    for (const q of ["days=0", "days=91", "days=x", "days=1&x=1"]) {
      const r = await op.client.get(`/api/admin/orphan-visits?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.code).toBe("invalid_request");
    }
  });

  it("a flood of distinct paths costs at most ORPHAN_PATHS_PER_DAY rows per host and day; every visit still counts", async () => {
    clock.advance(86_400_000);
    const host = new URL(server.url).host;
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => visit(server.url, `/scan-${i}/${"x".repeat(i % 3 === 0 ? 400 : 1)}`, { host, "user-agent": "scanner/1.0" })),
    );
    await server.ctx.orphans.flush();
    const rows = await server.ctx.storage.db.selectFrom("orphan_visits").selectAll().where("day", "=", "2026-11-29").execute();
    expect(rows.length).toBe(11);
    expect(rows.reduce((n, r) => n + Number(r.visits), 0)).toBe(200);
    expect(Math.max(...rows.map((r) => r.path.length))).toBeLessThanOrEqual(200);
    const other = rows.find((r) => r.path === "(other)");
    expect(Number(other?.visits)).toBe(190);
    // A restart's fresh memory does not add rows past the cap: the table is asked.
    const fresh = new (server.ctx.orphans.constructor as typeof import("../../src/orphans/orphan-visits.js").OrphanVisits)(server.ctx.storage.db, clock, {
      enabled: true,
      pathsPerDay: 10,
      keepDays: 90,
    });
    for (let i = 0; i < 5; i++) fresh.visited("", `/after-restart-${i}`, "", "curl/8");
    await fresh.close();
    const after = await server.ctx.storage.db.selectFrom("orphan_visits").selectAll().where("day", "=", "2026-11-29").execute();
    expect(after.length).toBe(11);
    expect(Number(after.find((r) => r.path === "(other)")?.visits)).toBe(195);
  });

  it("keeps ORPHAN_VISITS_DAYS of rows: older days go at the next day's first flush", async () => {
    const old = await server.ctx.storage.db.selectFrom("orphan_visits").select("day").distinct().execute();
    expect(old.map((r) => r.day).sort()).toEqual(["2026-11-28", "2026-11-29"]);
    clock.advance(95 * 86_400_000);
    await visit(server.url, "/late", { host: new URL(server.url).host });
    await server.ctx.orphans.flush();
    const days = await server.ctx.storage.db.selectFrom("orphan_visits").select("day").distinct().execute();
    expect(days.map((r) => r.day)).toEqual(["2027-03-04"]);
  });
});
