// The team's members (the owner removes them) and the teams the user belongs to (leave one).

import { teamApi } from "./team-api";
import type { Member, Membership } from "@contract/teams";
import { A, ConfirmDialog, EmptyState, formatDate } from "../shared/ui";
import { useConfirmed } from "./confirmed";

export function MembersSection({ members, onChange, onNotice }: { members: Member[]; onChange: () => Promise<void>; onNotice: (s: string | null) => void }) {
  const remove = useConfirmed<Member>(
    async (m) => (await teamApi.removeMember(m.user_id), `${m.email} was removed: their access to your links ended.`),
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
