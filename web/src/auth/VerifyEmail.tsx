// The email verification link's page: verify, then on to the dashboard or a pending invitation.
import { authApi } from "./auth-api";
import { useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { invitationPath, pendingInvitation } from "../shared/invitation";
import { useSession } from "../shared/session";
import { A, Alert, Spinner, useTitle } from "../shared/ui";

export function VerifyEmailPage() {
  useTitle("Verify email");
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const { user, refresh } = useSession();
  const [state, setState] = useState<"working" | "ok" | "already" | "failed">(token ? "working" : "failed");
  const [message, setMessage] = useState(token ? "" : "This verification link is incomplete: it has no token.");
  const started = useRef(false);
  // A visitor who signed up from an invitation's page goes back there once verified.
  const [invitation] = useState(() => pendingInvitation.get());

  useEffect(() => {
    if (!token || started.current) return;
    started.current = true;
    authApi
      .verifyEmail(token)
      .then(async (r) => {
        setState(r.already_verified ? "already" : "ok");
        await refresh();
      })
      .catch((err: unknown) => {
        setState("failed");
        setMessage(err instanceof Error ? err.message : String(err));
      });
  }, [token, refresh]);

  return (
    <section className="auth-card card" data-testid="verify-email">
      <h1>Email verification</h1>
      {state === "working" ? <Spinner label="Verifying your email address…" /> : null}
      {state === "ok" || state === "already" ? (
        <>
          <Alert kind="success" testId="verify-success">
            {state === "already" ? "Your email address is already verified: nothing more to do." : "Your email address is verified. Thank you!"}
          </Alert>
          {invitation ? (
            <A
              to={user ? invitationPath(invitation) : `/app/login?${new URLSearchParams({ next: invitationPath(invitation) })}`}
              className="btn btn-primary"
              testId="verify-continue-invitation"
            >
              Continue to your team invitation
            </A>
          ) : (
            <A to={user ? "/app" : "/app/login"} className="btn btn-primary">
              {user ? "Go to the dashboard" : "Sign in"}
            </A>
          )}
        </>
      ) : null}
      {state === "failed" ? (
        <>
          <Alert testId="verify-failure">The email address could not be verified. {message}</Alert>
          <p className="muted">
            The link may have expired or been used already.{" "}
            {user ? (
              <>
                You can request a new one from your <A to="/app/profile">profile</A>.
              </>
            ) : (
              <>Sign in and request a new one from your profile.</>
            )}
          </p>
        </>
      ) : null}
    </section>
  );
}
