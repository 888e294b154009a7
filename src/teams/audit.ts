// The team's own audit log (docs/audit.md): the entries whose team is the owner's (admin_audit.team_id: role and folder
// access changes, single sign-on, SCIM). The owner reads it, and an admin through ?owner= (audit.view in the role
// table); members and viewers are refused (forbidden), anyone else learns nothing (not_found); Enterprise only.
import type { Db } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import { requireCapability } from "../accounts/plans.js";
import { managedOwner } from "./access.js";

/** The owner whose team's log `actor` may read, or the refusal. */
export async function auditedTeam(db: Db, actor: UserRow, ownerId: string | undefined): Promise<UserRow> {
  const { owner } = await managedOwner(db, actor, ownerId, "audit.view");
  requireCapability(owner.plan, "team_audit", "The team's audit log");
  return owner;
}
