// The page an invitation email links to: says who invited which address and what the link's state is,
// lets a new user sign up and verify their email and come back to accept, and says why when it cannot.
import { accountApi } from "../shared/account-api";
import { teamApi } from "./team-api";
import { useCallback, useEffect, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { ApiError } from "../shared/api";
import { invitationPath, pendingInvitation } from "../shared/invitation";
import type { InvitationPreview, Membership } from "@contract/teams";
import { useSession } from "../shared/session";
import { A, Alert, Spinner, errorMessage, formatDate, useTitle } from "../shared/ui";
import { useSubmit } from "../shared/submit";

// eslint-disable-next-line max-lines-per-function -- each step of accepting (preview, sign in, accept) reads the same invitation state.
export function AcceptInvitationPage() {
  const navigate = useNavigate();
  useTitle("Team invitation");
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const { user, refresh, signOut } = useSession();
  const [preview, setPreview] = useState<InvitationPreview | null>(null);
  const [loadError, setLoadError] = useState<ApiError | Error | null>(null);
  const [joined, setJoined] = useState<Membership | null>(null);
  const [resent, setResent] = useState<string | null>(null);

  const load = useCallback(async () => {
    setLoadError(null);
    try {
      setPreview(await teamApi.previewInvitation(token));
    } catch (e) {
      setLoadError(e instanceof Error ? e : new Error(String(e)));
    }
  }, [token]);

  useEffect(() => {
    if (!token) return;
    // Kept until accepted, so that the verification email's page can bring the visitor back here.
    pendingInvitation.set(token);
    void load();
  }, [token, load]);

  // A refusal reads the session (the email may be confirmed by now) and the invitation again before it shows.
  const {
    busy,
    error: acceptError,
    run: accept,
  } = useSubmit(async () => {
    try {
      const m = await teamApi.acceptInvitation(token);
      pendingInvitation.clear();
      setJoined(m);
      // Straight to the links the membership opens (the header's switcher then offers them too).
      navigate(`/app/shared/${encodeURIComponent(m.owner_id)}`, { replace: true });
    } catch (e) {
      if (e instanceof ApiError && e.code === "email_unverified") await refresh();
      await load();
      throw e;
    }
  });

  async function resendVerification() {
    setResent(null);
    try {
      const r = await accountApi.resendVerification();
      setResent(
        r.email_sent
          ? `We sent a new confirmation link to ${user?.email}.`
          : `The mail server did not take the email right now; it will be sent to ${user?.email} as soon as it does.`,
      );
    } catch (e) {
      setResent(errorMessage(e));
    }
  }

  const here = invitationPath(token);
  let body;
  if (!token) {
    body = <Alert testId="invitation-incomplete">This invitation link is incomplete: it has no token. Open the link from the email again.</Alert>;
  } else if (joined) {
    body = (
      <>
        <Alert kind="success" testId="invitation-accepted">
          You joined {joined.owner_name || joined.owner_email}'s team. You can now view and edit their links and see their statistics.
        </Alert>
        <A to={`/app/shared/${encodeURIComponent(joined.owner_id)}`} className="btn btn-primary" testId="invitation-open-links">
          Open their links
        </A>
      </>
    );
  } else if (loadError) {
    const unknown = loadError instanceof ApiError && loadError.code === "not_found";
    body = (
      <Alert testId="invitation-invalid">
        {unknown
          ? "This invitation link is not valid. Check that you opened the whole link from the email."
          : `The invitation could not be loaded: ${loadError.message}`}
        {!unknown ? (
          <>
            {" "}
            <button type="button" className="btn-link" onClick={() => void load()}>
              Try again
            </button>
          </>
        ) : null}
      </Alert>
    );
  } else if (!preview || user === undefined) {
    body = <Spinner label="Loading the invitation…" />;
  } else {
    const inviter = preview.inviter_name ? `${preview.inviter_name} (${preview.inviter_email})` : preview.inviter_email;
    body = (
      <>
        <p className="lead" data-testid="invitation-summary">
          <strong>{inviter}</strong> invited <strong>{preview.email}</strong> to their team on snip.
        </p>
        <InvitationState
          preview={preview}
          inviter={inviter}
          user={user}
          here={here}
          busy={busy}
          onAccept={accept}
          onSignOut={signOut}
          onResendVerification={resendVerification}
          onRecheck={refresh}
        />
        {acceptError ? <Alert testId="invitation-accept-error">{acceptError}</Alert> : null}
        {resent ? <Alert kind="info">{resent}</Alert> : null}
      </>
    );
  }

  return (
    <section className="auth-card card" data-testid="invitation-page">
      <h1>Team invitation</h1>
      {body}
    </section>
  );
}

// eslint-disable-next-line max-lines-per-function -- one message per invitation state, read together.
function InvitationState(props: {
  preview: InvitationPreview;
  inviter: string;
  user: { email: string; email_verified: boolean } | null;
  here: string;
  busy: boolean;
  onAccept: () => void;
  onSignOut: () => Promise<void>;
  onResendVerification: () => void;
  onRecheck: () => Promise<void>;
}) {
  const { preview, user, here } = props;
  switch (preview.state) {
    case "cancelled":
      return <Alert testId="invitation-cancelled">{props.inviter} cancelled this invitation. Ask them for a new one if you still want to join.</Alert>;
    case "replaced":
      return (
        <Alert testId="invitation-replaced">
          This link was replaced by a newer one when the invitation was sent again. Open the link in the most recent invitation email.
        </Alert>
      );
    case "expired":
      return (
        <Alert testId="invitation-expired">
          This invitation link expired on {formatDate(preview.expires_at)} (links are valid for 7 days). Ask {props.inviter} to send it again.
        </Alert>
      );
    case "accepted":
      return (
        <Alert kind="info" testId="invitation-used">
          This invitation has already been accepted. {user ? <A to="/app/team">See your teams</A> : null}
        </Alert>
      );
  }
  if (!user) {
    return (
      <div data-testid="invitation-signed-out">
        <p className="muted">
          Sign in with {preview.email} to accept, or create an account with that address: the invitation waits while you confirm your email.
        </p>
        <div className="row gap">
          <A to={`/app/signup?${new URLSearchParams({ email: preview.email, next: here })}`} className="btn btn-primary" testId="invitation-signup">
            Create an account
          </A>
          <A to={`/app/login?${new URLSearchParams({ next: here })}`} className="btn btn-secondary" testId="invitation-login">
            Sign in
          </A>
        </div>
      </div>
    );
  }
  if (user.email !== preview.email) {
    return (
      <Alert kind="warning" testId="invitation-wrong-account">
        You are signed in as {user.email}, but this invitation is for {preview.email}.{" "}
        <button type="button" className="btn-link" onClick={() => void props.onSignOut()} data-testid="invitation-switch-account">
          Sign out and continue as {preview.email}
        </button>
      </Alert>
    );
  }
  if (!user.email_verified) {
    return (
      <div data-testid="invitation-unverified">
        <Alert kind="info">
          Confirm your email address first: open the link we emailed to {user.email}, then come back here (the confirmation page brings you back).
        </Alert>
        <div className="row gap">
          <button type="button" className="btn btn-primary" onClick={() => void props.onRecheck()} data-testid="invitation-recheck">
            I have confirmed it
          </button>
          <button type="button" className="btn btn-secondary" onClick={props.onResendVerification} data-testid="invitation-resend-verification">
            Send the confirmation again
          </button>
        </div>
      </div>
    );
  }
  return (
    <div>
      <p className="muted">
        As a member you can view and edit {props.inviter}'s links and see their statistics. Your own links and plan stay as they are. Valid until{" "}
        {formatDate(preview.expires_at)}.
      </p>
      <button type="button" className="btn btn-primary" disabled={props.busy} onClick={props.onAccept} data-testid="invitation-accept">
        {props.busy ? "Joining…" : "Accept the invitation"}
      </button>
    </div>
  );
}
