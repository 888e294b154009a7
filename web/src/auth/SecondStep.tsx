// The sign-in's second step: a code from the authenticator app, one of the recovery codes, or a passkey of the account.
import { useState, type FormEvent } from "react";
import type { User } from "@contract/accounts";
import { accountApi } from "../shared/account-api";
import { Alert, Field } from "../shared/ui";
import { useFormErrors } from "./form-errors";
import { authApi } from "./auth-api";

export function SecondStep({ methods, onSignedIn, onRestart }: { methods: string[]; onSignedIn: (u: User) => void; onRestart: () => void }) {
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState("");
  // Not useSubmit: busy stays on after a success (the page is left), and errors go to useFormErrors's fields.
  const [busy, setBusy] = useState(false);
  const f = useFormErrors();

  async function submit(e: FormEvent) {
    e.preventDefault();
    f.clear();
    setBusy(true);
    try {
      const v = value.trim();
      onSignedIn(await accountApi.verifySecondStep(recovery ? { recovery_code: v } : { code: v }));
    } catch (err) {
      f.take(err);
      setBusy(false);
    }
  }

  async function withPasskey() {
    f.clear();
    setBusy(true);
    try {
      onSignedIn(await authApi.secondStepWithPasskey());
    } catch (err) {
      f.take(err instanceof Error && err.name === "NotAllowedError" ? new Error("The passkey prompt was closed or timed out.") : err);
      setBusy(false);
    }
  }

  const field = recovery ? "recovery_code" : "code";
  return (
    <form onSubmit={submit} noValidate data-testid="second-step-form">
      <p className="muted">{recovery ? "Enter one of your recovery codes (each works once)." : "Enter the 6-digit code from your authenticator app."}</p>
      <Field id="second-step" label={recovery ? "Recovery code" : "Code"} error={f.fieldErrors[field]}>
        <input
          id="second-step"
          data-testid="second-step-code"
          type="text"
          className={recovery ? "code-input code-input-long" : "code-input"}
          autoComplete="one-time-code"
          inputMode={recovery ? "text" : "numeric"}
          pattern={recovery ? "[A-Za-z0-9 -]{16,32}" : "[0-9]{6}"}
          spellCheck={false}
          autoCapitalize="off"
          maxLength={recovery ? 32 : 6}
          autoFocus
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
      </Field>
      {f.error ? <Alert testId="second-step-error">{f.error}</Alert> : null}
      <button type="submit" className="btn btn-primary btn-block" disabled={busy} data-testid="second-step-submit">
        {busy ? "Checking…" : "Sign in"}
      </button>
      {methods.includes("passkey") ? (
        <button type="button" className="btn btn-secondary btn-block" disabled={busy} onClick={() => void withPasskey()} data-testid="second-step-passkey">
          Use a passkey instead
        </button>
      ) : null}
      <p className="auth-alt">
        <button type="button" className="btn-link" data-testid="second-step-toggle" onClick={() => (setRecovery(!recovery), setValue(""), f.clear())}>
          {recovery ? "Use a code from the app" : "Use a recovery code"}
        </button>
        <span className="sep">·</span>
        <button type="button" className="btn-link" onClick={onRestart}>
          Start over
        </button>
      </p>
    </form>
  );
}
