// Seeding and accounting: links rows go straight into the database before the service starts
// (migrations from src/storage first), and clicks stored are read back after it has stopped.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { openStorage } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";
import { hashPassword } from "../../src/accounts/passwords.js";
import {
  allLinks,
  APP_INDEX,
  APP_LINK,
  APP_TWIN_INDEX,
  BENCH_DOMAIN,
  benchLinkId,
  DATASET_VERSION,
  DETAILED_INDEX,
  DOMAIN_URL,
  HOST_APPS,
  PASSWORD,
  plainAlias,
  RULES,
  RULES_INDEX,
  SMALL_LIMITED,
  smallLimitedAlias,
  SPLIT,
  SPLIT_INDEX,
  TRACKED_INDEX,
} from "./dataset.js";

const ROOT = new URL("../../", import.meta.url).pathname;
export const BENCH_DATA = join(ROOT, "bench", ".data");

/** What the database holds after a run (compared with the 302 answers the load generator saw). */
export interface ClickTotals {
  /** SUM(links.click_count). */
  clickCount: number;
  /** Rows in clicks. */
  clickRows: number;
  /** Small-limited links: stored count and limit (the limit must hold exactly). */
  limited: { alias: string; count: number; max: number }[];
  /** One link's clicks by clicks.destination ("default" for NULL), when asked for. */
  destinations: Record<string, number>;
  /** Rows in tracked_clicks (a click of a link that tracks conversions has one, written with it). */
  trackedRows: number;
}

const DESTINATIONS_SQL =
  "SELECT COALESCE(c.destination, 'default') AS d, COUNT(*) AS n FROM clicks c JOIN links l ON l.num = c.link_num WHERE l.id = $1 GROUP BY 1";

function byDestination(rows: { d: string; n: number | string }[]): Record<string, number> {
  return Object.fromEntries(rows.map((r) => [r.d, Number(r.n)]));
}

/** Changes to the schema invalidate cached seeds. */
export function schemaFingerprint(): string {
  const h = createHash("sha1");
  const dir = join(ROOT, "src", "storage", "migrations");
  for (const f of readdirSync(dir).sort()) h.update(f).update(readFileSync(join(dir, f)));
  h.update(readFileSync(join(ROOT, "src", "storage", "migrate.ts")));
  return h.digest("hex").slice(0, 10);
}

interface Row {
  id: string;
  alias: string;
  url: string;
  max_clicks: number | null;
  password_hash: string | null;
}

async function rows(count: number): Promise<Row[]> {
  const pwHash = await hashPassword(PASSWORD);
  const out: Row[] = [];
  for (const l of allLinks(count)) {
    out.push({ id: "bench_" + l.alias, alias: l.alias, url: l.url, max_clicks: l.maxClicks, password_hash: l.password ? pwHash : null });
  }
  // In index order, so the unique (domain, alias) index and the primary key grow at their right edge.
  return out.sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0));
}

/**
 * The custom-domain scenario's rows, as the service would have them: an owner, its verified domain (the
 * next re-check years away: no DNS during a run) and one link there; `$1` is the time. For both engines.
 */
