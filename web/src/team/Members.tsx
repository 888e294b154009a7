// The team's members (each with their role: the owner, or an admin for those below it, changes it with a select and
// removes them; on Enterprise each with their two-factor state) and the teams the user belongs to, with the user's
// role in each (leave one; an admin manages its members; one whose two-factor policy refuses the user says how to get in).
import { useState } from "react";
import { type AssignableRole, type TeamRole, ROLE_LABELS, canRole, mayChangeRole } from "@contract/tables";
import { RoleBadge, givableRoles } from "./Invitations";

import { teamApi } from "./team-api";
import type { Member, Membership } from "@contract/teams";
import { A, Alert, ConfirmDialog, EmptyState, errorMessage, formatDate } from "../shared/ui";
import { useConfirmed } from "./confirmed";

/** `showTwoFactor`: each member's two-factor state (Enterprise, where the team policy can ask for it). */
export function MembersSection({
  members,
  manager,
  rolesEnabled,
  owner,
  onChange,
  onNotice,
  showTwoFactor = false,
}: {
  members: Member[];
  /** The user's role in the team shown (owner, or admin of a team it administers). */
  manager: TeamRole;
  rolesEnabled: boolean;
  owner?: string;
  onChange: () => Promise<void>;
  onNotice: (s: string | null) => void;
  showTwoFactor?: boolean;
}) {
  const remove = useConfirmed<Member>(
    async (m) => (await teamApi.removeMember(m.user_id, owner), `${m.email} was removed: their access to the team's links ended.`),
    onChange,
    onNotice,
  );

  return (
    <section className="card section" data-testid="section-members" aria-labelledby="h-members">
      <h2 id="h-members">{owner ? "Members of the team" : "Members of your team"}</h2>
      {members.length === 0 ? (
        <p className="placeholder" data-testid="members-empty">
          Nobody has joined your team yet.
        </p>
      ) : (
        <ul className="team-list">
          {members.map((m) => (
            <li key={m.user_id} className="team-item" data-testid="member-row" data-email={m.email}>
              <div className="grow">
                <strong className="truncate" title={m.name || m.email}>
                  {m.name || m.email}
                </strong>
                <p className="link-meta">
                  {m.name ? <span>{m.email}</span> : null}
                  <RoleBadge role={m.role} testId="member-role" />
                  <span>Joined {formatDate(m.joined_at)}</span>
                  {showTwoFactor ? (
                    <span className={`badge ${m.two_factor ? "badge-ok" : "badge-muted"}`} data-testid="member-2fa">
                      {m.two_factor ? "Two-factor on" : "No two-factor sign-in"}
                    </span>
                  ) : null}
                </p>
              </div>
              <div className="link-actions">
                <RoleSelect member={m} manager={manager} rolesEnabled={rolesEnabled} owner={owner} onChange={onChange} onNotice={onNotice} />
                {mayChangeRole(manager, m.role, null) ? (
                  <button type="button" className="btn btn-danger-ghost btn-sm" onClick={() => remove.ask(m)} data-testid="member-remove">
                    Remove
                  </button>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog {...remove.dialog} title="Remove this member?" confirmLabel="Remove member">
        <p>
          <strong>{remove.target?.email}</strong> will lose access to the team's links at once. Their edits stay.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** A member's role as a select, for a manager who may change it (ranked above it); nothing otherwise (the badge says it). */
function RoleSelect({
  member: m,
  manager,
  rolesEnabled,
  owner,
  onChange,
  onNotice,
}: {
  member: Member;
  manager: TeamRole;
  rolesEnabled: boolean;
  owner?: string;
  onChange: () => Promise<void>;
  onNotice: (s: string | null) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const roles = givableRoles(manager, m.role, rolesEnabled);
  if (roles.length < 2 || !mayChangeRole(manager, m.role, null)) return null;
  async function change(role: AssignableRole) {
    setBusy(true);
    setError(null);
    try {
      await teamApi.setRole(m.user_id, role, owner);
      onNotice(`${m.email} is now ${ROLE_LABELS[role].toLowerCase()}: it applies from their next action.`);
      await onChange();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <span className="role-select">
      <label className="visually-hidden" htmlFor={`role-${m.user_id}`}>
        Role of {m.email}
      </label>
      <select
        id={`role-${m.user_id}`}
        data-testid="member-role-select"
        value={m.role}
        disabled={busy}
        onChange={(e) => void change(e.target.value as AssignableRole)}
      >
        {roles.map((r) => (
          <option key={r} value={r}>
            {ROLE_LABELS[r]}
          </option>
        ))}
      </select>
      {error ? (
        <span className="text-error small" role="alert">
          {error}
        </span>
      ) : null}
    </span>
  );
}

/** A team's pages the user may open by its role there (docs/roles.md): its links, members, domains and webhooks. */
function MembershipActions({ m }: { m: Membership }) {
  if (!m.active || m.requires_2fa) return null;
  const to = (page: string) => `/app/${page}/${encodeURIComponent(m.owner_id)}`;
  const pages = [
    { page: "shared", label: "View links", testId: "membership-links", show: true },
    { page: "team", label: "Manage members", testId: "membership-manage", show: canRole(m.role, "members.manage") },
    { page: "domains", label: "Domains", testId: "membership-domains", show: canRole(m.role, "domains.manage") },
    { page: "webhooks", label: "Webhooks", testId: "membership-webhooks", show: canRole(m.role, "webhooks.manage") },
  ];
  return (
    <>
      {pages
        .filter((p) => p.show)
        .map((p) => (
          <A key={p.page} to={to(p.page)} className="btn btn-secondary btn-sm" testId={p.testId}>
            {p.label}
          </A>
        ))}
    </>
  );
}

export function MembershipsSection({
  memberships,
  onChange,
  onNotice,
}: {
  memberships: Membership[];
  onChange: () => Promise<void>;
  onNotice: (s: string | null) => void;
}) {
  const leave = useConfirmed<Membership>(async (m) => (await teamApi.leaveTeam(m.owner_id), `You left ${m.owner_email}'s team.`), onChange, onNotice);

  return (
    <section className="card section" data-testid="section-memberships" aria-labelledby="h-memberships">
      <h2 id="h-memberships">Teams you belong to</h2>
      {memberships.length === 0 ? (
        <EmptyState title="You are not in anyone's team" testId="memberships-empty" icon="team">
          <p className="muted">When someone invites you, their links appear here.</p>
        </EmptyState>
      ) : (
        <ul className="team-list">
          {memberships.map((m) => (
            <li key={m.owner_id} className="team-item" data-testid="membership-row" data-email={m.owner_email}>
              <div className="grow">
                <strong className="truncate" title={m.owner_email}>
                  {m.owner_name ? `${m.owner_name} (${m.owner_email})` : m.owner_email}
                </strong>
                <p className="link-meta">
                  <RoleBadge role={m.role} testId="membership-role" />
                  <span>Joined {formatDate(m.joined_at)}</span>
                  {m.active ? null : (
                    <span className="badge badge-muted" data-testid="membership-suspended">
                      Access suspended: the owner's account or plan does not allow sharing now
                    </span>
                  )}
                </p>
                {m.active && m.requires_2fa ? (
                  <div className="membership-2fa" data-testid="membership-requires-2fa">
                    <Alert kind="warning">
                      This team requires two-factor sign-in: its links stay closed to you until you turn it on.{" "}
                      <A to="/app/security" testId="membership-setup-2fa">
                        Set up two-factor sign-in
                      </A>
                    </Alert>
                  </div>
                ) : null}
              </div>
              <div className="link-actions">
                <MembershipActions m={m} />
                <button type="button" className="btn btn-danger-ghost btn-sm" onClick={() => leave.ask(m)} data-testid="membership-leave">
                  Leave
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog {...leave.dialog} title="Leave this team?" confirmLabel="Leave team">
        <p>
          You will lose access to <strong>{leave.target?.owner_email}</strong>'s links at once. Only a new invitation brings it back.
        </p>
      </ConfirmDialog>
    </section>
  );
}
