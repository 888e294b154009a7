// Team page: invite collaborators, follow pending invitations (sent or not confirmed, resend with its
// countdown, cancel), remove members, and the teams I belong to, kept apart.
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { api, ApiError, planAtLeast, type Invitation, type Member, type Membership, type Team } from "../api";
import { useSession } from "../session";
import { A, Alert, ConfirmDialog, EmptyState, Field, Spinner, UpgradeHint, errorMessage, formatDate, formatDateTime, useTitle } from "../ui";

const MAX_COLLABORATORS = 2;

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

/**
 * A confirmed action on one row (cancel, remove, leave): the row awaiting confirmation, its progress and
 * error; `action` returns the notice to show, then the team is loaded again.
 */
function useConfirmed<T>(action: (row: T) => Promise<string>, onChange: () => Promise<void>, onNotice: (s: string | null) => void) {
  const [target, setTarget] = useState<T | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function confirm() {
    if (!target) return;
    setBusy(true);
    setError(null);
    try {
      onNotice(await action(target));
      setTarget(null);
      await onChange();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  const dialog = { open: target !== null, busy, error, danger: true, onConfirm: confirm, onCancel: () => setTarget(null) };
  return { target, ask: (row: T) => (setError(null), setTarget(row)), dialog };
}

export function TeamPage() {
  useTitle("Team");
  const { user } = useSession();
  const [team, setTeam] = useState<Team | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      setTeam(await api.team());
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  if (!user) return <Spinner />;
  const canInvite = planAtLeast(user.plan, "business");
  return (
    <div className="team-page narrow">
      <h1>Team</h1>
      <p className="muted">
        Collaborators view and edit your links (destinations and limits included) and see their statistics. The links stay yours: only you
        can delete them. Their own plan does not change.
      </p>
      {notice ? (
        <Alert kind="success" testId="team-notice">
          {notice}
        </Alert>
      ) : null}
      {error ? (
        <Alert testId="team-error">
          Could not load your team: {error}{" "}
          <button type="button" className="btn-link" onClick={() => void load()}>
            Try again
          </button>
        </Alert>
      ) : null}
      {!team && !error ? <Spinner label="Loading your team…" /> : null}
      {team ? (
        <>
          <InviteSection team={team} canInvite={canInvite} onInvited={(i) => {
            setNotice(i.send_confirmed ? `Invitation sent to ${i.email}.` : null);
            void load();
          }} />
          <InvitationsSection invitations={team.invitations} onChange={load} onNotice={setNotice} />
          <MembersSection members={team.members} onChange={load} onNotice={setNotice} />
          <MembershipsSection memberships={team.memberships} onChange={load} onNotice={setNotice} />
        </>
      ) : null}
    </div>
  );
}

function InviteSection({ team, canInvite, onInvited }: { team: Team; canInvite: boolean; onInvited: (i: Invitation) => void }) {
  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState(false);
  const [fieldError, setFieldError] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const used = team.members.length + team.invitations.length;
  const full = used >= MAX_COLLABORATORS;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setFieldError(undefined);
    setError(null);
    if (!email.trim()) {
      setFieldError("Enter the email address to invite.");
      return;
    }
    setBusy(true);
    try {
      const invitation = await api.invite(email.trim());
      setEmail("");
      onInvited(invitation);
    } catch (err) {
      if (err instanceof ApiError && err.code === "invalid_request") setFieldError(err.forFields(["email"]).fields.email ?? err.message);
      else setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card section" data-testid="section-invite" aria-labelledby="h-invite">
      <h2 id="h-invite">Invite a collaborator</h2>
      {!canInvite ? (
        <p className="gated-note" data-testid="invite-gated">
          <UpgradeHint plan="Business">Team invitations are available on Business and Enterprise.</UpgradeHint>
        </p>
      ) : (
        <>
          <p className="muted" data-testid="collaborator-count">
            {used} of {MAX_COLLABORATORS} collaborators (members and pending invitations).
          </p>
          <form className="inline-form" onSubmit={submit} noValidate data-testid="invite-form">
            <Field id="invite-email" label="Email address" error={fieldError}>
              <input id="invite-email" data-testid="invite-email" type="email" autoComplete="off" value={email} disabled={full} onChange={(e) => setEmail(e.target.value)} />
            </Field>
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

function InvitationsSection({ invitations, onChange, onNotice }: { invitations: Invitation[]; onChange: () => Promise<void>; onNotice: (s: string | null) => void }) {
  const cancel = useConfirmed<Invitation>(
    async (i) => (await api.cancelInvitation(i.id), `Invitation to ${i.email} cancelled: its link no longer works.`),
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
            <InvitationRow key={i.id} invitation={i} onChange={onChange} onNotice={onNotice} onCancel={() => cancel.ask(i)} />
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

function InvitationRow({ invitation: i, onChange, onNotice, onCancel }: { invitation: Invitation; onChange: () => Promise<void>; onNotice: (s: string | null) => void; onCancel: () => void }) {
  const wait = useCountdown(i.can_resend_at);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const expired = Date.parse(i.expires_at) <= Date.now();

  async function resend() {
    setBusy(true);
    setError(null);
    try {
      const next = await api.resendInvitation(i.id);
      onNotice(next.send_confirmed ? `A new invitation link was sent to ${next.email}; the previous link no longer works.` : null);
      await onChange();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <li className="team-item" data-testid="invitation-row" data-email={i.email}>
      <div className="grow">
        <strong className="truncate">{i.email}</strong>
        <p className="link-meta">
          {i.send_confirmed ? (
            <span className="badge badge-ok" data-testid="invitation-sent">Sent {formatDateTime(i.sent_at)}</span>
          ) : (
            <span className="badge badge-warning" data-testid="invitation-not-confirmed">
              Sending not confirmed ({formatDateTime(i.sent_at)}): resend it
            </span>
          )}
          {expired ? <span className="badge badge-muted" data-testid="invitation-expired">Link expired</span> : <span>Link valid until {formatDate(i.expires_at)}</span>}
        </p>
        {error ? <p className="text-error small" role="alert">{error}</p> : null}
      </div>
      <div className="link-actions">
        <button type="button" className="btn btn-secondary btn-sm" disabled={busy || wait > 0} onClick={resend} data-testid="invitation-resend">
          {busy ? "Sending…" : wait > 0 ? `Resend in ${wait} s` : "Resend"}
        </button>
        <button type="button" className="btn btn-danger-ghost btn-sm" onClick={onCancel} data-testid="invitation-cancel">
          Cancel
        </button>
      </div>
    </li>
  );
}

function MembersSection({ members, onChange, onNotice }: { members: Member[]; onChange: () => Promise<void>; onNotice: (s: string | null) => void }) {
  const remove = useConfirmed<Member>(
    async (m) => (await api.removeMember(m.user_id), `${m.email} was removed: their access to your links ended.`),
    onChange,
    onNotice,
  );

  return (
    <section className="card section" data-testid="section-members" aria-labelledby="h-members">
      <h2 id="h-members">Members of your team</h2>
      {members.length === 0 ? (
        <p className="placeholder" data-testid="members-empty">
          Nobody has joined your team yet.
        </p>
      ) : (
        <ul className="team-list">
          {members.map((m) => (
            <li key={m.user_id} className="team-item" data-testid="member-row" data-email={m.email}>
              <div className="grow">
                <strong className="truncate">{m.name || m.email}</strong>
                <p className="link-meta">
                  {m.name ? <span>{m.email}</span> : null}
                  <span>Joined {formatDate(m.joined_at)}</span>
                </p>
              </div>
              <button type="button" className="btn btn-danger-ghost btn-sm" onClick={() => remove.ask(m)} data-testid="member-remove">
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog {...remove.dialog} title="Remove this member?" confirmLabel="Remove member">
        <p>
          <strong>{remove.target?.email}</strong> will lose access to your links at once. Their edits stay.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function MembershipsSection({ memberships, onChange, onNotice }: { memberships: Membership[]; onChange: () => Promise<void>; onNotice: (s: string | null) => void }) {
  const leave = useConfirmed<Membership>(async (m) => (await api.leaveTeam(m.owner_id), `You left ${m.owner_email}'s team.`), onChange, onNotice);

  return (
    <section className="card section" data-testid="section-memberships" aria-labelledby="h-memberships">
      <h2 id="h-memberships">Teams you belong to</h2>
      {memberships.length === 0 ? (
        <EmptyState title="You are not in anyone's team" testId="memberships-empty">
          <p className="muted">When someone invites you, their links appear here.</p>
        </EmptyState>
      ) : (
        <ul className="team-list">
          {memberships.map((m) => (
            <li key={m.owner_id} className="team-item" data-testid="membership-row" data-email={m.owner_email}>
              <div className="grow">
                <strong className="truncate">{m.owner_name ? `${m.owner_name} (${m.owner_email})` : m.owner_email}</strong>
                <p className="link-meta">
                  <span>Joined {formatDate(m.joined_at)}</span>
                  {m.active ? null : (
                    <span className="badge badge-muted" data-testid="membership-suspended">
                      Access suspended: the owner's account or plan does not allow sharing now
                    </span>
                  )}
                </p>
              </div>
              <div className="link-actions">
                {m.active ? (
                  <A to={`/app/shared/${encodeURIComponent(m.owner_id)}`} className="btn btn-secondary btn-sm" testId="membership-links">
                    View links
                  </A>
                ) : null}
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

/** The profile's short summary of the team, with a link to the Team page. */
export function TeamSummary() {
  const [team, setTeam] = useState<Team | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api
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
