// `npm run bench:big` (issue 60, "a hundred million clicks"): one account of --links links (1,000,000) and
// --clicks clicks (100,000,000) over --days days (1,095) ending at the build, on SQLite and PostgreSQL. Built
// straight into the database as the writers would leave it (bench/lib/rollup-seed.ts): a Zipf share per link
// (the first link about 7 % of all clicks, the tail a handful each), times with a weekly, yearly and daily
// shape and growth, every roll-up for the whole range (months before this one compacted), raw rows only for
// the last 90 days (the server runs with CLICK_RETENTION_DAYS=90), the owner's roll-ups, click counts and
// last click times. Cached under bench/.data (SQLite: a file; PostgreSQL: a database snip_big_<key>), keyed by
// the schema and the flags, rebuilt with --rebuild or once older than MAX_AGE_DAYS. Then, over real HTTP
// against a server in a child process: the totals checked against the click counts, p50 and p95 of account
// statistics, a big and a tail link's statistics, the link list and a month's CSV export (first byte and
// whole), against the 100 ms goal; and the bytes each click costs on disk, table by table.
//   npm run bench:big [-- --clicks N --links N --days N --requests N --pg | --no-pg --rebuild --smoke]
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { execFileSync } from "node:child_process";
import pg from "pg";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { SESSION_COOKIE } from "../src/accounts/sessions.js";
import { monthBefore } from "../src/clicks/rollup-rows.js";
import type { Storage } from "../src/storage/db.js";
import { ensureMonths, monthOf, monthsFrom, nextMonth } from "../src/storage/click-partitions.js";
import { fillBaseCounts } from "../src/storage/migrations/065-pg-recent-clicks.js";
import { BENCH_DATA, schemaFingerprint, withPgClient } from "./lib/db.js";
import { type BenchEngine, withSnipServer } from "./lib/engines.js";
import { killAll } from "./lib/children.js";
import { rng } from "./lib/random.js";
import { arrayLiteral, insertRows, linkRows, noRows, type Rows } from "./lib/rollup-seed.js";

const { values: argv } = parseArgs({
  options: {
    clicks: { type: "string" },
    links: { type: "string" },
    days: { type: "string", default: "1095" },
    requests: { type: "string" },
    pg: { type: "boolean", default: false },
    "no-pg": { type: "boolean", default: false },
    rebuild: { type: "boolean", default: false },
    smoke: { type: "boolean", default: false },
  },
});
const SMOKE = argv.smoke;
const CLICKS = Number(argv.clicks ?? (SMOKE ? 100_000 : 100_000_000));
const LINKS = Number(argv.links ?? (SMOKE ? 1_000 : 1_000_000));
const DAYS = Number(argv.days);
const REQUESTS = Number(argv.requests ?? (SMOKE ? 3 : 40));
const RETENTION_DAYS = 90;
const GOAL_MS = 100;
/** A cached dataset ends at its build: past this age its "last 7 days" thin out, and it is built again. */
const MAX_AGE_DAYS = 3;
/** Bump when the generator changes what it builds. */
const GENERATOR = 1;
const H = 3_600_000;
const DAY = 86_400_000;
const EMAIL = "big-bench@example.com";
const log = (s: string) => console.log(`[big] ${s}`);

/** What a build left, kept beside it (bench/.data/big-<key>.json). */
interface Built {
  builtAt: number;
  seconds: number;
  ownerId: string;
  clicks: number;
  rawClicks: number;
  /** Clicks of the months compacted into click_breakdown_month. */
  monthlyClicks: number;
  bigId: string;
  bigClicks: number;
  tailId: string;
  tailClicks: number;
  /** A sample of links and their click counts, for the consistency check. */
  sample: Array<[string, number]>;
}

const key = createHash("sha1")
  .update(JSON.stringify({ GENERATOR, CLICKS, LINKS, DAYS, RETENTION_DAYS, schema: schemaFingerprint() }))
  .digest("hex")
  .slice(0, 12);

/** The tables of clicks: raw rows and roll-ups. */
const CLICK_TABLES = [
  "clicks",
  "click_daily",
  "click_hourly",
  "click_breakdown",
  "click_breakdown_month",
  "owner_daily",
  "owner_hourly",
  "owner_breakdown",
  "owner_breakdown_month",
];

