// "Sign in with a passkey" on the sign-in page: no email, no password; the browser offers the passkeys it has for this site.
import { authApi } from "./auth-api";
import { useState } from "react";
import { browserSupportsWebAuthn } from "@simplewebauthn/browser";
import type { User } from "@contract/accounts";
import { Alert, errorMessage } from "../shared/ui";
import { ApiError } from "../shared/api";

function signInError(e: unknown): string {
  if (e instanceof Error && e.name === "NotAllowedError") return "The passkey prompt was closed or timed out.";
  if (e instanceof ApiError && e.code === "invalid_credentials")
    return "That passkey is not registered here. Sign in with your password, then add a passkey in your profile.";
  return errorMessage(e);
}

export function PasskeySignIn({ onSignedIn }: { onSignedIn: (user: User) => void }) {
  // Not useSubmit: busy stays on after a success, until the page signed in is left.
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!browserSupportsWebAuthn()) return null;

  async function signIn() {
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await authApi.signInWithPasskey());
    } catch (e) {
      setError(signInError(e));
      setBusy(false);
    }
  }

  return (
    <div className="passkey-signin">
      <p className="divider-text muted small">or</p>
      <button type="button" className="btn btn-secondary btn-block" disabled={busy} onClick={() => void signIn()} data-testid="passkey-signin">
        {busy ? "Waiting for your passkey…" : "Sign in with a passkey"}
      </button>
      {error ? <Alert testId="passkey-signin-error">{error}</Alert> : null}
    </div>
  );
}
