// Two-factor sign-in: set-up with the QR code (the server's SVG shown as an image, never as markup), the
// first code, the recovery codes shown once (copy or download), new codes and turning it off.
import { useCallback, useEffect, useState } from "react";
import type { TotpSetupReply, TwoFactorStatusReply } from "@contract/security";
import { securityApi } from "./security-api";
import { Alert, CopyButton, Field, Spinner, errorMessage } from "../shared/ui";
import { useSubmit } from "../shared/submit";

function RecoveryCodes({ codes }: { codes: string[] }) {
  const text = codes.join("\n");
  const href = `data:text/plain;charset=utf-8,${encodeURIComponent(`snip recovery codes (each works once)\n\n${text}\n`)}`;
  return (
    <div className="recovery-codes" data-testid="recovery-codes">
      <Alert kind="warning">Keep these codes somewhere safe: each signs you in once if you lose your phone. They are shown only now.</Alert>
      <ol className="code-grid">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <div className="row-actions">
        <CopyButton text={text} label="Copy codes" testId="recovery-copy" />
        <a className="btn btn-secondary btn-sm" href={href} download="snip-recovery-codes.txt" data-testid="recovery-download">
          Download
        </a>
      </div>
    </div>
  );
}

function SetupForm({ setup, onEnabled }: { setup: TotpSetupReply; onEnabled: (codes: string[]) => void }) {
  const [code, setCode] = useState("");
  const { busy, error, onSubmit } = useSubmit(async () => onEnabled(await securityApi.enable(code.trim())));
  return (
    <form onSubmit={onSubmit} data-testid="totp-setup">
      <p>Scan this code with an authenticator app, or type the key into it; then enter the 6-digit code it shows.</p>
      <img
        className="totp-qr"
        data-testid="totp-qr"
        alt="QR code for your authenticator app"
        width={200}
        height={200}
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qr_svg)}`}
      />
      <p className="small">
        Key: <code data-testid="totp-secret">{setup.secret}</code>
      </p>
      <Field id="totp-code" label="Code from the app">
        <input
          id="totp-code"
          data-testid="totp-code"
          type="text"
          className="code-input"
          inputMode="numeric"
          pattern="[0-9]{6}"
          autoComplete="one-time-code"
          maxLength={6}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
      </Field>
      {error ? <Alert testId="totp-error">{error}</Alert> : null}
      <button type="submit" className="btn btn-primary" disabled={busy} data-testid="totp-enable">
        Turn on
      </button>
    </form>
  );
}

/** Password and code, for turning off or for new recovery codes. */
function ConfirmForm({
  action,
  label,
  testId,
  onDone,
}: {
  action: (pw: string, code: string) => Promise<unknown>;
  label: string;
  testId: string;
  onDone: (r: unknown) => void;
}) {
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const { busy, error, onSubmit } = useSubmit(async () => onDone(await action(password, code.trim())));
  return (
    <form onSubmit={onSubmit} className="confirm-form" data-testid={testId}>
      <Field id={`${testId}-password`} label="Password">
        <input id={`${testId}-password`} type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
      <Field id={`${testId}-code`} label="Code from the app (or a recovery code)">
        <input
          id={`${testId}-code`}
          type="text"
          className="code-input code-input-long"
          autoComplete="one-time-code"
          spellCheck={false}
          autoCapitalize="off"
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
      </Field>
      {error ? <Alert>{error}</Alert> : null}
      <button type="submit" className="btn btn-secondary" disabled={busy}>
        {label}
      </button>
    </form>
  );
}

export function TwoFactorSection() {
  const [status, setStatus] = useState<TwoFactorStatusReply | null>(null);
  const [setup, setSetup] = useState<TotpSetupReply | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [form, setForm] = useState<"off" | "codes" | null>(null);
  // One message above the section: the status that could not be read, or the set-up that could not start.
  const { busy, error, setError, run: start } = useSubmit(async () => setSetup(await securityApi.setup()));
  const load = useCallback(() => {
    securityApi.status().then(setStatus, (e: unknown) => setError(errorMessage(e)));
  }, [setError]);
  useEffect(load, [load]);

  if (!status) return <Spinner />;
  return (
    <section className="card section" data-testid="section-2fa" aria-labelledby="h-2fa">
      <h2 id="h-2fa">Two-factor sign-in</h2>
      {error ? <Alert>{error}</Alert> : null}
      {status.required && !status.totp_enabled ? (
        <Alert kind="warning" testId="2fa-required">
          Your account needs two-factor sign-in: set it up to continue.
        </Alert>
      ) : null}
      {codes ? <RecoveryCodes codes={codes} /> : null}
      {status.totp_enabled ? (
        <>
          <p data-testid="2fa-on">On: signing in asks for a code from your authenticator app. {status.recovery_codes_left} recovery codes left.</p>
          <div className="row-actions">
            <button type="button" className="btn btn-secondary btn-sm" data-testid="2fa-new-codes" onClick={() => setForm(form === "codes" ? null : "codes")}>
              New recovery codes
            </button>
            <button type="button" className="btn btn-danger btn-sm" data-testid="2fa-disable" onClick={() => setForm(form === "off" ? null : "off")}>
              Turn off
            </button>
          </div>
          {form === "codes" ? (
            <ConfirmForm
              testId="2fa-codes-form"
              label="Make new codes"
              action={securityApi.newRecoveryCodes}
              onDone={(r) => (setCodes(r as string[]), setForm(null), load())}
            />
          ) : null}
          {form === "off" ? (
            <ConfirmForm
              testId="2fa-off-form"
              label="Turn off two-factor sign-in"
              action={securityApi.disable}
              onDone={() => (setCodes(null), setForm(null), load())}
            />
          ) : null}
        </>
      ) : setup ? (
        <SetupForm setup={setup} onEnabled={(c) => (setCodes(c), setSetup(null), load())} />
      ) : (
        <>
          <p>Off. With it on, a stolen password is not enough to sign in: each sign-in also asks for a code from an app on your phone.</p>
          <button type="button" className="btn btn-primary" data-testid="2fa-start" disabled={busy} onClick={() => void start()}>
            Set up two-factor sign-in
          </button>
        </>
      )}
    </section>
  );
}