const DOMAIN_SEED = [
  "INSERT INTO users (id, email, password_hash, name, plan, status, created_at, updated_at) VALUES ('bench_owner', 'bench-owner@example.com', '!', '', 'business', 'active', $1, $1)",
  `INSERT INTO domains (id, owner_id, hostname, status, txt_token, verified_at, last_checked_at, next_check_at, created_at) VALUES ('bench_domain', 'bench_owner', '${BENCH_DOMAIN}', 'verified', 'bench', $1, $1, $1 + 315360000000, $1)`,
  `INSERT INTO links (id, domain, alias, url, click_count, owner_id, created_at, updated_at) VALUES ('bench_domain_hot', '${BENCH_DOMAIN}', '${plainAlias(0)}', '${DOMAIN_URL}', 0, 'bench_owner', $1, $1)`,
  // The detailed-hot scenario's link: the owner's, with two tags, a title, a note, a fallback URL and a preview card.
  `UPDATE links SET owner_id = 'bench_owner', title = 'Spring campaign', note = 'Printed on the May flyer', expired_url = 'https://example.com/campaign-over', ` +
    `preview_title = 'Spring sale', preview_description = 'Half price on everything', preview_image = 'https://cdn.example.com/card.png' WHERE id = 'bench_${plainAlias(DETAILED_INDEX)}'`,
  "INSERT INTO tags (id, owner_id, name, name_key, color, created_at) VALUES ('bench_tag_1', 'bench_owner', 'Campaign', 'campaign', 'green', $1), ('bench_tag_2', 'bench_owner', 'Print', 'print', 'blue', $1)",
  `INSERT INTO link_tags (link_id, tag_id) VALUES ('bench_${plainAlias(DETAILED_INDEX)}', 'bench_tag_1'), ('bench_${plainAlias(DETAILED_INDEX)}', 'bench_tag_2')`,
  // The rules and split scenarios' links (the owner is on the Business plan, which has both).
  `UPDATE links SET owner_id = 'bench_owner', rules = '${JSON.stringify(RULES)}' WHERE id = '${benchLinkId(plainAlias(RULES_INDEX))}'`,
  `UPDATE links SET owner_id = 'bench_owner', split = '${JSON.stringify(SPLIT)}' WHERE id = '${benchLinkId(plainAlias(SPLIT_INDEX))}'`,
  // The tracked-hot scenario's link (conversions: Business and up).
  `UPDATE links SET owner_id = 'bench_owner', track_conversions = 1 WHERE id = '${benchLinkId(plainAlias(TRACKED_INDEX))}'`,
  // The app-hot scenario's link (issue 57) and its plain twin, the same owner's; the association scenario's main-host apps.
  `UPDATE links SET owner_id = 'bench_owner', app_ios_store_id = '${APP_LINK.app_ios_store_id}', app_android_package = '${APP_LINK.app_android_package}', ` +
    `app_path = '${APP_LINK.app_path}', open_outside = 1 WHERE id = '${benchLinkId(plainAlias(APP_INDEX))}'`,
  `UPDATE links SET owner_id = 'bench_owner' WHERE id = '${benchLinkId(plainAlias(APP_TWIN_INDEX))}'`,
  `INSERT INTO app_associations (id, domain_id, ios, android, updated_at) VALUES ('main', NULL, '${JSON.stringify(HOST_APPS.ios)}', '${JSON.stringify(HOST_APPS.android)}', $1)`,
];

/**
 * A migrated SQLite file holding the dataset, built once and cached under bench/.data/.
 * Callers copy it (the service writes clicks into it).
 */
export async function sqliteSeed(count: number, log: (s: string) => void): Promise<string> {
  mkdirSync(BENCH_DATA, { recursive: true });
  const file = join(BENCH_DATA, `seed-v${DATASET_VERSION}-${schemaFingerprint()}-${count}.db`);
  if (existsSync(file)) return file;
  const t0 = performance.now();
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const storage = await openStorage({ kind: "sqlite", file: tmp });
  try {
    await migrateToLatest(storage);
    const db = storage.sqlite as SQLite.Database;
    // A throwaway file until it is renamed: no journal, no fsync; WAL again at the end (as the service runs it).
    db.pragma("journal_mode = OFF");
    db.pragma("synchronous = OFF");
    db.pragma("cache_size = -262144");
    const insert = db.prepare(
      "INSERT INTO links (id, domain, alias, url, ios_url, android_url, expires_at, max_clicks, password_hash, click_count, owner_id, created_at, updated_at) " +
        "VALUES (?, '', ?, ?, NULL, NULL, NULL, ?, ?, 0, NULL, ?, ?)",
    );
    const now = Date.now();
    const all = await rows(count);
    db.transaction(() => {
      for (const r of all) insert.run(r.id, r.alias, r.url, r.max_clicks, r.password_hash, now, now);
      for (const s of DOMAIN_SEED) db.prepare(s.replaceAll("$1", "@now")).run({ now });
    })();
    db.pragma("optimize");
    db.pragma("journal_mode = WAL");
  } finally {
    await storage.close();
  }
  for (const ext of ["-wal", "-shm"]) rmSync(tmp + ext, { force: true });
  renameSync(tmp, file);
  log(`seeded ${count.toLocaleString("en")} links into ${file} in ${((performance.now() - t0) / 1000).toFixed(1)} s (cached for later runs)`);
  return file;
}

const LIMITED_ALIASES = Array.from({ length: SMALL_LIMITED }, (_, i) => smallLimitedAlias(i));

