// Opens the database named by the config (SQLite in WAL mode, or PostgreSQL) behind one Kysely type.
import { EventEmitter } from "node:events";
import { dirname } from "node:path";
import { makePrivateDir, makePrivateFile } from "../shared/private-files.js";
import SQLite from "better-sqlite3";
import pg from "pg";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect as KyselyDialect,
  Kysely,
  type Logger as QueryLogger,
  PostgresDialect,
  type PostgresPool,
  SqliteAdapter,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely";
import type { Logger } from "pino";
import type { DatabaseConfig } from "../config.js";
import type { Database } from "./schema.js";
import { cachingStatements } from "./sqlite-statement-cache.js";
import { markConnectionFailure } from "./unavailable.js";
import { registerPool } from "./pg-copy.js";
import { waitForPostgres } from "./wait-postgres.js";

export type Dialect = "sqlite" | "postgres";
export type Db = Kysely<Database>;

/** Cross-instance change notifications: LISTEN/NOTIFY on PostgreSQL, in-process on SQLite. */
export interface ChangeFeed {
  /**
   * `stamped`: on PostgreSQL the payload arrives with " <snapshot>" appended, a snapshot taken after the
   * change committed (storage/pg-snapshot.ts); in-process feeds deliver at once and never stamp.
   */
  publish(channel: string, payload: string, stamped?: boolean): Promise<void>;
  subscribe(channel: string, fn: (payload: string) => void): void;
  /** `fn` runs after notifications may have been missed (the listener reconnected): reload what is kept from the database. */
  onResync(fn: () => void): void;
  /** Resolves once the channels subscribed so far are listened to (a question published after it hears its answers). */
  listened(): Promise<void>;
  /** Whether other processes hear what is published (PostgreSQL; SQLite with WORKERS=N), not this one alone. */
  readonly shared?: boolean;
}

export interface Storage {
  db: Db;
  dialect: Dialect;
  feed: ChangeFeed;
  /** Raw better-sqlite3 handle (SQLite only), for the few synchronous hot-path statements. */
  sqlite: SQLite.Database | null;
  /** The SQLite file (null for PostgreSQL and for ":memory:"), for a second connection in a worker. */
  sqliteFile: string | null;
  /** PostgreSQL: the pool's connections now (metrics); null on SQLite. */
  poolStats: (() => PoolStats) | null;
  /** PostgreSQL: a named prepared statement through the pool (each connection parses and plans it once); hot paths only. */
  prepared?: PreparedQuery | null;
  close(): Promise<void>;
}

export type PreparedQuery = <R>(name: string, text: string, values: unknown[]) => Promise<R[]>;

export interface PoolStats {
  /** Connections open, idle among them, queries waiting for one, and the most the pool opens. */
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

// int8 (counts, epoch-ms times) as JS numbers: all our values are below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

class LocalFeed implements ChangeFeed {
  readonly shared = false;
  private readonly emitter = new EventEmitter();
  async publish(channel: string, payload: string): Promise<void> {
    this.emitter.emit(channel, payload);
  }
  subscribe(channel: string, fn: (payload: string) => void): void {
    this.emitter.on(channel, fn);
  }
  /** In-process: nothing is ever missed. */
  onResync(): void {}
  async listened(): Promise<void> {}
}

const CHANNEL_RE = /^[a-z_]{1,40}$/;

/** Waits between attempts to get the LISTEN connection back: from the first to the last, doubling. */
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 2_000;

class PostgresFeed implements ChangeFeed {
  readonly shared = true;
  private client: pg.Client | null = null;
  private readonly local = new EventEmitter();
  private readonly channels = new Set<string>();
  private readonly resyncs: (() => void)[] = [];
  /** The LISTEN statements subscribe() sends, chained. */
  private listening: Promise<unknown> = Promise.resolve();
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly db: Db,
    private readonly log: Logger | undefined,
  ) {}

  /** The first connection: a failure here fails the start. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** A connection that LISTENs on every channel subscribed so far; it becomes the listener once it does. */
  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, keepAlive: true });
    client.on("notification", (msg) => {
      if (msg.payload !== undefined) this.local.emit(msg.channel, msg.payload);
    });
    // A server stopped or restarted, the connection killed: "error" and/or "end" (one is enough).
    const gone = () => this.lost(client);
    client.on("error", gone);
    client.on("end", gone);
    try {
      await client.connect();
      for (const ch of this.channels) await client.query(`LISTEN ${ch}`);
    } catch (err) {
      void client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
  }

  private lost(client: pg.Client): void {
    // A failed attempt's client, or one already replaced.
    if (this.client !== client) return;
    this.client = null;
    if (this.closed) return;
    this.log?.warn("change feed: the LISTEN connection to PostgreSQL is lost; reconnecting");
    this.reconnect(RECONNECT_FIRST_MS);
  }

  private reconnect(delay: number): void {
    if (this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().then(
        () => {
          if (this.closed) return;
          // Notifications sent meanwhile are lost: whoever keeps copies reloads them.
          this.log?.info("change feed: listening again; cached links and lists are reloaded");
          for (const fn of this.resyncs) {
            try {
              fn();
            } catch (err) {
              this.log?.error({ err }, "change feed: a reload after reconnecting failed");
            }
          }
        },
        () => this.reconnect(Math.min(delay * 2, RECONNECT_MAX_MS)),
      );
    }, delay);
    this.retry.unref();
  }

  async publish(channel: string, payload: string, stamped = false): Promise<void> {
    if (stamped) await sql`SELECT pg_notify(${channel}, ${payload} || ' ' || pg_current_snapshot()::text)`.execute(this.db);
    else await sql`SELECT pg_notify(${channel}, ${payload})`.execute(this.db);
  }

  subscribe(channel: string, fn: (payload: string) => void): void {
    if (!CHANNEL_RE.test(channel)) throw new Error(`bad channel name ${channel}`);
    this.local.on(channel, fn);
    if (!this.channels.has(channel)) {
      this.channels.add(channel);
      const client = this.client;
      // One query at a time on the listener's client (pg 9 will refuse overlapping ones). A failure here
      // is covered by connect(): a reconnect LISTENs on every known channel.
      if (client) this.listening = this.listening.then(() => client.query(`LISTEN ${channel}`)).catch(() => undefined);
    }
  }

  onResync(fn: () => void): void {
    this.resyncs.push(fn);
  }

  async listened(): Promise<void> {
    await this.listening;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    await this.listening;
    await this.client?.end().catch(() => undefined);
  }
}

