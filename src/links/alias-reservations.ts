// The one check on claiming an alias: an alias a link gave up (deleted, renamed, its owner's account
// deleted) is reserved for its last owner on that domain. The releases themselves are recorded by
// triggers on links (migration 008), whatever deletes or renames the link.
import type { Transaction } from "kysely";
import type { Database } from "../storage/schema.js";
import type { OwnerCaps } from "../storage/owner-caps.js";

/** Why a claim was refused: someone else's (or an ownerless) reservation, or any reservation for a generated alias. */
export class AliasReserved extends Error {
  constructor() {
    super("alias reserved");
    this.name = "AliasReserved";
  }
}

/**
 * Called in the transaction that has just written a link at (domain, alias) for `ownerId` (null: signed
 * out), after the write: the write holds the alias's key in the links index, so a creator racing with a
 * deletion or another claim of the same alias waits there and then sees the committed reservation (a
 * read before the write could miss a release committed in between). Throws AliasReserved to roll the
 * write back; the owner's own reservation is consumed (the link holds the alias again). A generated
 * alias never lands on any reservation, the caller's own included: an address its owner gave up must
 * not come back pointing somewhere else by chance.
 */
export async function claimAlias(
  trx: Transaction<Database>,
  locks: Pick<OwnerCaps, "holdNames">,
  key: { domain: string; alias: string },
  ownerId: string | null,
  generated: boolean,
): Promise<void> {
  // A bio page's slug on the same host holds the address too (docs/bio-pages.md): never an alias beside it. Its
  // table's index does not see the links', so a page written at the same moment is waited for under the address's lock.
  await locks.holdNames(trx, [{ domain: key.domain, name: key.alias }]);
  const page = await trx.selectFrom("bio_pages").select("id").where("domain", "=", key.domain).where("slug", "=", key.alias).executeTakeFirst();
  if (page) throw new AliasReserved();
  const held = await trx.selectFrom("alias_reservations").select("owner_id").where("domain", "=", key.domain).where("alias", "=", key.alias).executeTakeFirst();
  if (!held) return;
  if (generated || ownerId === null || held.owner_id !== ownerId) throw new AliasReserved();
  await trx.deleteFrom("alias_reservations").where("domain", "=", key.domain).where("alias", "=", key.alias).execute();
}