export function sqliteTotals(file: string, linkId?: string): ClickTotals {
  const db = new SQLite(file, { readonly: true });
  try {
    const clickCount = Number((db.prepare("SELECT COALESCE(SUM(click_count), 0) AS n FROM links").get() as { n: number }).n);
    const clickRows = Number((db.prepare("SELECT COUNT(*) AS n FROM clicks").get() as { n: number }).n);
    const limited = (
      db
        .prepare(`SELECT alias, click_count, max_clicks FROM links WHERE domain = '' AND alias IN (${LIMITED_ALIASES.map(() => "?").join(",")})`)
        .all(...LIMITED_ALIASES) as {
        alias: string;
        click_count: number;
        max_clicks: number;
      }[]
    ).map((r) => ({ alias: r.alias, count: Number(r.click_count), max: Number(r.max_clicks) }));
    const destinations = linkId === undefined ? {} : byDestination(db.prepare(DESTINATIONS_SQL.replace("$1", "?")).all(linkId) as { d: string; n: number }[]);
    const trackedRows = Number((db.prepare("SELECT COUNT(*) AS n FROM tracked_clicks").get() as { n: number }).n);
    return { clickCount, clickRows, limited, destinations, trackedRows };
  } finally {
    db.close();
  }
}

/** `fn` with a client of its own on `url`, closed after. */
export async function withPgClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A database of its own on the server of TEST_DATABASE_URL, for one benchmark run. */
export class PgBench {
  readonly name = `snip_bench_${randomBytes(4).toString("hex")}`;
  readonly url: string;

  constructor(private readonly adminUrl: string) {
    const u = new URL(adminUrl);
    u.pathname = "/" + this.name;
    this.url = u.toString();
  }

  private admin<T>(fn: (c: pg.Client) => Promise<T>, url = this.adminUrl): Promise<T> {
    return withPgClient(url, fn);
  }

  /** The PostgreSQL server processes serving this database (the snip children's connections), by pid. */
  async backendPids(): Promise<number[]> {
    return this.admin(
      async (c) =>
        (await c.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")).rows.map(
          (r) => r.pid,
        ),
      this.url,
    );
  }

  async create(count: number, log: (s: string) => void): Promise<void> {
    const t0 = performance.now();
    await this.admin((c) => c.query(`CREATE DATABASE ${this.name}`));
    const storage = await openStorage({ kind: "postgres", url: this.url });
    try {
      await migrateToLatest(storage);
    } finally {
      await storage.close();
    }
    const all = await rows(count);
    const now = Date.now();
    await this.admin(async (c) => {
      await c.query("BEGIN");
      const CHUNK = 50_000;
      for (let i = 0; i < all.length; i += CHUNK) {
        const part = all.slice(i, i + CHUNK);
        await c.query(
          `INSERT INTO links (id, domain, alias, url, max_clicks, password_hash, click_count, created_at, updated_at)
           SELECT id, '', alias, url, max_clicks, password_hash, 0, $6, $6
           FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) AS t(id, alias, url, max_clicks, password_hash)`,
          [part.map((r) => r.id), part.map((r) => r.alias), part.map((r) => r.url), part.map((r) => r.max_clicks), part.map((r) => r.password_hash), now],
        );
      }
      for (const s of DOMAIN_SEED) await c.query(s.replaceAll("$1", "$1::bigint"), s.includes("$1") ? [now] : []);
      await c.query("COMMIT");
      await c.query("ANALYZE links");
    }, this.url);
    log(`created ${this.name} and seeded ${count.toLocaleString("en")} links in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }

  /** Back to zero clicks between scenarios. */
  async reset(): Promise<void> {
    await this.admin(async (c) => {
      await c.query("TRUNCATE clicks, click_daily, click_breakdown, click_breakdown_month, rate_events");
      await c.query("UPDATE links SET click_count = 0 WHERE click_count <> 0");
    }, this.url);
  }

  async totals(linkId?: string): Promise<ClickTotals> {
    return this.admin(async (c) => {
      const a = await c.query<{ n: string }>("SELECT COALESCE(SUM(click_count), 0) AS n FROM links");
      const b = await c.query<{ n: string }>("SELECT COUNT(*) AS n FROM clicks");
      const l = await c.query<{ alias: string; click_count: string; max_clicks: string }>(
        "SELECT alias, click_count, max_clicks FROM links WHERE domain = '' AND alias = ANY($1)",
        [LIMITED_ALIASES],
      );
      const d = linkId === undefined ? [] : (await c.query<{ d: string; n: string }>(DESTINATIONS_SQL, [linkId])).rows;
      const t = await c.query<{ n: string }>("SELECT COUNT(*) AS n FROM tracked_clicks");
      return {
        trackedRows: Number(t.rows[0]?.n ?? 0),
        destinations: byDestination(d),
        clickCount: Number(a.rows[0]?.n ?? 0),
        clickRows: Number(b.rows[0]?.n ?? 0),
        limited: l.rows.map((r) => ({ alias: r.alias, count: Number(r.click_count), max: Number(r.max_clicks) })),
      };
    }, this.url);
  }

  async drop(): Promise<void> {
    await this.admin((c) => c.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`));
  }
}
