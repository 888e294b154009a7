// Team page: invite collaborators, follow pending invitations (sent or not confirmed, resend with its
// countdown, cancel), remove members, the Enterprise owner's two-factor policy, and the teams I belong to, kept apart.
import { can } from "../shared/plan-gate";
import { accountApi } from "../shared/account-api";
import { useCallback, useEffect, useState } from "react";
import type { Team } from "@contract/teams";
import { useSession } from "../shared/session";
import { ListError } from "../shared/lists";
import { A, Alert, Spinner, errorMessage, useTitle } from "../shared/ui";
import { InviteSection, InvitationsSection } from "./Invitations";
import { MembersSection, MembershipsSection } from "./Members";
import { TwoFactorPolicySection } from "./TwoFactorPolicy";
import "./team.css";

export function TeamPage() {
  useTitle("Team");
  const { user } = useSession();
  const [team, setTeam] = useState<Team | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      setTeam(await accountApi.team());
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  if (!user) return <Spinner />;
  const canInvite = can(user.plan, "team_invite");
  // Offered on Enterprise only (the server refuses it below with plan_required): below, nothing to switch.
  const hasPolicy = can(user.plan, "team_2fa_policy");
  const memberFirst = !!team && team.memberships.length > 0 && team.members.length === 0 && team.invitations.length === 0;
  return (
    <div className="team-page narrow">
      <h1>Team</h1>
      <p className="muted">
        Collaborators view and edit your links (destinations and limits included) and see their statistics. The links stay yours: only you can delete them.
        Their own plan does not change.
      </p>
      {notice ? (
        <Alert kind="success" testId="team-notice">
          {notice}
        </Alert>
      ) : null}
      {error ? <ListError what="your team" error={error} onRetry={() => void load()} testId="team-error" /> : null}
      {!team && !error ? <Spinner label="Loading your team…" /> : null}
      {team ? (
        <>
          {/* A member of someone's team comes for that team first: memberships lead. */}
          {memberFirst ? <MembershipsSection memberships={team.memberships} onChange={load} onNotice={setNotice} /> : null}
          <InviteSection
            team={team}
            canInvite={canInvite}
            onInvited={(i) => {
              setNotice(i.send_confirmed ? `Invitation sent to ${i.email}.` : null);
              void load();
            }}
          />
          <InvitationsSection invitations={team.invitations} onChange={load} onNotice={setNotice} />
          <MembersSection members={team.members} onChange={load} onNotice={setNotice} showTwoFactor={hasPolicy} />
          {hasPolicy ? <TwoFactorPolicySection members={team.members} /> : null}
          {memberFirst ? null : <MembershipsSection memberships={team.memberships} onChange={load} onNotice={setNotice} />}
        </>
      ) : null}
    </div>
  );
}
/** The profile's short summary of the team, with a link to the Team page. */
export function TeamSummary() {
  const [team, setTeam] = useState<Team | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    accountApi
      .team()
      .then(setTeam)
      .catch((e: unknown) => setError(errorMessage(e)));
  }, []);
  return (
    <section className="card section" data-testid="section-team" aria-labelledby="h-team">
      <h2 id="h-team">Team</h2>
      {error ? <Alert>Could not load your team: {error}</Alert> : null}
      {!team && !error ? <Spinner label="Loading your team…" /> : null}
      {team ? (
        <dl className="facts" data-testid="team-summary">
          <div>
            <dt>Members</dt>
            <dd>{team.members.length === 0 ? "None" : team.members.map((m) => m.email).join(", ")}</dd>
          </div>
          <div>
            <dt>Pending invitations</dt>
            <dd>{team.invitations.length === 0 ? "None" : team.invitations.map((i) => i.email).join(", ")}</dd>
          </div>
          <div>
            <dt>Teams you belong to</dt>
            <dd>{team.memberships.length === 0 ? "None" : team.memberships.map((m) => m.owner_email + (m.active ? "" : " (suspended)")).join(", ")}</dd>
          </div>
        </dl>
      ) : null}
      <A to="/app/team" className="btn btn-secondary btn-sm" testId="profile-team-link">
        Manage your team
      </A>
    </section>
  );
}
