// What the signed-in user may do with an account's links, from the role table the server enforces
// (@contract/tables: ROLE_ACTIONS, docs/roles.md): everything on its own, else as its role in that team says
// (GET /api/team's memberships); nothing while the role is not known yet. Pages hide or disable what it refuses.
import { type TeamAction, type TeamRole, canRole } from "@contract/tables";
import { useSession } from "./session";
import { useTeamView } from "./team-view";

export interface RoleCan {
  /** null while unknown (memberships loading, or not a member). */
  role: TeamRole | null;
  can(action: TeamAction): boolean;
}

export function roleCan(role: TeamRole | null): RoleCan {
  return { role, can: (action) => role !== null && canRole(role, action) };
}

/** The user's role for the links of `ownerId` (the user's own when absent or null). */
export function useTeamRole(ownerId: string | null | undefined): RoleCan {
  const { user } = useSession();
  const { memberships } = useTeamView();
  if (!user) return roleCan(null);
  if (!ownerId || ownerId === user.id) return roleCan("owner");
  return roleCan(memberships?.find((m) => m.owner_id === ownerId)?.role ?? null);
}
