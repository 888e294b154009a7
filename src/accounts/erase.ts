// Erasing an account inside a transaction: its links locked in the click writer's order, then its row deleted
// (the database cascades), with what the redirect caches hold of it read first.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../storage/db.js";
import type { Database } from "../storage/schema.js";

/** What an account deletion removed that instances cache: its links' addresses and its custom domains. */
export interface ErasedAccount {
  links: Array<{ domain: string; alias: string }>;
  domains: string[];
}

/**
 * PostgreSQL: locks the account's links in id order, the first thing an account's deletion does. The click
 * writer locks the links of a batch in id order and then, through the owner roll-ups' key, the users row; a
 * deletion that took the users row first and its links by cascade closed a circle with it (deadlock, 500).
 */
export async function lockAccountLinks(trx: Kysely<Database>, dialect: Dialect, id: string): Promise<void> {
  if (dialect === "postgres") await sql`SELECT id FROM links WHERE owner_id = ${id} ORDER BY id FOR UPDATE`.execute(trx);
}

/**
 * Deletes the users row (the database cascades to sessions, links with their clicks, keys, team, domains
 * and webhooks) inside `trx`, after reading what the redirect caches hold of it.
 */
export async function eraseAccount(trx: Kysely<Database>, id: string): Promise<ErasedAccount> {
  const links = await trx.selectFrom("links").select(["domain", "alias"]).where("owner_id", "=", id).execute();
  const domains = await trx.selectFrom("domains").select("hostname").where("owner_id", "=", id).execute();
  await trx.deleteFrom("users").where("id", "=", id).execute();
  return { links, domains: domains.map((d) => d.hostname) };
}
