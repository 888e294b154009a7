// Profile sections: display name, plan (set by the operator: no billing here), password.
import { planName } from "../shared/plan-gate";
import { accountApi } from "../shared/account-api";
import { profileApi } from "./profile-api";
import { useState, type FormEvent } from "react";
import { ApiError } from "../shared/api";
import type { User } from "@contract/accounts";
import { Alert, Field, errorMessage, formatDate } from "../shared/ui";
import { fieldOrMessage, useSubmit } from "../shared/submit";
import { MAX_NAME, MESSAGES, accountPasswordProblem } from "../../../src/contract/form-rules";

export function NameSection({ user, onUser }: { user: User; onUser: (u: User) => void }) {
  const [name, setName] = useState(user.name ?? "");
  const [done, setDone] = useState(false);
  const { busy, error, setError, run } = useSubmit(async () => {
    const u = await profileApi.updateProfile(name.trim());
    onUser(u ?? { ...user, name: name.trim() });
    setDone(true);
  }, fieldOrMessage("name"));

  function submit(e: FormEvent) {
    e.preventDefault();
    setDone(false);
    if (name.trim().length > MAX_NAME) setError(MESSAGES.nameLong);
    else void run();
  }

  return (
    <section className="card section" data-testid="section-name" aria-labelledby="h-name">
      <h2 id="h-name">Name</h2>
      <form onSubmit={submit} className="inline-form" noValidate>
        <Field id="profile-name" label="Display name" error={error ?? undefined} className="grow">
          <input
            id="profile-name"
            data-testid="profile-name"
            type="text"
            autoComplete="name"
            value={name}
            maxLength={200}
            onChange={(e) => {
              setName(e.target.value);
              setDone(false);
            }}
          />
        </Field>
        <button type="submit" className="btn btn-primary" disabled={busy || name.trim() === (user.name ?? "")} data-testid="profile-name-submit">
          {busy ? "Saving…" : "Save"}
        </button>
      </form>
      <p className="muted small">Email: {user.email}</p>
      {done ? (
        <Alert kind="success" testId="name-done">
          Name saved.
        </Alert>
      ) : null}
    </section>
  );
}

export function PlanSection({ user }: { user: User }) {
  const [sent, setSent] = useState<string | null>(null);
  const resend = useSubmit(async () => {
    setSent(null);
    const r = await accountApi.resendVerification();
    setSent(
      r.email_sent
        ? `We sent a new verification link to ${user.email}.`
        : `The mail server did not take the email right now; it will be sent to ${user.email} as soon as it does.`,
    );
  });
  return (
    <section className="card section" data-testid="section-plan" aria-labelledby="h-plan">
      <h2 id="h-plan">Plan</h2>
      <p className="muted small" data-testid="plan-how">
        This service is self-hosted: there is no billing here. The operator of this service sets each account's plan; ask them for another one.
      </p>
      <dl className="facts">
        <div>
          <dt>Plan</dt>
          <dd>
            <span className={`badge badge-plan plan-${user.plan}`} data-testid="plan-name">
              {planName(user.plan)}
            </span>
          </dd>
        </div>
        <div>
          <dt>Account status</dt>
          <dd data-testid="account-status">
            <span className={`status-dot status-${user.status}`} /> {user.status === "active" ? "Active" : "Suspended"}
          </dd>
        </div>
        <div>
          <dt>Email</dt>
          <dd data-testid="email-status">
            {user.email_verified ? (
              <span className="text-success">Verified</span>
            ) : (
              <>
                <span className="text-warning">Not verified</span>{" "}
                <button
                  type="button"
                  className="btn btn-secondary btn-sm"
                  onClick={() => void resend.run()}
                  disabled={resend.busy}
                  data-testid="resend-verification"
                >
                  {resend.busy ? "Sending…" : "Resend verification email"}
                </button>
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Member since</dt>
          <dd>{formatDate(user.created_at)}</dd>
        </div>
      </dl>
      {sent ? <Alert kind="success">{sent}</Alert> : resend.error ? <Alert>{resend.error}</Alert> : null}
      {user.status === "suspended" ? <Alert kind="warning">Your account is suspended: you can look around but not create or change links.</Alert> : null}
    </section>
  );
}

/** What is wrong with the password form before it is sent: every field at once, with the server's messages. */
function passwordProblems(current: string, next: string, confirm: string): Record<string, string> {
  const local: Record<string, string> = {};
  if (!current) local.current_password = "Enter your current password";
  const problem = accountPasswordProblem(next);
  if (problem) local.new_password = problem;
  if (next !== confirm) local.confirm = "The two passwords differ";
  return local;
}

/** The new password and its repetition, side by side. */
function NewPasswordFields(props: {
  next: string;
  confirm: string;
  errors: Record<string, string>;
  onNext: (next: string) => void;
  onConfirm: (confirm: string) => void;
}) {
  const { next, confirm, errors, onNext, onConfirm } = props;
  return (
    <div className="grid-2">
      <Field id="new-password" label="New password" error={errors.new_password} hint="10 to 200 characters.">
        <input id="new-password" data-testid="new-password" type="password" autoComplete="new-password" value={next} onChange={(e) => onNext(e.target.value)} />
      </Field>
      <Field id="confirm-password" label="Repeat the new password" error={errors.confirm}>
        <input
          id="confirm-password"
          data-testid="confirm-password"
          type="password"
          autoComplete="new-password"
          value={confirm}
          onChange={(e) => onConfirm(e.target.value)}
        />
      </Field>
    </div>
  );
}

export function PasswordSection() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [fe, setFe] = useState<Record<string, string>>({});
  const [done, setDone] = useState(false);
  const { busy, error, setError, run } = useSubmit(
    async () => {
      await profileApi.changePassword(current, next);
      setDone(true);
      setCurrent("");
      setNext("");
      setConfirm("");
    },
    (err) => {
      if (!(err instanceof ApiError)) return errorMessage(err);
      const { fields, general } = err.forFields(["current_password", "new_password"]);
      if (err.code === "invalid_credentials" && !fields.current_password) {
        setFe({ current_password: err.message });
        return null;
      }
      setFe(fields);
      return general;
    },
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setDone(false);
    const local = passwordProblems(current, next, confirm);
    setFe(local);
    if (!Object.keys(local).length) void run();
  }

  return (
    <section className="card section" data-testid="section-password" aria-labelledby="h-password">
      <h2 id="h-password">Password</h2>
      <form onSubmit={submit} noValidate data-testid="password-form">
        <Field id="current-password" label="Current password" error={fe.current_password}>
          <input
            id="current-password"
            data-testid="current-password"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </Field>
        <NewPasswordFields next={next} confirm={confirm} errors={fe} onNext={setNext} onConfirm={setConfirm} />
        {error ? <Alert testId="password-error">{error}</Alert> : null}
        {done ? (
          <Alert kind="success" testId="password-done">
            Your password has been changed.
          </Alert>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="password-submit">
          {busy ? "Changing…" : "Change password"}
        </button>
      </form>
    </section>
  );
}
