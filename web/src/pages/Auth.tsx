// Account pages: sign up, sign in, sign out, email verification, password reset.
import { useEffect, useRef, useState, type FormEvent } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { api, ApiError, invitationPath, pendingInvitation } from "../api";
import { useSession } from "../session";
import { A, Alert, Field, Spinner, useTitle } from "../ui";

/** Only same-site dashboard paths are accepted as a post-sign-in destination. */
function safeNext(next: string | null): string {
  if (next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/app/login") && !next.startsWith("/app/logout")) return next;
  return "/app";
}

function useFormErrors() {
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  function take(err: unknown) {
    if (err instanceof ApiError) {
      const { fields, general } = err.forFields(["email", "password", "name", "confirm"]);
      setFieldErrors(fields);
      setError(general);
    } else setError(String(err));
  }
  function clear() {
    setFieldErrors({});
    setError(null);
  }
  return { fieldErrors, error, take, clear };
}

export function SignupPage() {
  useTitle("Sign up");
  const { user, setUser } = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  // An invitation's landing page sends here with the invited address and itself as next.
  const next = params.get("next") ? safeNext(params.get("next")) : null;
  const [email, setEmail] = useState(params.get("email") ?? "");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const f = useFormErrors();

  if (user && !busy) return <Navigate to={next ?? "/app"} replace />;

  async function submit(e: FormEvent) {
    e.preventDefault();
    f.clear();
    if (password.length < 10) {
      f.take(new ApiError(400, "invalid_request", "", [{ field: "password", message: "Use at least 10 characters." }]));
      return;
    }
    setBusy(true);
    try {
      const u = await api.signup(email.trim(), password, name.trim() || undefined);
      setUser(u);
      navigate(next ?? "/app?welcome=1", { replace: true });
    } catch (err) {
      f.take(err);
      setBusy(false);
    }
  }

  return (
    <section className="auth-card card">
      <h1>Create your account</h1>
      <p className="muted">Keep your links, see their statistics and manage them in one place.</p>
      <form onSubmit={submit} noValidate data-testid="signup-form">
        <Field id="signup-email" label="Email" error={f.fieldErrors.email}>
          <input id="signup-email" data-testid="signup-email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field id="signup-name" label="Name (optional)" error={f.fieldErrors.name}>
          <input id="signup-name" data-testid="signup-name" type="text" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field id="signup-password" label="Password" error={f.fieldErrors.password} hint="10 to 200 characters.">
          <input id="signup-password" data-testid="signup-password" type="password" autoComplete="new-password" required minLength={10} maxLength={200} value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        {f.error ? <Alert>{f.error}</Alert> : null}
        <button type="submit" className="btn btn-primary btn-block" disabled={busy} data-testid="signup-submit">
          {busy ? "Creating account…" : "Sign up"}
        </button>
      </form>
      <p className="auth-alt">
        Already have an account? <A to={next ? `/app/login?${new URLSearchParams({ next })}` : "/app/login"}>Sign in</A>
      </p>
    </section>
  );
}

export function LoginPage() {
  useTitle("Sign in");
  const { user, setUser } = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeNext(params.get("next"));
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const f = useFormErrors();

  if (user && !busy) return <Navigate to={next} replace />;

  async function submit(e: FormEvent) {
    e.preventDefault();
    f.clear();
    setBusy(true);
    try {
      const u = await api.login(email.trim(), password);
      setUser(u);
      navigate(next, { replace: true });
    } catch (err) {
      f.take(err);
      setBusy(false);
    }
  }

  return (
    <section className="auth-card card">
      <h1>Sign in</h1>
      <form onSubmit={submit} noValidate data-testid="login-form">
        <Field id="login-email" label="Email" error={f.fieldErrors.email}>
          <input id="login-email" data-testid="login-email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field id="login-password" label="Password" error={f.fieldErrors.password}>
          <input id="login-password" data-testid="login-password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        {f.error ? <Alert testId="login-error">{f.error}</Alert> : null}
        <button type="submit" className="btn btn-primary btn-block" disabled={busy} data-testid="login-submit">
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p className="auth-alt">
        <A to="/app/reset-password">Forgot your password?</A>
        <span className="sep">·</span>
        No account yet? <A to="/app/signup">Sign up</A>
      </p>
    </section>
  );
}

export function LogoutPage() {
  useTitle("Signing out");
  const { signOut } = useSession();
  const navigate = useNavigate();
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void signOut().then(() => navigate("/", { replace: true }));
  }, [signOut, navigate]);
  return <Spinner label="Signing out…" />;
}

