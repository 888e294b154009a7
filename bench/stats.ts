// Stats scale benchmark: one link with 1,000,000 clicks over a year and one with 100, then the stats
// endpoint over real HTTP (server in a child process), alternating, and the ratio of their latencies.
// Then the CSV export of the big link's whole range (every click; time, rows, the server's peak RSS).
// Then an account of 10,000 links and 10,000,000 clicks (bench/stats-account.ts).
// `npm run bench:stats [-- --smoke] [-- --account-only]`; PostgreSQL too when TEST_DATABASE_URL is set.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import { loadConfig } from "../src/config.js";
import { createContext, type AppContext } from "../src/context.js";
import { SESSION_COOKIE } from "../src/accounts/sessions.js";
import { type ClickRow, DIMENSIONS, dayOf } from "../src/clicks/click-groups.js";
import { rng, zipf } from "./lib/random.js";
import { type BenchEngine, benchEngines, forEachEngine, withSnipServer } from "./lib/engines.js";
import { accountBench } from "./stats-account.js";

const SMOKE = process.argv.includes("--smoke");
const BIG = SMOKE ? 20_000 : 1_000_000;
const SMALL = 100;
const REQUESTS = SMOKE ? 10 : 50;
const DAYS = 365;

const COUNTRIES = "US DE FR GB BR IN JP CA ES IT NL SE PL MX AU KR TR AR CH BE AT NO DK FI IE PT CZ RO HU GR IL ZA NG EG ID VN TH PH MY SG".split(" ");
const DEVICES = ["mobile", "desktop", "tablet", "bot"] as const;
const OSES = ["iOS", "Android", "Windows", "Mac OS", "Linux", "Chrome OS", "unknown"];
const BROWSERS = ["Mobile Safari", "Chrome", "Chrome WebView", "Safari", "Firefox", "Edge", "Samsung Browser", "Opera", "bot", "unknown"];
const REFERRERS = [
  "direct",
  "t.co",
  "www.google.com",
  "www.facebook.com",
  "l.instagram.com",
  "www.linkedin.com",
  "news.ycombinator.com",
  "www.reddit.com",
  ...Array.from({ length: 52 }, (_, i) => `blog${i}.example.net`),
];

type Click = Omit<ClickRow, "link_id" | "link_num">;

/** n clicks spread over the DAYS UTC days ending with `end`'s day, with a weekly rhythm. */
function* clicks(n: number, end: number, seed: number): Generator<Click> {
  const r = rng(seed);
  const start = Math.floor(end / 86_400_000) * 86_400_000 - (DAYS - 1) * 86_400_000; // 00:00 UTC of the range's first day
  for (let i = 0; i < n; i++) {
    let at = start + Math.floor(r() * (end - start));
    if (new Date(at).getUTCDay() === 0 && r() < 0.4 && at - 86_400_000 >= start) at -= 86_400_000; // quieter Sundays
    const device = zipf(DEVICES, r);
    const bot = device === "bot";
    yield {
      at,
      country: zipf(COUNTRIES, r),
      device,
      os: bot ? "unknown" : zipf(OSES, r),
      browser: bot ? "bot" : zipf(BROWSERS, r),
      referrer: zipf(REFERRERS, r),
      is_bot: bot ? 1 : 0,
      counted: 0,
      destination: null,
      new_visitor: 0,
      qr: 0,
      region: null,
      city: null,
      referrer_url: null,
      utm: null,
    };
  }
}

type Rollups = { daily: Map<string, { clicks: number; bots: number }>; breakdown: Map<string, number>; monthly: Map<string, number> };

function rollup(roll: Rollups, c: Click): void {
  const day = dayOf(c.at);
  const d = roll.daily.get(day) ?? { clicks: 0, bots: 0 };
  d.clicks++;
  d.bots += c.is_bot;
  roll.daily.set(day, d);
  for (const dim of DIMENSIONS) {
    const k = `${day}\u0000${dim}\u0000${c[dim]}`;
    roll.breakdown.set(k, (roll.breakdown.get(k) ?? 0) + 1);
    const mk = `${day.slice(0, 7)}\u0000${dim}\u0000${c[dim]}`;
    roll.monthly.set(mk, (roll.monthly.get(mk) ?? 0) + 1);
  }
}

