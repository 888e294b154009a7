// Per-account caps (links, domains, webhooks, API keys, collaborators) kept exact under concurrency on both
// engines: the count and the write share one transaction that first holds the account's lock. And the lock of an
// address on its host, which a link's alias and a bio page's slug share across their two tables.
import { sql, type Transaction } from "kysely";
import type { Db, Dialect } from "./db.js";
import type { Database } from "./schema.js";

export type Trx = Transaction<Database>;

export interface Cap {
  /** Most rows the account may hold. */
  limit: number;
  /** What the account holds now, read inside the locked transaction. */
  count: (trx: Trx) => Promise<number>;
  /** The error thrown when the account is at its limit. */
  refuse: () => Error;
}

/** Counts rows of a query builder's result (`select count(*) as n`), as a number on both engines. */
export async function countOf(q: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }): Promise<number> {
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** An address on its host: a link's alias or a bio page's slug, `domain` as links.domain spells it ("" for the main host). */
export interface HostName {
  domain: string;
  name: string;
}

/** The first key of the addresses' advisory locks (PostgreSQL's two-key space, apart from the one-key locks of rate-events.ts). */
const HOST_NAME_LOCKS = 0x6e616d65; // "name"

export class OwnerCaps {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Holds the account's lock until `trx` ends. PostgreSQL: the account's row lock (SELECT ... FOR UPDATE),
   * so adds by one account queue here on every instance while other accounts never wait. SQLite: nothing
   * more to take, the transaction began IMMEDIATE and holds the database's write lock (storage/db.ts),
   * which also keeps out another process on the same file (the CLI).
   */
  async hold(trx: Trx, ownerId: string): Promise<void> {
    if (this.dialect === "postgres") await trx.selectFrom("users").select("id").where("id", "=", ownerId).forUpdate().execute();
  }

  /**
   * Holds addresses until `trx` ends. A link's alias and a bio page's slug never share an address on a host, but
   * live in two tables whose unique indexes know nothing of each other: each writer writes its row, takes the
   * address's lock, then looks for the other kind (links/alias-reservations.ts, bio/bio-pages.ts). Of two writers
   * of one address at once the second waits here until the first commits, and its look then sees the first's row.
   * PostgreSQL: an advisory lock per host and name (a hash: two names may share one, which only makes one wait),
   * taken in one order. SQLite: nothing more to take, the transaction began IMMEDIATE and holds the write lock.
   */
  async holdNames(trx: Trx, keys: readonly HostName[]): Promise<void> {
    if (this.dialect !== "postgres" || keys.length === 0) return;
    const texts = [...new Set(keys.map((k) => `${k.domain}/${k.name}`))];
    await sql`select pg_advisory_xact_lock(${sql.lit(HOST_NAME_LOCKS)}, h) from (select distinct hashtext(t) as h from unnest(${texts}::text[]) as u(t) order by h) as locks`.execute(
      trx,
    );
  }

  /** Runs `write` in a transaction holding the account's lock, after `cap.count` found room; else throws `cap.refuse()`. */
  add<T>(ownerId: string, cap: Cap, write: (trx: Trx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await this.hold(trx, ownerId);
      if ((await cap.count(trx)) >= cap.limit) throw cap.refuse();
      return write(trx);
    });
  }
}
