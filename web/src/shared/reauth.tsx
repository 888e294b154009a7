// "Confirm it's you" (sudo mode): the dialog a change of how the account signs in opens when the session's last
// proof is over 10 minutes old. api.ts asks for it on a 403 reauth_required and sends the refused call again once it
// is confirmed; main.tsx loads this file only then. The proof: the password, a passkey, or a fresh single sign-on.
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { createRoot } from "react-dom/client";
import { ApiError } from "./api";
import { reauthApi, type OtherWays } from "./reauth-api";
import { errorMessage } from "./submit";
import { Alert, Field } from "./ui";

/** Opens the dialog in a root of its own (it needs nothing of the page under it): true once confirmed, false on cancel. */
export function askToConfirmItsYou(): Promise<boolean> {
  return new Promise((resolve) => {
    const host = document.createElement("div");
    document.body.append(host);
    const root = createRoot(host);
    const done = (confirmed: boolean) => {
      resolve(confirmed);
      // Later, not inside the root's own event: React refuses to unmount a root while it is rendering it.
      window.setTimeout(() => {
        root.unmount();
        host.remove();
      });
    };
    root.render(<ConfirmItsYouDialog onDone={done} />);
  });
}

/** Where a failed proof's message goes: beside the password when the server names that field, else above the buttons. */
function placeError(e: unknown): { password: string | null; general: string | null } {
  if (e instanceof Error && e.name === "NotAllowedError") return { password: null, general: "The passkey prompt was closed or timed out." };
  if (e instanceof ApiError && e.code === "invalid_credentials") return { password: null, general: "That passkey is not one of this account's." };
  // The only field error a proof has: the password was not the account's (the server's words read as a form label's).
  const field = e instanceof ApiError ? e.fieldErrors().password : undefined;
  return field ? { password: "That is not your password. Try again.", general: null } : { password: null, general: errorMessage(e) };
}

function OtherWaysToConfirm({ ways, busy, onPasskey }: { ways: OtherWays; busy: "password" | "passkey" | null; onPasskey: () => void }) {
  if (!ways.passkey && !ways.ssoHref) return null;
  return (
    <div className="reauth-other-ways" data-testid="reauth-other-ways">
      <p className="divider-text muted small">or</p>
      {ways.passkey ? (
        <button type="button" className="btn btn-secondary btn-block" disabled={busy !== null} onClick={onPasskey} data-testid="reauth-passkey">
          {busy === "passkey" ? "Waiting for your passkey…" : "Use a passkey"}
        </button>
      ) : null}
      {ways.ssoHref ? (
        <>
          <a className="btn btn-secondary btn-block" href={ways.ssoHref} data-testid="reauth-sso">
            Continue with single sign-on
          </a>
          <p className="muted small">This leaves the page for a moment: you come back here to make the change again.</p>
        </>
      ) : null}
    </div>
  );
}

// eslint-disable-next-line max-lines-per-function -- one dialog: its opening and focus, the two proofs and their errors.
function ConfirmItsYouDialog({ onDone }: { onDone: (confirmed: boolean) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const passwordInput = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const whyId = useId();
  const [password, setPassword] = useState("");
  // Not useSubmit: busy names the proof under way, stays on once it holds (the dialog closes), and errors go to the field.
  const [busy, setBusy] = useState<"password" | "passkey" | null>(null);
  const [errors, setErrors] = useState<{ password: string | null; general: string | null }>({ password: null, general: null });
  const [ways, setWays] = useState<OtherWays>({ passkey: false, ssoHref: null });

  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    passwordInput.current?.focus();
    let open = true;
    reauthApi.otherWays().then(
      (w) => open && setWays(w),
      () => undefined,
    );
    return () => void (open = false);
  }, []);

  /** Closing the <dialog> first gives focus back to what had it (the form's button) before the root goes. */
  function finish(confirmed: boolean) {
    dialog.current?.close();
    onDone(confirmed);
  }

  async function prove(how: "password" | "passkey", proof: () => Promise<unknown>) {
    setBusy(how);
    setErrors({ password: null, general: null });
    try {
      await proof();
      finish(true);
    } catch (e) {
      const placed = placeError(e);
      setErrors(placed);
      setBusy(null);
      if (placed.password) passwordInput.current?.select();
    }
  }

  function submitPassword(e: FormEvent) {
    e.preventDefault();
    if (!password) {
      setErrors({ password: "Enter your password.", general: null });
      passwordInput.current?.focus();
      return;
    }
    void prove("password", () => reauthApi.withPassword(password));
  }

  return (
    <dialog
      ref={dialog}
      className="dialog reauth-dialog"
      aria-labelledby={titleId}
      aria-describedby={whyId}
      data-testid="reauth-dialog"
      onCancel={(e) => {
        // Escape: the refused change then reports that it was cancelled.
        e.preventDefault();
        finish(false);
      }}
    >
      <form onSubmit={submitPassword} noValidate>
        <h2 id={titleId}>Confirm it's you</h2>
        <p id={whyId} className="dialog-body">
          This changes how your account signs in, so it needs your password again. You won't be asked again for 10 minutes.
        </p>
        <Field id="reauth-password" label="Password" error={errors.password ?? undefined}>
          <input
            ref={passwordInput}
            id="reauth-password"
            data-testid="reauth-password"
            type="password"
            autoComplete="current-password"
            value={password}
            aria-invalid={errors.password ? true : undefined}
            aria-describedby={errors.password ? "reauth-password-error" : undefined}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        {errors.general ? <Alert testId="reauth-error">{errors.general}</Alert> : null}
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={() => finish(false)} data-testid="reauth-cancel">
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy !== null} data-testid="reauth-submit">
            {busy === "password" ? "Checking…" : "Confirm"}
          </button>
        </div>
        <OtherWaysToConfirm ways={ways} busy={busy} onPasskey={() => void prove("passkey", reauthApi.withPasskey)} />
      </form>
    </dialog>
  );
}
