// Team page: invite collaborators (with a role on Enterprise), follow pending invitations (sent or not confirmed, resend
// with its countdown, cancel), change members' roles and remove them, the Enterprise owner's two-factor policy, and the
// teams I belong to, kept apart. /app/team/<owner_id>: the same for an admin, on the team it administers (docs/roles.md).
import { can } from "../shared/plan-gate";
import { accountApi } from "../shared/account-api";
import { useCallback, useEffect, useState } from "react";
import { useParams } from "react-router";
import { teamApi } from "./team-api";
import type { Invitation, Team } from "@contract/teams";
import { useSession } from "../shared/session";
import { ListError } from "../shared/lists";
import { A, Alert, Spinner, errorMessage, useTitle } from "../shared/ui";
import { InviteSection, InvitationsSection } from "./Invitations";
import { MembersSection, MembershipsSection } from "./Members";
import { TwoFactorPolicySection } from "./TwoFactorPolicy";
import { roleCan } from "../shared/team-role";
import "./team.css";

export function TeamPage() {
  useTitle("Team");
  const { user } = useSession();
  // A team the user administers, or undefined for its own.
  const owner = useParams().ownerId;
  const [team, setTeam] = useState<Team | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      setTeam(await teamApi.team(owner));
    } catch (e) {
      setError(errorMessage(e));
    }
  }, [owner]);

  useEffect(() => {
    void load();
  }, [load]);

  if (!user) return <Spinner />;
  if (owner) return <ManagedTeam team={team} error={error} notice={notice} load={load} setNotice={setNotice} owner={owner} />;
  const canInvite = can(user.plan, "team_invite");
  // Offered on Enterprise only (the server refuses it below with plan_required): below, nothing to switch.
  const hasPolicy = can(user.plan, "team_2fa_policy");
  const rolesEnabled = can(user.plan, "team_roles");
  // The audit log: the owner's on Enterprise (roleCan: the role table's audit.view).
  const auditLog = can(user.plan, "team_audit") && roleCan("owner").can("audit.view");
  const memberFirst = !!team && team.memberships.length > 0 && team.members.length === 0 && team.invitations.length === 0;
  return (
    <div className="team-page narrow">
      <div className="page-head">
        <h1>Team</h1>
        {auditLog ? <AuditLink to="/app/team/audit" /> : null}
      </div>
      {rolesEnabled ? (
        <p className="muted" data-testid="team-roles-intro">
          Each member's role decides what they may do with your links: admins also delete links and manage members, members view and edit them, viewers only see
          them and their statistics. The links stay yours; their own plan does not change.
        </p>
      ) : (
        <p className="muted">
          Collaborators view and edit your links (destinations and limits included) and see their statistics. The links stay yours: only you can delete them.
          Their own plan does not change.
        </p>
      )}
      <TeamState notice={notice} error={error} loading={!team} what="your team" load={load} />
      {team ? (
        <>
          {/* A member of someone's team comes for that team first: memberships lead. */}
          {memberFirst ? <MembershipsSection memberships={team.memberships} onChange={load} onNotice={setNotice} /> : null}
          <InviteSection team={team} canInvite={canInvite} rolesEnabled={rolesEnabled} onInvited={(i) => invited(i, setNotice, load)} />
          <InvitationsSection invitations={team.invitations} manager="owner" onChange={load} onNotice={setNotice} />
          <MembersSection members={team.members} manager="owner" rolesEnabled={rolesEnabled} onChange={load} onNotice={setNotice} showTwoFactor={hasPolicy} />
          {hasPolicy ? <TwoFactorPolicySection members={team.members} /> : null}
          {memberFirst ? null : <MembershipsSection memberships={team.memberships} onChange={load} onNotice={setNotice} />}
        </>
      ) : null}
    </div>
  );
}
/** The way to the team's audit log (owner and admins only). */
function AuditLink({ to }: { to: string }) {
  return (
    <A to={to} className="btn btn-secondary btn-sm" testId="team-audit-link">
      Audit log
    </A>
  );
}

/** The page's notice, load error and spinner. */
function TeamState({
  notice,
  error,
  loading,
  what,
  load,
}: {
  notice: string | null;
  error: string | null;
  loading: boolean;
  what: string;
  load: () => Promise<void>;
}) {
  return (
    <>
      {notice ? (
        <Alert kind="success" testId="team-notice">
          {notice}
        </Alert>
      ) : null}
      {error ? <ListError what={what} error={error} onRetry={() => void load()} testId="team-error" /> : null}
      {loading && !error ? <Spinner label={`Loading ${what}…`} /> : null}
    </>
  );
}

/** After an invitation: its notice (when the email went), and the lists again. */
function invited(i: Invitation, setNotice: (s: string | null) => void, load: () => Promise<void>): void {
  setNotice(i.send_confirmed ? `Invitation sent to ${i.email}.` : null);
  void load();
}

/** An administered team (admin role): its invitations and members, as far as an admin's rank reaches. */
function ManagedTeam({
  team,
  error,
  notice,
  load,
  setNotice,
  owner,
}: {
  team: Team | null;
  error: string | null;
  notice: string | null;
  load: () => Promise<void>;
  setNotice: (s: string | null) => void;
  owner: string;
}) {
  const who = team?.memberships.find((m) => m.owner_id === owner);
  return (
    <div className="team-page narrow">
      <p className="breadcrumb">
        <A to="/app/team">← Team</A>
      </p>
      <div className="page-head">
        <h1 data-testid="managed-team-title">{who ? `Team of ${who.owner_name || who.owner_email}` : "Team"}</h1>
        {team && who && roleCan(who.role).can("audit.view") ? <AuditLink to={`/app/team/${owner}/audit`} /> : null}
      </div>
      <p className="muted">As an admin you invite members and viewers, change their roles and remove them; admins and the owner are the owner's to change.</p>
      <TeamState notice={notice} error={error} loading={!team} what="this team" load={load} />
      {team ? (
        <>
          <InviteSection team={team} canInvite rolesEnabled owner={owner} onInvited={(i) => invited(i, setNotice, load)} />
          <InvitationsSection invitations={team.invitations} manager={team.role} owner={owner} onChange={load} onNotice={setNotice} />
          <MembersSection members={team.members} manager={team.role} rolesEnabled owner={owner} onChange={load} onNotice={setNotice} />
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