/** SQLite: one transaction of prepared statements on the raw better-sqlite3 handle. */
function seedSqlite(ctx: AppContext, linkId: string, n: number, end: number, seed: number): number {
  const db = ctx.storage.sqlite!;
  const roll: Rollups = { daily: new Map(), breakdown: new Map(), monthly: new Map() };
  const num = db.prepare("SELECT num FROM links WHERE id = ?").pluck().get(linkId);
  const insClick = db.prepare("INSERT INTO clicks (link_num, at, country, device, os, browser, referrer, is_bot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  const insDaily = db.prepare("INSERT INTO click_daily (link_id, day, clicks, bots) VALUES (?, ?, ?, ?)");
  const insBreak = db.prepare("INSERT INTO click_breakdown (link_id, day, dimension, value, clicks) VALUES (?, ?, ?, ?, ?)");
  const insMonth = db.prepare("INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks) VALUES (?, ?, ?, ?, ?)");
  db.transaction(() => {
    for (const c of clicks(n, end, seed)) {
      insClick.run(num, c.at, c.country, c.device, c.os, c.browser, c.referrer, c.is_bot);
      rollup(roll, c);
    }
    for (const [day, d] of roll.daily) insDaily.run(linkId, day, d.clicks, d.bots);
    for (const [k, v] of roll.breakdown) insBreak.run(linkId, ...k.split("\u0000"), v);
    for (const [k, v] of roll.monthly) insMonth.run(linkId, ...k.split("\u0000"), v);
    db.prepare("UPDATE links SET click_count = ? WHERE id = ?").run(n, linkId);
    // The roll-ups were written here: the service must not fold these clicks in again at start.
    db.prepare("UPDATE click_rollup_state SET last_click_id = (SELECT max(id) FROM clicks) WHERE id = 1").run();
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.exec("ANALYZE");
  return roll.breakdown.size;
}

/** PostgreSQL: column arrays through unnest, 50,000 rows per statement. */
async function seedPostgres(ctx: AppContext, linkId: string, n: number, end: number, seed: number): Promise<number> {
  const db = ctx.storage.db;
  const roll: Rollups = { daily: new Map(), breakdown: new Map(), monthly: new Map() };
  let batch: Click[] = [];
  const { num } = await db.selectFrom("links").select("num").where("id", "=", linkId).executeTakeFirstOrThrow();
  const flush = async () => {
    if (!batch.length) return;
    const col = <K extends keyof Click>(k: K) => batch.map((c) => c[k]);
    await sql`INSERT INTO clicks (link_num, at, country, device, os, browser, referrer, is_bot)
      SELECT ${num}, * FROM unnest(${col("at")}::bigint[], ${col("country")}::text[], ${col("device")}::text[], ${col("os")}::text[],
        ${col("browser")}::text[], ${col("referrer")}::text[], ${col("is_bot")}::int[])`.execute(db);
    batch = [];
  };
  for (const c of clicks(n, end, seed)) {
    rollup(roll, c);
    batch.push(c);
    if (batch.length === 50_000) await flush();
  }
  await flush();
  const days = [...roll.daily];
  await sql`INSERT INTO click_daily (link_id, day, clicks, bots) SELECT ${linkId}, * FROM unnest(${days.map(([d]) => d)}::text[],
    ${days.map(([, v]) => v.clicks)}::bigint[], ${days.map(([, v]) => v.bots)}::bigint[])`.execute(db);
  const parts = [...roll.breakdown].map(([k, v]) => [...k.split("\u0000"), v] as [string, string, string, number]);
  await sql`INSERT INTO click_breakdown (link_id, day, dimension, value, clicks) SELECT ${linkId}, * FROM unnest(${parts.map((p) => p[0])}::text[],
    ${parts.map((p) => p[1])}::text[], ${parts.map((p) => p[2])}::text[], ${parts.map((p) => p[3])}::bigint[])`.execute(db);
  const months = [...roll.monthly].map(([k, v]) => [...k.split("\u0000"), v] as [string, string, string, number]);
  await sql`INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks) SELECT ${linkId}, * FROM unnest(${months.map((p) => p[0])}::text[],
    ${months.map((p) => p[1])}::text[], ${months.map((p) => p[2])}::text[], ${months.map((p) => p[3])}::bigint[])`.execute(db);
  await db.updateTable("links").set({ click_count: n }).where("id", "=", linkId).execute();
  await sql`ANALYZE`.execute(db);
  return roll.breakdown.size;
}

/** Resident memory of a process now, in bytes (/proc). */
function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

/** Downloads a CSV export, counting its lines, while sampling the server's RSS every 20 ms. */
async function csvExport(url: string, pid: number, cookie: string): Promise<{ ms: number; lines: number; bytes: number; rssBefore: number; rssPeak: number }> {
  const rssBefore = rssBytes(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssBytes(pid))), 20);
  const t = performance.now();
  try {
    const res = await fetch(url, { headers: { cookie } });
    if (res.status !== 200 || !res.body) throw new Error(`CSV export answered ${res.status}`);
    let lines = 0;
    let bytes = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    }
    return { ms: performance.now() - t, lines, bytes, rssBefore, rssPeak: Math.max(rssPeak, rssBytes(pid)) };
  } finally {
    clearInterval(sampler);
  }
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function run(engine: BenchEngine, env: Record<string, string>): Promise<boolean> {
  // Seed with a context of our own, then serve the same database from a child process.
  const ctx = await createContext(loadConfig(env));
  const user = await ctx.accounts.create({ email: "bench@example.com", password: "correct horse 1", plan: "pro", verified: true });
  const big = await ctx.links.create(user, { url: "https://example.com/big", alias: "big-link" });
  const small = await ctx.links.create(user, { url: "https://example.com/small", alias: "small-link" });
  const end = Date.now();
  const t0 = performance.now();
  const rows =
    engine === "sqlite"
      ? seedSqlite(ctx, big.id, BIG, end, 1) + seedSqlite(ctx, small.id, SMALL, end, 2)
      : (await seedPostgres(ctx, big.id, BIG, end, 1)) + (await seedPostgres(ctx, small.id, SMALL, end, 2));
  const seedMs = performance.now() - t0;
  const cookie = `${SESSION_COOKIE}=${await ctx.sessions.create(user.id)}`;
  await ctx.close();
  console.log(
    `[${engine}] seeded ${BIG.toLocaleString("en")} + ${SMALL} clicks (${rows.toLocaleString("en")} breakdown rows) in ${(seedMs / 1000).toFixed(1)} s`,
  );

  return withSnipServer(env, async (server) => {
    const to = new Date(end).toISOString().slice(0, 10);
    const from = new Date(end - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    const get = async (id: string) => {
      const t = performance.now();
      const res = await fetch(`${server.url}/api/links/${id}/stats?from=${from}&to=${to}`, { headers: { cookie, accept: "application/json" } });
      const body = (await res.json()) as { range_clicks?: number; daily?: unknown[] };
      const ms = performance.now() - t;
      if (res.status !== 200 || body.daily?.length !== DAYS) throw new Error(`bad answer ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      return { ms, clicks: body.range_clicks ?? 0 };
    };
    for (let i = 0; i < 5; i++) {
      await get(big.id);
      await get(small.id);
    }
    const times = { big: [] as number[], small: [] as number[] };
    let bigClicks = 0;
    for (let i = 0; i < REQUESTS; i++) {
      const b = await get(big.id);
      times.big.push(b.ms);
      bigClicks = b.clicks;
      times.small.push((await get(small.id)).ms);
    }
    const big50 = pct(
      times.big.sort((a, b) => a - b),
      50,
    );
    const small50 = pct(
      times.small.sort((a, b) => a - b),
      50,
    );
    const ratio = big50 / small50;
    const f = (ms: number) => `${ms.toFixed(2)} ms`;
    console.log(`[${engine}] ${REQUESTS} requests each, range ${from}..${to} (${DAYS} days), ${bigClicks.toLocaleString("en")} clicks in range`);
    console.log(`[${engine}]   ${BIG.toLocaleString("en").padStart(9)} clicks: median ${f(big50)}  p95 ${f(pct(times.big, 95))}`);
    console.log(`[${engine}]   ${String(SMALL).padStart(9)} clicks: median ${f(small50)}  p95 ${f(pct(times.small, 95))}`);
    const ok = ratio < 3 && big50 < 100;
    console.log(`[${engine}]   ratio (median) ${ratio.toFixed(2)}  goal: ratio < 3 and big median < 100 ms -> ${ok ? "met" : "NOT met"}`);

    // The CSV export of the same range: every click, streamed.
    const csv = await csvExport(`${server.url}/api/links/${big.id}/stats.csv?from=${from}&to=${to}`, server.pid, cookie);
    const rowsOut = csv.lines - (DAYS + 3); // daily header, DAYS days, the empty line, the log header
    const mbOf = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
    const complete = rowsOut === bigClicks;
    console.log(
      `[${engine}]   CSV export of the ${BIG.toLocaleString("en")}-click link: ${rowsOut.toLocaleString("en")} click rows (${complete ? "all of them" : `MISSING ${bigClicks - rowsOut}`}), ` +
        `${mbOf(csv.bytes)} in ${(csv.ms / 1000).toFixed(2)} s (${Math.round(rowsOut / (csv.ms / 1000)).toLocaleString("en")} rows/s); ` +
        `server RSS ${mbOf(csv.rssBefore)} before, peak ${mbOf(csv.rssPeak)} during (+${mbOf(csv.rssPeak - csv.rssBefore)})`,
    );
    if (!complete) throw new Error("the CSV export left clicks out");
    return ok;
  });
}

// `--account-only`: the account part alone (its seeding dominates a full run).
const linkOk = process.argv.includes("--account-only") ? true : await forEachEngine("stats", benchEngines(), run);
// Then an account of 10,000 links (bench/stats-account.ts): account analytics and a big link's last 24 hours.
const accountOk = await forEachEngine("stats-account", benchEngines(), accountBench);
// Smoke runs only prove the benchmark works; a full run reports whether the goals were met.
process.exitCode = SMOKE || (linkOk && accountOk) ? 0 : 1;
