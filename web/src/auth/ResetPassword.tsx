// Forgotten password: ask for a reset link, then set a new password from it.
import { authApi } from "./auth-api";
import { useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { ApiError } from "../shared/api";
import { A, Alert, Field, useTitle } from "../shared/ui";
import { useFormErrors } from "./form-errors";
import { useSubmit } from "../shared/submit";
import { AuthCard } from "./AuthCard";
import { accountPasswordProblem } from "../../../src/contract/form-rules";

export function ResetRequestPage() {
  useTitle("Reset password");
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState(false);
  const f = useFormErrors();
  const send = useSubmit(async () => {
    f.clear();
    await authApi.requestPasswordReset(email.trim());
    setSent(true);
  }, f.take);

  return (
    <AuthCard title="Reset your password" alt={<A to="/app/login">Back to sign in</A>}>
      {sent ? (
        <Alert kind="success" testId="reset-sent">
          If an account exists for {email}, we have sent it a link to choose a new password. Check your inbox.
        </Alert>
      ) : (
        <form onSubmit={send.onSubmit} noValidate data-testid="reset-form">
          <p className="muted">Enter the email address of your account; we will send you a link to choose a new password.</p>
          <Field id="reset-email" label="Email" error={f.fieldErrors.email}>
            <input
              id="reset-email"
              data-testid="reset-email"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </Field>
          {f.error ? <Alert>{f.error}</Alert> : null}
          <button type="submit" className="btn btn-primary btn-block" disabled={send.busy || !email.trim()} data-testid="reset-submit">
            {send.busy ? "Sending…" : "Send reset link"}
          </button>
        </form>
      )}
    </AuthCard>
  );
}

export function ResetConfirmPage() {
  useTitle("Choose a new password");
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [done, setDone] = useState(false);
  const f = useFormErrors();
  const save = useSubmit(async () => {
    await authApi.confirmPasswordReset(token, password);
    setDone(true);
  }, f.take);

  function submit(e: FormEvent) {
    e.preventDefault();
    f.clear();
    // Both fields at once, with the server's message for the password.
    const problem = accountPasswordProblem(password);
    const problems = [
      ...(problem ? [{ field: "password", message: problem }] : []),
      ...(password !== confirm ? [{ field: "confirm", message: "The two passwords differ" }] : []),
    ];
    if (problems.length) f.take(new ApiError(400, "invalid_request", "", problems));
    else void save.run();
  }

  return (
    <AuthCard title="Choose a new password" alt={<A to="/app/reset-password">Request a new link</A>}>
      {!token ? (
        <Alert>This reset link is incomplete: it has no token. Request a new one.</Alert>
      ) : done ? (
        <>
          <Alert kind="success" testId="reset-done">
            Your password has been changed. You can now sign in with it.
          </Alert>
          <A to="/app/login" className="btn btn-primary">
            Sign in
          </A>
        </>
      ) : (
        <form onSubmit={submit} noValidate data-testid="reset-confirm-form">
          <Field id="reset-password" label="New password" error={f.fieldErrors.password} hint="10 to 200 characters.">
            <input
              id="reset-password"
              data-testid="reset-password"
              type="password"
              autoComplete="new-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </Field>
          <Field id="reset-password-confirm" label="Repeat the new password" error={f.fieldErrors.confirm}>
            <input
              id="reset-password-confirm"
              data-testid="reset-password-confirm"
              type="password"
              autoComplete="new-password"
              required
              value={confirm}
              onChange={(e) => setConfirm(e.target.value)}
            />
          </Field>
          {f.error ? <Alert>{f.error}</Alert> : null}
          <button type="submit" className="btn btn-primary btn-block" disabled={save.busy} data-testid="reset-confirm-submit">
            {save.busy ? "Saving…" : "Set new password"}
          </button>
        </form>
      )}
    </AuthCard>
  );
}