// ---- the dataset's shape ---------------------------------------------------------------------------------

/**
 * Clicks per link by rank: 1/(rank+1) of the whole (Zipf, s = 1), at least 1 each, summing to CLICKS (more when
 * CLICKS is under about 15 clicks a link: every link has one).
 */
function clicksByRank(): number[] {
  let sum = 0;
  for (let r = 0; r < LINKS; r++) sum += 1 / (r + 1);
  const out = Array.from({ length: LINKS }, (_, r) => Math.max(1, Math.floor(CLICKS / (r + 1) / sum)));
  let left = CLICKS - out.reduce((a, b) => a + b, 0);
  for (let r = 0; left > 0; r = (r + 1) % LINKS, left--) out[r]!++;
  return out;
}

/**
 * PostgreSQL: the click tables' keys, foreign keys and indexes dropped for the load and made again after it (one
 * sort per index and one join per foreign key instead of a b-tree descent and a link lookup per row); the same
 * definitions, packed as an index build leaves them rather than as years of upserts would. Returns the restore.
 */
async function withoutKeys(storage: Storage): Promise<() => Promise<void>> {
  const tables = sql`ARRAY[${sql.join(CLICK_TABLES)}]::regclass[]`;
  const cons = await sql<{ t: string; name: string; def: string; type: string }>`SELECT conrelid::regclass::text AS t, conname AS name,
    pg_get_constraintdef(oid) AS def, contype AS type FROM pg_constraint WHERE conrelid = ANY(${tables}) AND contype IN ('p', 'f')`.execute(storage.db);
  const idx = await sql<{ name: string; def: string }>`SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS def FROM pg_index i
    WHERE indrelid = ANY(${tables}) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`.execute(storage.db);
  const run = (q: string) => sql.raw(q).execute(storage.db);
  for (const c of [...cons.rows].sort((a, b) => a.type.localeCompare(b.type))) await run(`ALTER TABLE ${c.t} DROP CONSTRAINT ${c.name}`);
  for (const i of idx.rows) await run(`DROP INDEX ${i.name}`);
  return async () => {
    await run("SET maintenance_work_mem = '1GB'");
    for (const c of cons.rows.filter((x) => x.type === "p")) await run(`ALTER TABLE ${c.t} ADD CONSTRAINT ${c.name} ${c.def}`);
    // A partitioned table's index is given ON ONLY the parent (clicks, migration 063): made on every partition instead.
    for (const i of idx.rows) await run(i.def.replace(" ON ONLY ", " ON "));
    // The writer inserts a link's daily row at its first click of the day: years of it leave click_daily laid out by
    // day, which the generator's link-by-link load does not (migration 064's index would find a week's rows on
    // 36,000 pages instead of 700).
    await run("CLUSTER click_daily USING click_daily_day");
    for (const c of cons.rows.filter((x) => x.type === "f")) await run(`ALTER TABLE ${c.t} ADD CONSTRAINT ${c.name} ${c.def}`);
  };
}

/**
 * A click's time: an hour drawn by weight over the DAYS days before `end` (traffic growing 1 -> 3 over the range,
 * weekends at 0.75, a yearly peak in December, a daily peak in the European afternoon), a moment within it.
 */
function timeSampler(end: number): (r: () => number) => number {
  const hours = DAYS * 24;
  const start = end - hours * H;
  const cdf = new Float64Array(hours);
  let total = 0;
  for (let h = 0; h < hours; h++) {
    const t = new Date(start + h * H);
    const dow = t.getUTCDay();
    const doy = (t.getTime() - Date.UTC(t.getUTCFullYear(), 0, 1)) / DAY;
    const hod = t.getUTCHours();
    const w =
      (1 + (2 * h) / hours) *
      (dow === 0 || dow === 6 ? 0.75 : 1) *
      (1 + 0.3 * Math.cos((2 * Math.PI * (doy - 350)) / 365)) *
      (0.35 + Math.max(0, Math.sin((Math.PI * (hod - 5)) / 19)));
    total += w;
    cdf[h] = total;
  }
  return (r) => {
    const u = r() * total;
    let lo = 0;
    let hi = hours - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return Math.min(end - 1, start + lo * H + Math.floor(r() * H));
  };
}

