// Inviting collaborators (with the role they join as, on Enterprise) and the invitations sent: resend (with its
// countdown) and cancel. `owner`: a team the user administers (docs/roles.md), undefined for its own.
import { teamApi } from "./team-api";
import { useEffect, useState, type FormEvent } from "react";
import { ApiError } from "../shared/api";
import type { Invitation, Team } from "@contract/teams";
import { Alert, ConfirmDialog, Field, errorMessage, formatDate, formatDateTime } from "../shared/ui";
import { PlanGate } from "../shared/plan-gate";
import { useConfirmed } from "./confirmed";
import { useSubmit } from "../shared/submit";
import { ASSIGNABLE_ROLES, type AssignableRole, type TeamRole, DEFAULT_ROLE, ROLE_LABELS, mayChangeRole } from "@contract/tables";

/** A role badge (the dashboard's words for the role table's roles). */
export function RoleBadge({ role, testId }: { role: TeamRole; testId?: string }) {
  return (
    <span className={`badge ${role === "viewer" ? "badge-muted" : "badge-ok"}`} data-testid={testId}>
      {ROLE_LABELS[role]}
    </span>
  );
}

/** The roles `manager` may give (none but member where the owner's plan has no roles). */
export function givableRoles(manager: TeamRole, from: TeamRole, rolesEnabled: boolean): AssignableRole[] {
  const all: readonly AssignableRole[] = rolesEnabled ? ASSIGNABLE_ROLES : [DEFAULT_ROLE];
  return all.filter((r) => r === from || mayChangeRole(manager, from, r));
}

/** Seconds until `iso`, ticking every second (0 once passed). */
function useCountdown(iso: string): number {
  const target = Date.parse(iso);
  const [left, setLeft] = useState(() => Math.max(0, Math.ceil((target - Date.now()) / 1000)));
  useEffect(() => {
    const tick = () => setLeft(Math.max(0, Math.ceil((target - Date.now()) / 1000)));
    tick();
    const t = window.setInterval(tick, 1000);
    return () => window.clearInterval(t);
  }, [target]);
  return left;
}