/**
 * Transactions take the write lock when they begin: the click writer runs on a second connection (a
 * worker thread), and a deferred transaction that read first could not upgrade after its commit.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(private readonly handle: SQLite.Database) {
    super({ database: cachingStatements(handle) });
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }

  /** SQLite rolls a transaction back itself on some errors (a full disk, an I/O error): a second rollback would hide the first error. */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.handle.inTransaction) await super.rollbackTransaction(connection);
  }
}

function sqliteDialect(database: SQLite.Database): KyselyDialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ImmediateSqliteDriver(database),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

/** Opens a SQLite file with the pragmas every connection of ours uses. */
export function openSqliteFile(file: string): SQLite.Database {
  const handle = new SQLite(file);
  handle.pragma("journal_mode = WAL");
  handle.pragma("synchronous = NORMAL");
  handle.pragma("foreign_keys = ON");
  handle.pragma("busy_timeout = 5000");
  // Checkpoint every ~16 MB of WAL instead of ~4 MB: pages the click writer rewrites often (roll-ups,
  // counts, index leaves) are copied back once instead of several times (about 7% of its CPU).
  handle.pragma("wal_autocheckpoint = 4000");
  return handle;
}

/** A wait for a connection past this (the server unreachable, or every connection busy that long) fails the query. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The pool as Kysely uses it, marking what fails for want of a connection (isDatabaseUnavailable):
 * a failure to connect, and a query whose connection is gone. pg drops a broken connection when it is
 * released, and connects anew on the next query: nothing to restart after an outage.
 */
function markingPool(pool: pg.Pool): PostgresPool & { connect(): Promise<pg.PoolClient> } {
  const wrapped = new WeakSet<pg.PoolClient>();
  return {
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw markConnectionFailure(err, true);
      }
      if (!wrapped.has(client)) {
        wrapped.add(client);
        // pg emits "error" on a connection lost while checked out (the pool listens only while it is
        // idle): unheard, it would end the process. The query in flight gets the error anyway.
        client.on("error", () => undefined);
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        client.query = ((...args: unknown[]) => {
          const r = query(...args);
          return r instanceof Promise ? r.catch((err: unknown) => Promise.reject(markConnectionFailure(err, false))) : r;
        }) as typeof client.query;
      }
      return client;
    },
    end: () => pool.end(),
  };
}

/** A pooled Kysely on PostgreSQL (the service's pool, or a small one for the click writer thread). */
export function openPostgresDb(url: string, max: number): Db {
  return openPostgresPool(url, max).db;
}

function openPostgresPool(url: string, max: number): { db: Db; stats: () => PoolStats; prepared: PreparedQuery } {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
  // An idle connection the server closed (a restart): pg drops it from the pool.
  pool.on("error", () => undefined);
  const stats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max });
  const prepared: PreparedQuery = async <R>(name: string, text: string, values: unknown[]) => {
    try {
      return (await pool.query({ name, text, values })).rows as R[];
    } catch (err) {
      // pool.query connects first: a failure to connect carries `syscall` or pg's own message (marked).
      throw markConnectionFailure(err, false);
    }
  };
  const marking = markingPool(pool);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: marking }) });
  registerPool(db, marking);
  return { db, stats, prepared };
}

/**
 * `log`: where the change feed says it lost and got back its LISTEN connection (PostgreSQL).
 * `sqliteQueries`: Kysely's log hook on SQLite (tracing: a span per query); PostgreSQL's queries are
 * traced by pg's instrumentation.
 */
export async function openStorage(cfg: DatabaseConfig, log?: Logger, sqliteQueries?: QueryLogger): Promise<Storage> {
  if (cfg.kind === "sqlite") {
    if (cfg.file !== ":memory:") {
      // The database holds password hashes and the links of every account: the service's user only.
      makePrivateDir(dirname(cfg.file));
      makePrivateFile(cfg.file);
      for (const side of ["-wal", "-shm"]) makePrivateFile(cfg.file + side, false);
    }
    const handle = openSqliteFile(cfg.file);
    const db = new Kysely<Database>({ dialect: sqliteDialect(handle), ...(sqliteQueries ? { log: sqliteQueries } : {}) });
    return {
      db,
      dialect: "sqlite",
      feed: new LocalFeed(),
      sqlite: handle,
      sqliteFile: cfg.file === ":memory:" ? null : cfg.file,
      poolStats: null,
      close: async () => {
        await db.destroy();
      },
    };
  }
  const { db, stats, prepared } = openPostgresPool(cfg.url, 10);
  try {
    await waitForPostgres(db as Kysely<unknown>, cfg.url, cfg.waitMs ?? 0, log);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const feed = new PostgresFeed(cfg.url, db, log);
  await feed.start();
  return {
    db,
    dialect: "postgres",
    feed,
    sqlite: null,
    sqliteFile: null,
    poolStats: stats,
    prepared,
    close: async () => {
      await feed.close();
      await db.destroy();
    },
  };
}
