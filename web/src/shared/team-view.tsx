// Whose links the dashboard shows: the user's own, or a team owner's for a member. The navigation's switcher
// moves between /app and /app/shared/<owner>; the memberships come from GET /api/team.
import { accountApi } from "./account-api";
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { useLocation } from "react-router";

import type { Membership } from "@contract/teams";
import { useSession } from "./session";

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

/** On "New link" while a team's links are shown: new links are the user's own (members edit, never create). */
export function SharedCreateNote() {
  const { memberships, ownerId } = useTeamView();
  const m = memberships?.find((x) => x.owner_id === ownerId);
  if (!m) return null;
  return (
    <div className="alert alert-info" role="status" data-testid="shared-create-note">
      You are viewing {ownerLabel(m)}. A link you create here is yours: team members view and edit the owner's links, and only the owner creates them.
    </div>
  );
}
