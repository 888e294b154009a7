// What a provisioned person's state does to the team (docs/scim.md): active, they are a member of the connection
// owner's team with the role their groups give (default member); deactivated or deleted, the membership goes and
// their sessions and API keys end in the same transaction, so their next request on any instance is refused
// (sessions and keys are read from the database on every request; nothing caches them). The owner is never touched.
import type { Transaction } from "kysely";
import type { Database } from "../../storage/schema.js";
import { DEFAULT_ROLE, type AssignableRole } from "../../contract/roles.js";
import { ssoMemberCount } from "../../teams/invitations.js";
import { ScimError } from "./errors.js";
import type { ScimConnection } from "./tokens.js";

type Trx = Transaction<Database>;

/** Groups whose displayName is one of these give that role; the highest wins. */
const ROLE_GROUPS: readonly AssignableRole[] = ["admin", "member", "viewer"];

export function roleOfGroup(displayName: string): AssignableRole | null {
  const key = displayName.trim().toLowerCase();
  return (ROLE_GROUPS as readonly string[]).includes(key) ? (key as AssignableRole) : null;
}

/** The role a provisioned person's groups give. */
export async function roleOf(trx: Trx, scimUserId: string): Promise<AssignableRole> {
  const names = await trx
    .selectFrom("scim_group_members")
    .innerJoin("scim_groups", "scim_groups.id", "scim_group_members.group_id")
    .select("scim_groups.display_key")
    .where("scim_group_members.scim_user_id", "=", scimUserId)
    .execute();
  const roles = new Set(names.map((n) => roleOfGroup(n.display_key)));
  return ROLE_GROUPS.find((r) => roles.has(r)) ?? DEFAULT_ROLE;
}

/** Makes (or keeps) the person a member of the team with the role of their groups; within ENTERPRISE_MEMBERS_MAX. */
export async function grant(trx: Trx, c: ScimConnection, userId: string, role: AssignableRole, max: number, now: number): Promise<void> {
  if (userId === c.ownerId) return;
  const r = await trx.updateTable("team_members").set({ role }).where("owner_id", "=", c.ownerId).where("member_id", "=", userId).executeTakeFirst();
  if (Number(r.numUpdatedRows) > 0) return;
  if ((await ssoMemberCount(trx, c.ownerId)) >= max) {
    throw new ScimError(400, "invalidValue", `The team has reached its ${max} members through single sign-on`);
  }
  await trx.insertInto("team_members").values({ owner_id: c.ownerId, member_id: userId, joined_at: now, joined_by: "sso", role }).execute();
}

/** Ends the person's place in the team: the membership, every session and every live API key. */
export async function deprovision(trx: Trx, c: ScimConnection, userId: string, now: number): Promise<{ sessions: number; keys: number }> {
  if (userId === c.ownerId) return { sessions: 0, keys: 0 };
  await trx.deleteFrom("team_members").where("owner_id", "=", c.ownerId).where("member_id", "=", userId).execute();
  const s = await trx.deleteFrom("sessions").where("user_id", "=", userId).executeTakeFirst();
  const k = await trx.updateTable("api_keys").set({ revoked_at: now }).where("user_id", "=", userId).where("revoked_at", "is", null).executeTakeFirst();
  await trx.deleteFrom("pending_sign_ins").where("user_id", "=", userId).execute();
  return { sessions: Number(s.numDeletedRows), keys: Number(k.numUpdatedRows) };
}

/** A role change of the team's member after a group change (only while they are a member). */
export async function applyRole(trx: Trx, c: ScimConnection, userId: string, role: AssignableRole): Promise<void> {
  if (userId === c.ownerId) return;
  await trx.updateTable("team_members").set({ role }).where("owner_id", "=", c.ownerId).where("member_id", "=", userId).execute();
}