/** "YYYY-MM" of a time (UTC). */
const ymdMonth = (t: number): string => new Date(t).toISOString().slice(0, 7);

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** LINKS link ids as the service makes them (16 base62 characters), sorted (created in id order), and each one's rank. */
function linkIds(): { ids: string[]; rank: Uint32Array } {
  const r = rng(60);
  const ids = Array.from({ length: LINKS }, () => Array.from({ length: 16 }, () => BASE62[Math.floor(r() * 62)]).join("")).sort();
  const rank = new Uint32Array(LINKS).map((_, i) => i);
  for (let i = LINKS - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [rank[i], rank[j]] = [rank[j]!, rank[i]!];
  }
  return { ids, rank };
}

// ---- the build -------------------------------------------------------------------------------------------

/** The owner's roll-ups: its links' rows summed (one owner holds every link). */
class OwnerSums {
  readonly daily = new Map<string, number[]>();
  readonly hourly = new Map<number, number[]>();
  readonly breakdown = new Map<string, number[]>();

  add(rows: Rows): void {
    for (const [, day, ...t] of rows.daily) sum(this.daily, day as string, t as number[]);
    for (const [, hour, ...t] of rows.hourly) sum(this.hourly, hour as number, t as number[]);
    for (const [, day, dim, value, ...t] of rows.breakdown)
      sum(this.breakdown, `${day as string}\u0000${dim as string}\u0000${value as string}`, t as number[]);
  }

  rows(owner: string): Pick<Rows, "daily" | "hourly" | "breakdown"> {
    return {
      daily: [...this.daily].map(([k, t]) => [owner, k, ...t]),
      hourly: [...this.hourly].map(([k, t]) => [owner, k, ...t]),
      breakdown: [...this.breakdown].map(([k, t]) => [owner, ...k.split("\u0000"), ...t]),
    };
  }
}

function sum<K>(m: Map<K, number[]>, k: K, t: number[]): void {
  const s = m.get(k);
  if (s === undefined) m.set(k, [...t]);
  else for (let i = 0; i < t.length; i++) s[i]! += t[i]!;
}

const LINK_COLUMNS = ["id", "num", "domain", "alias", "url", "owner_id", "click_count", "last_click_at", "created_at", "updated_at"] as const;
const LINK_TYPES = ["text", "bigint", "text", "text", "text", "text", "bigint", "bigint", "bigint", "bigint"] as const;

async function insertLinks(storage: Storage, rows: unknown[][]): Promise<void> {
  if (storage.sqlite) {
    const st = storage.sqlite.prepare(`INSERT INTO links (${LINK_COLUMNS.join(", ")}) VALUES (${LINK_COLUMNS.map(() => "?").join(", ")})`);
    storage.sqlite.transaction(() => rows.forEach((r) => st.run(r)))();
    return;
  }
  const arrays = LINK_COLUMNS.map((_, k) => sql`${arrayLiteral(rows, k)}::${sql.raw(LINK_TYPES[k] as string)}[]`);
  await sql`INSERT INTO links (${sql.join(LINK_COLUMNS.map((c) => sql.ref(c)))}) SELECT * FROM unnest(${sql.join(arrays)})`.execute(storage.db);
}

