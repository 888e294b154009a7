// Whose links the dashboard shows: the user's own, or a team owner's for a member. The navigation's switcher
// moves between /app and /app/shared/<owner>; the memberships come from GET /api/team.
import { accountApi } from "./account-api";
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { useLocation, useParams } from "react-router";

import type { Membership } from "@contract/teams";
import { ROLE_LABELS, canRole } from "@contract/tables";
import { useSession } from "./session";
import { A } from "./ui";

interface TeamViewState {
  /** The user's memberships (active ones first), [] for none; null while loading. */
  memberships: Membership[] | null;
  /** The team owner whose links are shown, or null for the user's own. */
  ownerId: string | null;
  reload: () => Promise<void>;
}

const TeamViewContext = createContext<TeamViewState>({ memberships: [], ownerId: null, reload: async () => undefined });

export function ownerLabel(m: Pick<Membership, "owner_name" | "owner_email">): string {
  return `${m.owner_name || m.owner_email}'s links`;
}

function sharedOwner(pathname: string): string | null {
  const m = /^\/app\/shared\/([^/]+)/.exec(pathname);
  return m ? decodeURIComponent(m[1] as string) : null;
}

/** The view last chosen (kept per tab), so "New link" knows where the user came from. */
const LAST_VIEW = "snip.teamView";

export function TeamViewProvider({ children }: { children: ReactNode }) {
  const { user } = useSession();
  const { pathname } = useLocation();
  const [memberships, setMemberships] = useState<Membership[] | null>(null);
  const fromPath = sharedOwner(pathname);
  const [ownerId, setOwnerId] = useState<string | null>(() => sessionStorage.getItem(LAST_VIEW));

  const reload = useCallback(async () => {
    if (!user) return setMemberships([]);
    const team = await accountApi.team().catch(() => null);
    setMemberships(team ? [...team.memberships].sort((a, b) => Number(b.active) - Number(a.active)) : []);
  }, [user]);

  useEffect(() => {
    void reload();
  }, [reload]);

  // A shared list just opened (an accepted invitation) whose owner is not known yet: the memberships changed.
  useEffect(() => {
    if (fromPath && memberships && !memberships.some((m) => m.owner_id === fromPath)) void reload();
  }, [fromPath, memberships, reload]);

  // The list on screen decides the view; other pages keep the last one.
  useEffect(() => {
    if (fromPath !== null) setOwnerId(fromPath);
    else if (pathname === "/app") setOwnerId(null);
  }, [fromPath, pathname]);
  useEffect(() => {
    if (ownerId) sessionStorage.setItem(LAST_VIEW, ownerId);
    else sessionStorage.removeItem(LAST_VIEW);
  }, [ownerId]);

  const known = ownerId && memberships?.some((m) => m.owner_id === ownerId) ? ownerId : null;
  const value = useMemo(() => ({ memberships, ownerId: known, reload }), [memberships, known, reload]);
  return <TeamViewContext.Provider value={value}>{children}</TeamViewContext.Provider>;
}

export function useTeamView(): TeamViewState {
  return useContext(TeamViewContext);
}

/**
 * The team owner a page manages (`/app/domains/<owner id>`, `/app/webhooks/<owner id>`: an admin's, docs/roles.md)
 * and its membership; a null owner for the user's own.
 */
export function useManagedTeam(): { owner: string | null; team: Membership | null } {
  const { ownerId } = useParams();
  const { memberships } = useTeamView();
  const owner = ownerId ?? null;
  return { owner, team: owner ? (memberships?.find((m) => m.owner_id === owner) ?? null) : null };
}

/** A managed team's page head: back to the Team page, and whose things these are. */
export function ManagedTeamHead({ team, title }: { team: Membership | null; title: string }) {
  return (
    <>
      <p className="breadcrumb">
        <A to="/app/team">← Team</A>
      </p>
      <h1 data-testid="managed-team-title">{team ? `${title} of ${team.owner_name || team.owner_email}` : title}</h1>
    </>
  );
}

/** The team shown (null for the user's own links), and whether the user's role there creates links (links.create). */
export function useCreateTeam(): { team: Membership | null; inTeam: boolean } {
  const { memberships, ownerId } = useTeamView();
  const team = memberships?.find((x) => x.owner_id === ownerId && x.active) ?? null;
  return { team, inTeam: !!team && canRole(team.role, "links.create") };
}

/** On "New link" while a team's links are shown: the link is created in the owner's account when the role allows it, else the user's own. */
export function SharedCreateNote() {
  const { team, inTeam } = useCreateTeam();
  if (!team) return null;
  return (
    <div className="alert alert-info" role="status" data-testid="shared-create-note">
      {inTeam
        ? `You are working in ${ownerLabel(team)}. The link you create here is the owner's: it counts against their plan and the team sees it.`
        : `You are viewing ${ownerLabel(team)}. A link you create here is yours: your role there (${ROLE_LABELS[team.role]}) does not create links.`}
    </div>
  );
}
