// Per-account caps (links, domains, webhooks, API keys, collaborators) kept exact under concurrency on both
// engines: the count and the write share one transaction that first holds the account's lock.
import type { Transaction } from "kysely";
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

  /** Runs `write` in a transaction holding the account's lock, after `cap.count` found room; else throws `cap.refuse()`. */
  add<T>(ownerId: string, cap: Cap, write: (trx: Trx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await this.hold(trx, ownerId);
      if ((await cap.count(trx)) >= cap.limit) throw cap.refuse();
      return write(trx);
    });
  }
}