/** Every link and click of the dataset into a migrated, empty database holding the owner. */
async function build(storage: Storage, ownerId: string): Promise<Omit<Built, "seconds" | "ownerId">> {
  const end = Date.now();
  const at = timeSampler(end);
  const rawSince = end - RETENTION_DAYS * DAY;
  const created = end - (DAYS + 1) * DAY;
  const monthsThrough = monthBefore(ymdMonth(end));
  const counts = clicksByRank();
  const clicks = counts.reduce((a, b) => a + b, 0);
  const { ids, rank } = linkIds();
  // PostgreSQL: the raw clicks' months made first, as the writers would have made them (migration 063).
  if (!storage.sqlite) await ensureMonths(storage.db, monthsFrom(monthOf(rawSince), nextMonth(monthOf(end))));
  const restore = storage.sqlite ? async () => {} : await withoutKeys(storage);
  const owner = new OwnerSums();
  const bigAt = rank.indexOf(0);
  const tailAt = rank.indexOf(Math.floor(LINKS / 2));
  const sample: Array<[string, number]> = [];
  let rawClicks = 0;
  let monthlyClicks = 0;
  let batch = noRows();
  let links: unknown[][] = [];
  // PostgreSQL writes one batch while the next is simulated (the two cores: node and the database).
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const [b, l] = [batch, links];
    [batch, links] = [noRows(), []];
    await writing;
    writing = (async () => {
      await insertLinks(storage, l);
      for (const k of Object.keys(b) as Array<keyof Rows>) await insertRows(storage, k, b[k]);
    })();
    if (storage.sqlite) await writing;
  };
  const t0 = performance.now();
  for (let i = 0; i < LINKS; i++) {
    const id = ids[i]!;
    const n = counts[rank[i]!]!;
    const rows = linkRows({ id, num: i + 1, n, seed: i + 1, at, rawSince, monthsThrough });
    owner.add(rows);
    for (const k of Object.keys(batch) as Array<keyof Rows>) for (const r of rows[k]) batch[k].push(r);
    rawClicks += rows.raw.length;
    for (const m of rows.monthly) if (m[2] === "country") monthlyClicks += m[4] as number;
    links.push([id, i + 1, "", `b${i.toString(36)}`, `https://example.com/p/${i}`, ownerId, n, rows.lastAt, created, created]);
    if (i === bigAt || i === tailAt || i % Math.max(1, Math.floor(LINKS / 20)) === 0) sample.push([id, n]);
    if (batch.breakdown.length + batch.hourly.length + batch.raw.length > 300_000 || links.length >= 20_000) await flush();
    if (i % 100_000 === 99_999) log(`  ${(i + 1).toLocaleString("en")} links, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  await flush();
  await writing;
  log(`  every link written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  await restore();
  const o = owner.rows(ownerId);
  await insertRows(storage, "ownerDaily", o.daily);
  await insertRows(storage, "ownerHourly", o.hourly);
  await insertRows(storage, "ownerBreakdown", o.breakdown);
  // The owner's monthly rows of the compacted months: the sum of its links' monthly rows (migration 062).
  await sql`INSERT INTO owner_breakdown_month (owner_id, month, dimension, value, clicks, visitors)
    SELECT owner_id, substr(day, 1, 7), dimension, value, sum(clicks), sum(visitors) FROM owner_breakdown
    WHERE owner_id = ${ownerId} AND day < ${`${monthsThrough}-32`} GROUP BY owner_id, substr(day, 1, 7), dimension, value`.execute(storage.db);
  // The writers' state: every raw click rolled up (SQLite's watermark), the months before this one compacted.
  await sql`UPDATE click_rollup_state SET last_click_id = (SELECT coalesce(max(id), 0) FROM clicks), months_through = ${monthsThrough},
    epoch_to = NULL, epoch_link = NULL, compact_to = NULL, compact_link = NULL WHERE id = 1`.execute(storage.db);
  if (!storage.sqlite) {
    await sql`SELECT setval(pg_get_serial_sequence('links', 'num'), ${LINKS + 1}, false)`.execute(storage.db);
    // The links' clicks before the last compacted month, as the compactions leave them (migration 065).
    await fillBaseCounts(storage.db, monthsThrough);
  }
  return {
    builtAt: end,
    clicks,
    rawClicks,
    monthlyClicks,
    bigId: ids[bigAt]!,
    bigClicks: counts[0]!,
    tailId: ids[tailAt]!,
    tailClicks: counts[Math.floor(LINKS / 2)]!,
    sample,
  };
}

/** The env of a server (and createContext) on this engine's cached database; `pgUrl` for PostgreSQL. */
function serverEnv(dataDir: string, database: string): Record<string, string> {
  return { DATA_DIR: dataDir, DATABASE_URL: database, LOG_LEVEL: "silent", PORT: "0", HOST: "127.0.0.1", CLICK_RETENTION_DAYS: String(RETENTION_DAYS) };
}

const metaFile = (engine: BenchEngine) => join(BENCH_DATA, `big-${engine}-${key}.json`);
const sqliteFile = () => join(BENCH_DATA, `big-${key}.db`);
const pgName = `snip_big_${key}`;

function pgUrl(name: string): string {
  const u = new URL(process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test");
  u.pathname = "/" + name;
  return u.toString();
}

const pgAdmin = <T>(fn: (c: pg.Client) => Promise<T>, url = pgUrl("postgres")): Promise<T> => withPgClient(url, fn);

function cached(engine: BenchEngine): Built | null {
  if (argv.rebuild || !existsSync(metaFile(engine))) return null;
  const b = JSON.parse(readFileSync(metaFile(engine), "utf8")) as Built;
  if (Date.now() - b.builtAt > MAX_AGE_DAYS * DAY) {
    log(`${engine}: the cached dataset is ${((Date.now() - b.builtAt) / DAY).toFixed(1)} days old: building it again`);
    return null;
  }
  return b;
}

/** The engine's dataset, from the cache or built now. */
async function dataset(engine: BenchEngine, dataDir: string): Promise<{ built: Built; database: string }> {
  mkdirSync(BENCH_DATA, { recursive: true });
  const final = engine === "sqlite" ? `sqlite:${sqliteFile()}` : pgUrl(pgName);
  const hit = cached(engine);
  if (hit && (engine === "postgres" || existsSync(sqliteFile()))) {
    log(`${engine}: cached dataset of ${new Date(hit.builtAt).toISOString()} (built in ${hit.seconds.toFixed(0)} s), key ${key}`);
    return { built: hit, database: final };
  }
  rmSync(metaFile(engine), { force: true });
  const tmp = `${sqliteFile()}.${process.pid}.tmp`;
  if (engine === "sqlite") for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true });
  else
    await pgAdmin(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${pgName}`);
    });
  const database = engine === "sqlite" ? `sqlite:${tmp}` : final;
  log(`${engine}: building about ${CLICKS.toLocaleString("en")} clicks over ${LINKS.toLocaleString("en")} links and ${DAYS} days (key ${key})`);
  const t0 = performance.now();
  const ctx = await createContext(loadConfig(serverEnv(dataDir, database)));
  let built: Built;
  try {
    const user = await ctx.accounts.create({ email: EMAIL, password: "correct horse 1", plan: "business", verified: true });
    const db = ctx.storage.sqlite;
    if (db) {
      // A throwaway file until it is renamed: no journal, no fsync; WAL again at the end (as the service runs it).
      db.pragma("journal_mode = OFF");
      db.pragma("synchronous = OFF");
      db.pragma("cache_size = -1048576");
    }
    const b = await build(ctx.storage, user.id);
    if (db) db.pragma("journal_mode = WAL");
    else await sql`VACUUM ANALYZE`.execute(ctx.storage.db);
    built = { ...b, ownerId: user.id, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await ctx.close();
  }
  if (engine === "sqlite") {
    for (const ext of ["-wal", "-shm"]) rmSync(tmp + ext, { force: true });
    renameSync(tmp, sqliteFile());
  }
  writeFileSync(metaFile(engine), JSON.stringify(built));
  log(`${engine}: built in ${built.seconds.toFixed(1)} s: ${built.rawClicks.toLocaleString("en")} raw clicks in the last ${RETENTION_DAYS} days`);
  return { built, database: final };
}

// ---- bytes per click -------------------------------------------------------------------------------------

interface TableBytes {
  table: string;
  data: number;
  indexes: number;
  rows: number;
}

async function tableBytes(engine: BenchEngine, database: string): Promise<TableBytes[]> {
  if (engine === "postgres")
    return pgAdmin(async (c) => {
      // A partitioned table (clicks, migration 063) is the sum of its partitions.
      const r = await c.query<{ t: string; data: string; idx: string; rows: string }>(
        `SELECT t.name AS t, sum(pg_table_size(c.oid)) AS data, sum(pg_indexes_size(c.oid)) AS idx, sum(greatest(c.reltuples, 0))::bigint AS rows
         FROM unnest($1::text[]) AS t(name)
         CROSS JOIN LATERAL (SELECT t.name::regclass AS relid UNION SELECT relid FROM pg_partition_tree(t.name::regclass)) AS p
         JOIN pg_class c ON c.oid = p.relid WHERE c.relkind = 'r' GROUP BY t.name`,
        [CLICK_TABLES],
      );
      return r.rows.map((x) => ({ table: x.t, data: Number(x.data), indexes: Number(x.idx), rows: Number(x.rows) }));
    }, database);
  // SQLite: the pages of each table's b-tree and of its indexes (dbstat); WITHOUT ROWID tables are their primary key.
  const d = new SQLite(database.slice("sqlite:".length), { readonly: true });
  let t: { name: string; tbl_name: string }[], s: { name: string; b: number }[];
  const count = new Map<string, number>();
  try {
    t = d.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')").all() as typeof t;
    s = d.prepare("SELECT name, sum(pgsize) AS b FROM dbstat GROUP BY name").all() as typeof s;
    for (const table of CLICK_TABLES) count.set(table, Number((d.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n));
  } finally {
    d.close();
  }
  const tableOf = new Map(t.map((x) => [x.name, x.tbl_name]));
  return CLICK_TABLES.map((table) => {
    let data = 0;
    let indexes = 0;
    for (const x of s) {
      if (tableOf.get(x.name) !== table) continue;
      if (x.name === table) data += x.b;
      else indexes += x.b;
    }
    return { table, data, indexes, rows: count.get(table) ?? 0 };
  });
}

function printBytes(engine: BenchEngine, built: Built, bytes: TableBytes[]): void {
  const represents = (t: string) => (t === "clicks" ? built.rawClicks : t.endsWith("_month") ? built.monthlyClicks : built.clicks);
  const mb = (b: number) => (b / 1e6).toFixed(1).padStart(9);
  log(`${engine}: bytes on disk per click (table + its indexes; "clicks" = clicks the table holds or rolls up)`);
  log(`  ${"table".padEnd(22)} ${"rows".padStart(12)} ${"data MB".padStart(9)} ${"index MB".padStart(9)} ${"clicks".padStart(12)} bytes/click`);
  let all = 0;
  for (const b of bytes.sort((x, y) => y.data + y.indexes - (x.data + x.indexes))) {
    all += b.data + b.indexes;
    const c = represents(b.table);
    log(
      `  ${b.table.padEnd(22)} ${b.rows.toLocaleString("en").padStart(12)} ${mb(b.data)} ${mb(b.indexes)} ${c.toLocaleString("en").padStart(12)} ${(c ? (b.data + b.indexes) / c : 0).toFixed(2).padStart(8)}`,
    );
  }
  log(`  all click tables: ${(all / 1e6).toFixed(1)} MB for ${built.clicks.toLocaleString("en")} clicks = ${(all / built.clicks).toFixed(1)} bytes per click`);
  if (engine === "sqlite") {
    const file = sqliteFile();
    log(`  (the SQLite file: ${(statSync(file).size / 1e6).toFixed(1)} MB)`);
  }
}

// ---- the reads -------------------------------------------------------------------------------------------

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

interface Read {
  name: string;
  path: string;
  check?: (b: Record<string, unknown>) => string | null;
}

async function measure(engine: BenchEngine, built: Built, env: Record<string, string>): Promise<boolean> {
  const ctx = await createContext(loadConfig(env));
  const cookie = `${SESSION_COOKIE}=${await ctx.sessions.create(built.ownerId)}`;
  await ctx.close();
  return withSnipServer(env, async (server) => {
    const get = async (path: string) => {
      const res = await fetch(server.url + path, { headers: { cookie, accept: "application/json" } });
      const body = (await res.json()) as Record<string, unknown>;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      return body;
    };
    // Consistency: each sampled link's statistics over its whole range, and the account's, against the counts built.
    let bad = 0;
    for (const [id, n] of built.sample) {
      const b = await get(`/api/links/${id}/stats?range=all`);
      if (b.total_clicks !== n || b.range_clicks !== n) {
        bad++;
        log(`${engine}: link ${id}: total_clicks ${String(b.total_clicks)}, range_clicks ${String(b.range_clicks)}, built ${n}`);
      }
    }
    const account = await get("/api/analytics?range=all");
    const list = await get("/api/links?sort=clicks");
    const top = (list.links as Array<{ id: string; click_count: number }>)[0];
    if (account.range_clicks !== built.clicks || list.total !== LINKS || top?.id !== built.bigId || top.click_count !== built.bigClicks) bad++;
    log(
      `${engine}: consistency: ${built.sample.length} links' statistics over range=all equal their click counts: ${bad === 0 ? "yes" : "NO"}; ` +
        `the account's ${String(account.range_clicks)} of ${built.clicks} built; the list's total ${String(list.total)}, first ${String(top?.click_count)} clicks`,
    );
    // The link list's deep page: the cursor found by following the ones before it.
    let cursor = "";
    let page = 1;
    for (; page < 50; page++) {
      const next = (await get(`/api/links?sort=clicks${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)).next_cursor as string | null;
      if (!next) break;
      cursor = next;
    }
    const reads: Read[] = [
      ...["7d", "30d", "12mo", "all"].map((r) => ({ name: `account, range=${r}`, path: `/api/analytics?range=${r}` })),
      ...(
        [
          ["big", built.bigId, built.bigClicks],
          ["tail", built.tailId, built.tailClicks],
        ] as const
      ).flatMap(([kind, id, n]) =>
        ["24h", "30d", "12mo", "all"].map((r) => ({ name: `${kind} link (${n.toLocaleString("en")}), range=${r}`, path: `/api/links/${id}/stats?range=${r}` })),
      ),
      { name: "link list by clicks, page 1", path: "/api/links?sort=clicks" },
      { name: `link list by clicks, page ${page}`, path: `/api/links?sort=clicks${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}` },
      { name: "link list by last click, page 1", path: "/api/links?sort=last_click" },
    ];
    let ok = bad === 0;
    const line = (name: string, t: number[], extra = "") => {
      const met = pct(t, 95) < GOAL_MS;
      log(
        `${engine}   ${name.padEnd(44)} p50 ${pct(t, 50).toFixed(1).padStart(7)} ms  p95 ${pct(t, 95).toFixed(1).padStart(7)} ms  ${met ? "met" : "NOT met"}${extra}`,
      );
      return met;
    };
    for (const r of reads) {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS + 3; i++) {
        const t = performance.now();
        await get(r.path);
        if (i >= 3) times.push(performance.now() - t);
      }
      ok =
        line(
          r.name,
          times.sort((a, b) => a - b),
        ) && ok;
    }
    // The CSV export of last month (raw rows: inside the retention): the first byte of the body, and the whole.
    const first: number[] = [];
    const whole: number[] = [];
    let bytes = 0;
    for (let i = 0; i < Math.min(REQUESTS, 10) + 1; i++) {
      const t = performance.now();
      const res = await fetch(`${server.url}/api/links/${built.bigId}/stats.csv?range=lastmonth`, { headers: { cookie } });
      const reader = res.body!.getReader();
      let chunk = await reader.read();
      const tFirst = performance.now() - t;
      bytes = 0;
      while (!chunk.done) {
        bytes += chunk.value.length;
        chunk = await reader.read();
      }
      if (res.status !== 200) throw new Error(`stats.csv: ${res.status}`);
      if (i > 0) {
        first.push(tFirst);
        whole.push(performance.now() - t);
      }
    }
    ok =
      line(
        "big link's CSV of last month, first byte",
        first.sort((a, b) => a - b),
      ) && ok;
    log(
      `${engine}   ${"  the whole export".padEnd(44)} p50 ${pct(
        whole.sort((a, b) => a - b),
        50,
      ).toFixed(0)} ms, ${(bytes / 1e6).toFixed(1)} MB (not in the goal)`,
    );
    return ok;
  });
}

// ---- main ------------------------------------------------------------------------------------------------

const engines: BenchEngine[] = argv.pg ? ["postgres"] : argv["no-pg"] || !process.env.TEST_DATABASE_URL ? ["sqlite"] : ["sqlite", "postgres"];
process.on("exit", killAll);
const commit = (() => {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
})();
log(
  `${new Date().toISOString()}, commit ${commit}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}, engines ${engines.join(", ")}`,
);
let allOk = true;
for (const engine of engines) {
  const dataDir = mkdtempSync(join(tmpdir(), "snip-bench-big-"));
  try {
    const { built, database } = await dataset(engine, dataDir);
    printBytes(engine, built, await tableBytes(engine, database));
    log(`${engine}: reads, ${REQUESTS} of each after 3 warm-ups; load average ${loadavg()[0]!.toFixed(2)}`);
    allOk = (await measure(engine, built, serverEnv(dataDir, database))) && allOk;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
log(
  `${allOk ? "every read met" : "NOT every read met"} the ${GOAL_MS} ms goal; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
process.exitCode = SMOKE || allOk ? 0 : 1;