/** The invitation's role, when there is a choice (Enterprise). */
function RoleField({
  roles,
  role,
  disabled,
  onRole,
}: {
  roles: AssignableRole[];
  role: AssignableRole;
  disabled: boolean;
  onRole: (r: AssignableRole) => void;
}) {
  if (roles.length < 2) return null;
  return (
    <Field id="invite-role" label="Role">
      <select id="invite-role" data-testid="invite-role" value={role} disabled={disabled} onChange={(e) => onRole(e.target.value as AssignableRole)}>
        {roles.map((r) => (
          <option key={r} value={r}>
            {ROLE_LABELS[r]}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function InviteSection({
  team,
  canInvite,
  rolesEnabled,
  owner,
  onInvited,
}: {
  team: Team;
  canInvite: boolean;
  /** The team's owner is on Enterprise: invitations may name admin or viewer. */
  rolesEnabled: boolean;
  owner?: string;
  onInvited: (i: Invitation) => void;
}) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<AssignableRole>(DEFAULT_ROLE);
  // A new member's role as the manager may give it (an admin: member or viewer).
  const roles = givableRoles(team.role, "viewer", rolesEnabled);
  const [fieldError, setFieldError] = useState<string | undefined>();
  // Members made by single sign-on count against ENTERPRISE_MEMBERS_MAX, not against the invitations.
  const used = team.members.filter((m) => m.joined_by === "invitation").length + team.invitations.length;
  const full = used >= team.collaborators_max;
  const { busy, error, setError, run } = useSubmit(
    async () => {
      const invitation = await teamApi.invite(email.trim(), role, owner);
      setEmail("");
      setRole(DEFAULT_ROLE);
      onInvited(invitation);
    },
    (err) => {
      if (!(err instanceof ApiError && err.code === "invalid_request")) return errorMessage(err);
      setFieldError(err.forFields(["email"]).fields.email ?? err.message);
    },
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    setFieldError(undefined);
    setError(null);
    if (!email.trim()) setFieldError("Enter the email address to invite.");
    else void run();
  }

  return (
    <section className="card section" data-testid="section-invite" aria-labelledby="h-invite">
      <h2 id="h-invite">Invite a collaborator</h2>
      {!canInvite ? (
        <PlanGate feature="Inviting collaborators" capability="team_invite" testId="invite-gated" />
      ) : (
        <>
          <p className="muted" data-testid="collaborator-count">
            {used} of {team.collaborators_max} collaborators (invited members and pending invitations).
          </p>
          <form className="inline-form" onSubmit={submit} noValidate data-testid="invite-form">
            <Field id="invite-email" label="Email address" error={fieldError}>
              <input
                id="invite-email"
                data-testid="invite-email"
                type="email"
                autoComplete="off"
                value={email}
                disabled={full}
                onChange={(e) => setEmail(e.target.value)}
              />
            </Field>
            <RoleField roles={roles} role={role} disabled={full} onRole={setRole} />
            <button type="submit" className="btn btn-primary" disabled={busy || full} data-testid="invite-submit">
              {busy ? "Sending…" : "Send invitation"}
            </button>
          </form>
          {full ? <p className="muted small">Your team is full: cancel an invitation or remove a member to invite someone else.</p> : null}
          {error ? <Alert testId="invite-error">{error}</Alert> : null}
        </>
      )}
    </section>
  );
}

export function InvitationsSection({
  invitations,
  manager,
  owner,
  onChange,
  onNotice,
}: {
  invitations: Invitation[];
  /** The user's role in the team shown: an admin resends and cancels only invitations below its rank. */
  manager: TeamRole;
  owner?: string;
  onChange: () => Promise<void>;
  onNotice: (s: string | null) => void;
}) {
  const cancel = useConfirmed<Invitation>(
    async (i) => (await teamApi.cancelInvitation(i.id, owner), `Invitation to ${i.email} cancelled: its link no longer works.`),
    onChange,
    onNotice,
  );

  return (
    <section className="card section" data-testid="section-invitations" aria-labelledby="h-invitations">
      <h2 id="h-invitations">Pending invitations</h2>
      {invitations.length === 0 ? (
        <p className="placeholder" data-testid="invitations-empty">
          No pending invitations.
        </p>
      ) : (
        <ul className="team-list">
          {invitations.map((i) => (
            <InvitationRow
              key={i.id}
              invitation={i}
              owner={owner}
              manageable={mayChangeRole(manager, i.role, null)}
              onChange={onChange}
              onNotice={onNotice}
              onCancel={() => cancel.ask(i)}
            />
          ))}
        </ul>
      )}
      <ConfirmDialog {...cancel.dialog} title="Cancel this invitation?" confirmLabel="Cancel invitation">
        <p>
          The link sent to <strong>{cancel.target?.email}</strong> will stop working.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function InvitationRow({
  invitation: i,
  owner,
  manageable,
  onChange,
  onNotice,
  onCancel,
}: {
  invitation: Invitation;
  owner: string | undefined;
  manageable: boolean;
  onChange: () => Promise<void>;
  onNotice: (s: string | null) => void;
  onCancel: () => void;
}) {
  const wait = useCountdown(i.can_resend_at);
  const expired = Date.parse(i.expires_at) <= Date.now();
  const {
    busy,
    error,
    run: resend,
  } = useSubmit(async () => {
    const next = await teamApi.resendInvitation(i.id, owner);
    onNotice(next.send_confirmed ? `A new invitation link was sent to ${next.email}; the previous link no longer works.` : null);
    await onChange();
  });

  return (
    <li className="team-item" data-testid="invitation-row" data-email={i.email}>
      <div className="grow">
        <strong className="truncate">{i.email}</strong>
        <p className="link-meta">
          <RoleBadge role={i.role} testId="invitation-role" />
          {i.send_confirmed ? (
            <span className="badge badge-ok" data-testid="invitation-sent">
              Sent {formatDateTime(i.sent_at)}
            </span>
          ) : (
            <span className="badge badge-warning" data-testid="invitation-not-confirmed">
              Sending not confirmed ({formatDateTime(i.sent_at)}): resend it
            </span>
          )}
          {expired ? (
            <span className="badge badge-muted" data-testid="invitation-expired">
              Link expired
            </span>
          ) : (
            <span>Link valid until {formatDate(i.expires_at)}</span>
          )}
        </p>
        {error ? (
          <p className="text-error small" role="alert">
            {error}
          </p>
        ) : null}
      </div>
      {manageable ? (
        <div className="link-actions">
          <button type="button" className="btn btn-secondary btn-sm" disabled={busy || wait > 0} onClick={() => void resend()} data-testid="invitation-resend">
            {busy ? "Sending…" : wait > 0 ? `Resend in ${wait} s` : "Resend"}
          </button>
          <button type="button" className="btn btn-danger-ghost btn-sm" onClick={onCancel} data-testid="invitation-cancel">
            Cancel
          </button>
        </div>
      ) : null}
    </li>
  );
}
