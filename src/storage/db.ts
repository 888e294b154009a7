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
  PostgresDialect,
  SqliteAdapter,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely";
import type { DatabaseConfig } from "../config.js";
import type { Database } from "./schema.js";

export type Dialect = "sqlite" | "postgres";
export type Db = Kysely<Database>;

/** Cross-instance change notifications: LISTEN/NOTIFY on PostgreSQL, in-process on SQLite. */
export interface ChangeFeed {
  publish(channel: string, payload: string): Promise<void>;
  subscribe(channel: string, fn: (payload: string) => void): void;
}

export interface Storage {
  db: Db;
  dialect: Dialect;
  feed: ChangeFeed;
  /** Raw better-sqlite3 handle (SQLite only), for the few synchronous hot-path statements. */
  sqlite: SQLite.Database | null;
  /** The SQLite file (null for PostgreSQL and for ":memory:"), for a second connection in a worker. */
  sqliteFile: string | null;
  close(): Promise<void>;
}

// int8 (counts, epoch-ms times) as JS numbers: all our values are below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

class LocalFeed implements ChangeFeed {
  private readonly emitter = new EventEmitter();
  async publish(channel: string, payload: string): Promise<void> {
    this.emitter.emit(channel, payload);
  }
  subscribe(channel: string, fn: (payload: string) => void): void {
    this.emitter.on(channel, fn);
  }
}

const CHANNEL_RE = /^[a-z_]{1,40}$/;

class PostgresFeed implements ChangeFeed {
  private client: pg.Client | null = null;
  private readonly local = new EventEmitter();
  private readonly channels = new Set<string>();
  /** The LISTEN statements subscribe() sends, chained. */
  private listening: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly db: Db,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (msg) => {
      if (msg.payload !== undefined) this.local.emit(msg.channel, msg.payload);
    });
    client.on("error", () => {
      // Reconnect after a dropped listener connection; lost notifications are covered by cache TTLs.
      this.client = null;
      if (!this.closed) setTimeout(() => void this.start().catch(() => undefined), 1000).unref();
    });
    await client.connect();
    for (const ch of this.channels) await client.query(`LISTEN ${ch}`);
    this.client = client;
  }

  async publish(channel: string, payload: string): Promise<void> {
    await sql`SELECT pg_notify(${channel}, ${payload})`.execute(this.db);
  }

  subscribe(channel: string, fn: (payload: string) => void): void {
    if (!CHANNEL_RE.test(channel)) throw new Error(`bad channel name ${channel}`);
    this.local.on(channel, fn);
    if (!this.channels.has(channel)) {
      this.channels.add(channel);
      const client = this.client;
      // One query at a time on the listener's client (pg 9 will refuse overlapping ones). A failure here
      // is covered by start(): a reconnect LISTENs on every known channel.
      if (client) this.listening = this.listening.then(() => client.query(`LISTEN ${channel}`)).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listening;
    await this.client?.end().catch(() => undefined);
  }
}

/**
 * Transactions take the write lock when they begin: the click writer runs on a second connection (a
 * worker thread), and a deferred transaction that read first could not upgrade after its commit.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

function sqliteDialect(database: SQLite.Database): KyselyDialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ImmediateSqliteDriver({ database }),
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

/** A pooled Kysely on PostgreSQL (the service's pool, or a small one for the click writer thread). */
export function openPostgresDb(url: string, max: number): Db {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => undefined);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export async function openStorage(cfg: DatabaseConfig): Promise<Storage> {
  if (cfg.kind === "sqlite") {
    if (cfg.file !== ":memory:") {
      // The database holds password hashes and the links of every account: the service's user only.
      makePrivateDir(dirname(cfg.file));
      makePrivateFile(cfg.file);
      for (const side of ["-wal", "-shm"]) makePrivateFile(cfg.file + side, false);
    }
    const handle = openSqliteFile(cfg.file);
    const db = new Kysely<Database>({ dialect: sqliteDialect(handle) });
    return {
      db,
      dialect: "sqlite",
      feed: new LocalFeed(),
      sqlite: handle,
      sqliteFile: cfg.file === ":memory:" ? null : cfg.file,
      close: async () => {
        await db.destroy();
      },
    };
  }
  const db = openPostgresDb(cfg.url, 10);
  await sql`select 1`.execute(db);
  const feed = new PostgresFeed(cfg.url, db);
  await feed.start();
  return {
    db,
    dialect: "postgres",
    feed,
    sqlite: null,
    sqliteFile: null,
    close: async () => {
      await feed.close();
      await db.destroy();
    },
  };
}
