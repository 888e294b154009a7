// Account pages: sign up, sign in, sign out (email verification and password reset are in auth/).
import { accountApi } from "../shared/account-api";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { ApiError } from "../shared/api";
import { useSession } from "../shared/session";
import { A, Alert, Field, Spinner, useTitle } from "../shared/ui";
import { MAX_NAME, MESSAGES, accountPasswordProblem, emailProblem } from "../../../src/contract/form-rules";
import { safeNext, useFormErrors } from "./form-errors";
import { InstanceButton, SsoContinue, SsoSignIn, typedBeforeSso, useSsoOptions, type SsoOptions } from "./SsoEntry";
import { SecondStep } from "./SecondStep";
import { PasskeySignIn } from "./PasskeySignIn";

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
  // Not useSubmit: busy stays on after a success, so that `user && !busy` waits for the navigation to `next`.
  const [busy, setBusy] = useState(false);
  const f = useFormErrors();
  const sso = useSsoOptions();

  if (user && !busy) return <Navigate to={next ?? "/app"} replace />;
  if (sso?.password_sign_up === false) return <SignupOff options={sso} />;

  async function submit(e: FormEvent) {
    e.preventDefault();
    f.clear();
    // Every field at once, with the server's messages.
    const problems = [
      { field: "email", message: emailProblem(email) },
      { field: "password", message: accountPasswordProblem(password) },
      { field: "name", message: name.trim().length > MAX_NAME ? MESSAGES.nameLong : null },
    ].filter((p): p is { field: string; message: string } => p.message !== null);
    if (problems.length) {
      f.take(new ApiError(400, "invalid_request", "", problems));
      return;
    }
    setBusy(true);
    try {
      const u = await accountApi.signup(email.trim(), password, name.trim() || undefined);
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
        <SignupFields email={email} setEmail={setEmail} name={name} setName={setName} password={password} setPassword={setPassword} errors={f.fieldErrors} />
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
  // What was typed before a single sign-on that came back refused (an address no connection serves).
  const [email, setEmail] = useState(() => typedBeforeSso(params));
  const [password, setPassword] = useState("");
  // Not useSubmit: busy stays on after a success, so that `user && !busy` waits for the navigation to `next`.
  const [busy, setBusy] = useState(false);
  const [ssoRequired, setSsoRequired] = useState(false);
  const [secondStep, setSecondStep] = useState<string[] | null>(null);
  const f = useFormErrors();
  const sso = useSsoOptions();

  if (user && !busy) return <Navigate to={next} replace />;

  async function submit(e: FormEvent) {
    e.preventDefault();
    f.clear();
    setBusy(true);
    try {
      const r = await accountApi.login(email.trim(), password);
      if (!("user" in r)) {
        setSecondStep(r.methods);
        setBusy(false);
        return;
      }
      setUser(r.user);
      navigate(next, { replace: true });
    } catch (err) {
      setSsoRequired(err instanceof ApiError && err.code === "sso_required");
      f.take(err);
      setBusy(false);
    }
  }

  if (secondStep)
    return (
      <SecondStepCard
        methods={secondStep}
        onSignedIn={(u) => (setBusy(true), setUser(u), navigate(next, { replace: true }))}
        onRestart={() => (setSecondStep(null), setPassword(""))}
      />
    );

  return (
    <section className="auth-card card">
      <h1>Sign in</h1>
      <SsoSignIn options={sso} params={params} />
      <form onSubmit={submit} noValidate data-testid="login-form">
        <LoginFields email={email} setEmail={setEmail} password={password} setPassword={setPassword} errors={f.fieldErrors} />
        {f.error ? <Alert testId="login-error">{f.error}</Alert> : null}
        <button type="submit" className="btn btn-primary btn-block" disabled={busy} data-testid="login-submit">
          {busy ? "Signing in…" : "Sign in"}
        </button>
        {/* Only where an organisation's connection can take the address (or the account must use one). */}
        {sso?.email_sso || ssoRequired ? (
          <SsoContinue email={email} onMissing={(message) => f.take(new ApiError(400, "invalid_request", "", [{ field: "email", message }]))} />
        ) : null}
      </form>
      <PasskeySignIn onSignedIn={(u) => (setUser(u), navigate(next, { replace: true }))} />
      <p className="auth-alt">
        <A to="/app/reset-password">Forgot your password?</A>
        <span className="sep">·</span>
        No account yet? <A to="/app/signup">Sign up</A>
      </p>
    </section>
  );
}

/** Sign-up for an instance that creates accounts only through single sign-on: the organisation's button. */
function SignupOff({ options }: { options: SsoOptions }) {
  return (
    <section className="auth-card card" data-testid="signup-off">
      <h1>Create your account</h1>
      <p className="muted">Accounts on this service are created when you first sign in through your organisation.</p>
      <InstanceButton options={options} />
    </section>
  );
}

type Setter = (v: string) => void;

/** The sign-up form's fields: email, an optional name, a new password. */
function SignupFields(props: {
  email: string;
  setEmail: Setter;
  name: string;
  setName: Setter;
  password: string;
  setPassword: Setter;
  errors: Record<string, string>;
}) {
  const { email, setEmail, name, setName, password, setPassword, errors } = props;
  return (
    <>
      <Field id="signup-email" label="Email" error={errors.email}>
        <input
          id="signup-email"
          data-testid="signup-email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </Field>
      <Field id="signup-name" label="Name (optional)" error={errors.name}>
        <input id="signup-name" data-testid="signup-name" type="text" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field id="signup-password" label="Password" error={errors.password} hint="10 to 200 characters.">
        <input
          id="signup-password"
          data-testid="signup-password"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          maxLength={200}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
    </>
  );
}

/** The sign-in form's fields: email and password. */
function LoginFields(props: { email: string; setEmail: Setter; password: string; setPassword: Setter; errors: Record<string, string> }) {
  const { email, setEmail, password, setPassword, errors } = props;
  return (
    <>
      <Field id="login-email" label="Email" error={errors.email}>
        <input
          id="login-email"
          data-testid="login-email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </Field>
      <Field id="login-password" label="Password" error={errors.password}>
        <input
          id="login-password"
          data-testid="login-password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
    </>
  );
}

/** Sign-in's second step (a code, a passkey or a recovery code) on a card of its own. */
function SecondStepCard(props: Parameters<typeof SecondStep>[0]) {
  return (
    <section className="auth-card card">
      <h1>Sign in</h1>
      <SecondStep {...props} />
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
