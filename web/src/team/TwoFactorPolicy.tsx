// The Enterprise owner's team policy: require two-factor sign-in of every member. A switch with what it does, a
// confirmation naming who loses access, the members' state, and the server's refusal (plan, sudo) when there is one.
import { useCallback, useEffect, useState } from "react";
import type { Member } from "@contract/teams";
import { teamApi } from "./team-api";
import { Alert, ConfirmDialog, Spinner, errorMessage } from "../shared/ui";
import { useSubmit } from "../shared/submit";
import "./team.css";

function names(members: Member[]): string {
  return members.map((m) => m.name || m.email).join(", ");
}

/** Who has two-factor sign-in and who does not, in a sentence. */
function MembersState({ members, on }: { members: Member[]; on: boolean }) {
  const without = members.filter((m) => !m.two_factor);
  if (members.length === 0)
    return (
      <p className="muted small" data-testid="policy-members">
        Nobody has joined your team yet: the policy applies to everyone who does.
      </p>
    );
  if (without.length === 0)
    return (
      <p className="small" data-testid="policy-members">
        <span className="badge badge-ok">All set</span> Every member ({members.length}) has two-factor sign-in.
      </p>
    );
  return (
    <p className="small" data-testid="policy-members">
      <span className={`badge ${on ? "badge-warn" : "badge-muted"}`}>
        {without.length} of {members.length} without it
      </span>{" "}
      {on
        ? `${names(without)} cannot open your links until they turn on two-factor sign-in (their Team page tells them how).`
        : `${names(without)} would lose access to your links until they turn it on.`}
    </p>
  );
}

/** What the confirmation says: who loses access when it goes on, what loosens when it goes off. */
function Consequence({ members, next }: { members: Member[]; next: boolean }) {
  const without = members.filter((m) => !m.two_factor);
  if (!next) return <p>Members will open and edit your links with their password alone (or a passkey). You can turn this on again at any time.</p>;
  return (
    <>
      <p>Every member of your team will need two-factor sign-in (a code from an authenticator app) to open or edit your links.</p>
      {without.length > 0 ? (
        <p data-testid="policy-confirm-without">
          <strong>{names(without)}</strong> {without.length === 1 ? "does" : "do"} not have it yet and will lose access at once, until they set it up under
          Security.
        </p>
      ) : (
        <p>Every current member has it already: nobody loses access.</p>
      )}
    </>
  );
}

export function TwoFactorPolicySection({ members }: { members: Member[] }) {
  const [on, setOn] = useState<boolean | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [asking, setAsking] = useState<boolean | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = useCallback(() => {
    setLoadError(null);
    teamApi.policy().then(setOn, (e: unknown) => setLoadError(errorMessage(e)));
  }, []);
  useEffect(load, [load]);
  const change = useSubmit(async (next: boolean) => {
    setOn(await teamApi.setPolicy(next));
    setAsking(null);
    setNotice(next ? "Two-factor sign-in is now required of your team's members." : "Members no longer need two-factor sign-in.");
  });

  return (
    <section className="card section" data-testid="section-team-policy" aria-labelledby="h-team-policy">
      <h2 id="h-team-policy">Require two-factor sign-in</h2>
      <p className="muted">
        With this on, a member must sign in with a code from an authenticator app as well as their password before they can open, edit or see the statistics of
        your links. A member without it is refused your links until they set it up on their Security page.
      </p>
      {notice ? (
        <Alert kind="success" testId="policy-notice">
          {notice}
        </Alert>
      ) : null}
      {loadError ? (
        <Alert testId="policy-error">
          The policy could not be loaded: {loadError}{" "}
          <button type="button" className="btn-link" onClick={load}>
            Try again
          </button>
        </Alert>
      ) : on === null ? (
        <Spinner label="Loading the policy…" />
      ) : (
        <>
          <label className="policy-switch">
            <input
              type="checkbox"
              role="switch"
              data-testid="policy-switch"
              checked={on}
              aria-describedby="policy-state"
              onChange={(e) => (setNotice(null), change.setError(null), setAsking(e.target.checked))}
            />
            <span className="policy-switch-track" aria-hidden="true" />
            <span>Require two-factor sign-in of members</span>
          </label>
          <p id="policy-state" className="small" data-testid="policy-state">
            {on ? "On: members need two-factor sign-in to reach your links." : "Off: members reach your links with their password alone."}
          </p>
          <MembersState members={members} on={on} />
        </>
      )}
      <ConfirmDialog
        open={asking !== null}
        title={asking ? "Require two-factor sign-in?" : "Stop requiring two-factor sign-in?"}
        confirmLabel={asking ? "Require it" : "Stop requiring it"}
        danger={asking === false}
        busy={change.busy}
        error={change.error}
        onConfirm={() => (asking !== null ? void change.run(asking) : undefined)}
        onCancel={() => setAsking(null)}
      >
        {asking !== null ? <Consequence members={members} next={asking} /> : null}
      </ConfirmDialog>
    </section>
  );
}
