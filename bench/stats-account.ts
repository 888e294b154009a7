// Account analytics at scale (issue 29): an account of 10,000 links and 10,000,000 clicks over 30 days, one
// link holding 1,000,000 of them. Measures GET /api/analytics for 30 days (UTC, read by day; and
// Europe/Paris, read by hour) and the big link's range=24h statistics over real HTTP: p50 and p95 against
// the 200 ms goal. The roll-ups are seeded as the writers would leave them (daily, hourly, breakdowns,
// visitors); raw clicks only for the big link's last 24 hours, which range=24h reads.
// Run by bench/stats.ts after its own part (`npm run bench:stats [-- --smoke]`).
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import { loadConfig } from "../src/config.js";
import { createContext, type AppContext } from "../src/context.js";
import { SESSION_COOKIE } from "../src/accounts/sessions.js";
import { evenly, insertRows, linkRows, noRows, type Rows } from "./lib/rollup-seed.js";
import { type BenchEngine, withSnipServer } from "./lib/engines.js";

const SMOKE = process.argv.includes("--smoke");
const LINKS = SMOKE ? 200 : 10_000;
const BIG = SMOKE ? 20_000 : 1_000_000;
const OTHERS = SMOKE ? 80_000 : 9_000_000;
const DAYS = 30;
const REQUESTS = SMOKE ? 5 : 40;
const H = 3_600_000;
const GOAL_MS = 200;

async function seed(ctx: AppContext, ownerId: string, end: number): Promise<{ bigId: string }> {
  const created = end - (DAYS + 1) * 24 * H;
  const links = Array.from({ length: LINKS }, (_, i) => ({
    id: `bench${String(i).padStart(6, "0")}`,
    domain: "",
    alias: `b${i}`,
    url: `https://example.com/${i}`,
    owner_id: ownerId,
    created_at: created,
    updated_at: created,
  }));
  for (let i = 0; i < links.length; i += 1_000)
    await ctx.storage.db
      .insertInto("links")
      .values(links.slice(i, i + 1_000))
      .execute();
  const nums = new Map(
    (await ctx.storage.db.selectFrom("links").select(["id", "num"]).where("owner_id", "=", ownerId).execute()).map((l) => [l.id, Number(l.num)]),
  );
  // The others' clicks: a Zipf-like share per link (link 1 the most), 9,000,000 in all.
  const weights = Array.from({ length: LINKS - 1 }, (_, i) => 1 / (i + 1) ** 0.8);
  const sum = weights.reduce((a, b) => a + b, 0);
  let batch = noRows();
  const flush = async () => {
    for (const k of Object.keys(batch) as Array<keyof Rows>) await insertRows(ctx.storage, k, batch[k]);
    batch = noRows();
  };
  for (let i = 0; i < LINKS; i++) {
    const id = links[i]!.id;
    const n = i === 0 ? BIG : Math.max(1, Math.round((OTHERS * weights[i - 1]!) / sum));
    const rows = linkRows({ id, num: nums.get(id)!, n, seed: i + 1, at: evenly(end, DAYS), rawSince: i === 0 ? end - 25 * H : Infinity });
    for (const k of Object.keys(batch) as Array<keyof Rows>) for (const r of rows[k]) batch[k].push(r);
    await ctx.storage.db.updateTable("links").set({ click_count: n }).where("id", "=", id).execute();
    if (batch.breakdown.length > 200_000 || batch.raw.length > 0) await flush();
  }
  await flush();
  // The owner's roll-ups, as the writers keep them: the sums of its links' rows.
  const db = ctx.storage.db;
  await sql`INSERT INTO owner_daily (owner_id, day, clicks, bots, visitors, qr) SELECT ${ownerId}, day, sum(clicks), sum(bots), sum(visitors), sum(qr)
    FROM click_daily GROUP BY day`.execute(db);
  await sql`INSERT INTO owner_hourly (owner_id, hour, clicks, bots, visitors, qr) SELECT ${ownerId}, hour, sum(clicks), sum(bots), sum(visitors), sum(qr)
    FROM click_hourly GROUP BY hour`.execute(db);
  await sql`INSERT INTO owner_breakdown (owner_id, day, dimension, value, clicks, visitors) SELECT ${ownerId}, day, dimension, value, sum(clicks), sum(visitors)
    FROM click_breakdown GROUP BY day, dimension, value`.execute(db);
  await sql`INSERT INTO owner_breakdown_month (owner_id, month, dimension, value, clicks, visitors) SELECT ${ownerId}, month, dimension, value, sum(clicks), sum(visitors)
    FROM click_breakdown_month GROUP BY month, dimension, value`.execute(db);
  if (ctx.storage.sqlite) {
    // The roll-ups were written here: the service must not fold the raw clicks in again at start.
    ctx.storage.sqlite.prepare("UPDATE click_rollup_state SET last_click_id = (SELECT coalesce(max(id), 0) FROM clicks) WHERE id = 1").run();
    ctx.storage.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    ctx.storage.sqlite.exec("ANALYZE");
  } else await sql`ANALYZE`.execute(ctx.storage.db);
  return { bigId: links[0]!.id };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

/** The account part of bench:stats on one engine: true when every p95 is under the goal. */
export async function accountBench(engine: BenchEngine, env: Record<string, string>): Promise<boolean> {
  const ctx = await createContext(loadConfig(env));
  const user = await ctx.accounts.create({ email: "account-bench@example.com", password: "correct horse 1", plan: "business", verified: true });
  const end = Date.now();
  const t0 = performance.now();
  const { bigId } = await seed(ctx, user.id, end);
  const cookie = `${SESSION_COOKIE}=${await ctx.sessions.create(user.id)}`;
  await ctx.close();
  console.log(
    `[${engine}] account: ${LINKS.toLocaleString("en")} links, ${(BIG + OTHERS).toLocaleString("en")} clicks over ${DAYS} days seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return withSnipServer(env, async (server) => {
    const timed = async (path: string, check: (b: Record<string, unknown>) => boolean) => {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS + 3; i++) {
        const t = performance.now();
        const res = await fetch(server.url + path, { headers: { cookie, accept: "application/json" } });
        const body = (await res.json()) as Record<string, unknown>;
        if (res.status !== 200 || !check(body)) throw new Error(`${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
        if (i >= 3) times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b);
    };
    const total = (b: Record<string, unknown>) => (b.range_clicks as number) > 0;
    const cases: Array<[string, string, (b: Record<string, unknown>) => boolean]> = [
      ["account 30d (UTC, by day)", "/api/analytics?range=30d", total],
      ["account 30d (Europe/Paris, by hour)", "/api/analytics?range=30d&tz=Europe/Paris", total],
      [
        `link of ${BIG.toLocaleString("en")} clicks, 24h by hour`,
        `/api/links/${bigId}/stats?range=24h`,
        (b) => (b.hourly as unknown[]).length === 24 && total(b),
      ],
    ];
    let ok = true;
    for (const [name, path, check] of cases) {
      const t = await timed(path, check);
      const met = pct(t, 95) < GOAL_MS;
      ok &&= met;
      console.log(
        `[${engine}]   ${name.padEnd(42)} p50 ${pct(t, 50).toFixed(1)} ms  p95 ${pct(t, 95).toFixed(1)} ms  goal p95 < ${GOAL_MS} ms -> ${met ? "met" : "NOT met"}`,
      );
    }
    return ok;
  });
}