export function VerifyEmailPage() {
  useTitle("Verify email");
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const { user, refresh } = useSession();
  const [state, setState] = useState<"working" | "ok" | "failed">(token ? "working" : "failed");
  const [message, setMessage] = useState(token ? "" : "This verification link is incomplete: it has no token.");
  const started = useRef(false);
  // A visitor who signed up from an invitation's page goes back there once verified.
  const [invitation] = useState(() => pendingInvitation.get());

  useEffect(() => {
    if (!token || started.current) return;
    started.current = true;
    api
      .verifyEmail(token)
      .then(async () => {
        setState("ok");
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
      {state === "ok" ? (
        <>
          <Alert kind="success" testId="verify-success">
            Your email address is verified. Thank you!
          </Alert>
          {invitation ? (
            <A to={user ? invitationPath(invitation) : `/app/login?${new URLSearchParams({ next: invitationPath(invitation) })}`} className="btn btn-primary" testId="verify-continue-invitation">
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
          <Alert testId="verify-failure">
            The email address could not be verified. {message}
          </Alert>
          <p className="muted">
            The link may have expired or been used already. {user ? <>You can request a new one from your <A to="/app/profile">profile</A>.</> : <>Sign in and request a new one from your profile.</>}
          </p>
        </>
      ) : null}
    </section>
  );
}

export function ResetRequestPage() {
  useTitle("Reset password");
  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const f = useFormErrors();

  async function submit(e: FormEvent) {
    e.preventDefault();
    f.clear();
    setBusy(true);
    try {
      await api.requestPasswordReset(email.trim());
      setSent(true);
    } catch (err) {
      f.take(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="auth-card card">
      <h1>Reset your password</h1>
      {sent ? (
        <Alert kind="success" testId="reset-sent">
          If an account exists for {email}, we have sent it a link to choose a new password. Check your inbox.
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate data-testid="reset-form">
          <p className="muted">Enter the email address of your account; we will send you a link to choose a new password.</p>
          <Field id="reset-email" label="Email" error={f.fieldErrors.email}>
            <input id="reset-email" data-testid="reset-email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </Field>
          {f.error ? <Alert>{f.error}</Alert> : null}
          <button type="submit" className="btn btn-primary btn-block" disabled={busy || !email.trim()} data-testid="reset-submit">
            {busy ? "Sending…" : "Send reset link"}
          </button>
        </form>
      )}
      <p className="auth-alt">
        <A to="/app/login">Back to sign in</A>
      </p>
    </section>
  );
}

export function ResetConfirmPage() {
  useTitle("Choose a new password");
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const f = useFormErrors();

  async function submit(e: FormEvent) {
    e.preventDefault();
    f.clear();
    if (password.length < 10) {
      f.take(new ApiError(400, "invalid_request", "", [{ field: "password", message: "Use at least 10 characters." }]));
      return;
    }
    if (password !== confirm) {
      f.take(new ApiError(400, "invalid_request", "", [{ field: "confirm", message: "The two passwords differ." }]));
      return;
    }
    setBusy(true);
    try {
      await api.confirmPasswordReset(token, password);
      setDone(true);
    } catch (err) {
      f.take(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="auth-card card">
      <h1>Choose a new password</h1>
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
            <input id="reset-password" data-testid="reset-password" type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
          </Field>
          <Field id="reset-password-confirm" label="Repeat the new password" error={f.fieldErrors.confirm}>
            <input id="reset-password-confirm" data-testid="reset-password-confirm" type="password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          </Field>
          {f.error ? <Alert>{f.error}</Alert> : null}
          <button type="submit" className="btn btn-primary btn-block" disabled={busy} data-testid="reset-confirm-submit">
            {busy ? "Saving…" : "Set new password"}
          </button>
        </form>
      )}
      <p className="auth-alt">
        <A to="/app/reset-password">Request a new link</A>
      </p>
    </section>
  );
}
