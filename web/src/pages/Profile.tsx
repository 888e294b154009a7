// Profile: picture, name, plan, password, API keys, and a separate danger zone.
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { api, ApiError, planLabel, type ApiKey, type User } from "../api";
import { useSession } from "../session";
import { TeamSummary } from "./Team";
import { Alert, ConfirmDialog, CopyButton, Field, Spinner, errorMessage, formatDate, formatDateTime, useTitle } from "../ui";

const MAX_PICTURE = 2 * 1024 * 1024;
const PICTURE_TYPES = ["image/png", "image/jpeg", "image/webp"];

export function ProfilePage() {
  useTitle("Profile");
  const { user, setUser } = useSession();

  // Refresh the user from /api/profile once (the session copy may be older).
  useEffect(() => {
    api
      .profile()
      .then((u) => u && setUser(u))
      .catch(() => undefined);
  }, [setUser]);

  if (!user) return <Spinner />;
  return (
    <div className="profile-page narrow">
      <h1>Profile</h1>
      <PictureSection user={user} onUser={setUser} />
      <NameSection user={user} onUser={setUser} />
      <PlanSection user={user} />
      <PasswordSection />
      <KeysSection />
      <TeamSummary />
      <DangerZone user={user} />
    </div>
  );
}

function initials(user: User): string {
  const src = (user.name || user.email).trim();
  const parts = src.split(/[\s@._-]+/).filter(Boolean);
  const s = parts.length >= 2 ? `${parts[0]![0]}${parts[1]![0]}` : src.slice(0, 2);
  return s.toUpperCase();
}

/** Adds a cache-busting `v` after an upload unless the server already versions the address. */
function withVersion(url: string, version: number): string {
  if (!version) return url;
  try {
    const u = new URL(url, window.location.origin);
    if (u.searchParams.has("v")) return url;
    u.searchParams.set("v", String(version));
    return u.origin === window.location.origin ? u.pathname + u.search : u.toString();
  } catch {
    return url;
  }
}

function PictureSection({ user, onUser }: { user: User; onUser: (u: User) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [version, setVersion] = useState(0);
  const [broken, setBroken] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  async function upload(file: File) {
    setError(null);
    setDone(false);
    if (!PICTURE_TYPES.includes(file.type)) {
      setError("Choose a PNG, JPEG or WebP image.");
      return;
    }
    if (file.size > MAX_PICTURE) {
      setError("The picture is larger than 2 MiB. Choose a smaller one.");
      return;
    }
    setBusy(true);
    try {
      const r = await api.uploadPicture(file);
      const u = r.user ?? r.profile;
      if (u) onUser(u);
      else if (r.picture_url) onUser({ ...user, picture_url: r.picture_url });
      else onUser(await api.profile());
      setVersion(Date.now());
      setBroken(false);
      setDone(true);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
      if (input.current) input.current.value = "";
    }
  }

  const src = user.picture_url && !broken ? withVersion(user.picture_url, version) : null;
  return (
    <section className="card section" data-testid="section-picture" aria-labelledby="h-picture">
      <h2 id="h-picture">Picture</h2>
      <div className="picture-row">
        {src ? (
          <img className="avatar" src={src} alt="Your profile picture" width={72} height={72} onError={() => setBroken(true)} data-testid="avatar-image" />
        ) : (
          <div className="avatar avatar-initials" aria-label="No picture yet" data-testid="avatar-initials">
            {initials(user)}
          </div>
        )}
        <div>
          <input
            ref={input}
            id="picture-file"
            data-testid="picture-file"
            className="visually-hidden"
            type="file"
            accept="image/png,image/jpeg,image/webp"
            disabled={busy}
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void upload(f);
            }}
          />
          <label htmlFor="picture-file" className="btn btn-secondary" aria-disabled={busy}>
            {busy ? "Uploading…" : user.picture_url ? "Change picture" : "Upload picture"}
          </label>
          <p className="field-hint">PNG, JPEG or WebP, up to 2 MiB.</p>
        </div>
      </div>
      {error ? <Alert testId="picture-error">{error}</Alert> : null}
      {done ? <Alert kind="success" testId="picture-done">Picture updated.</Alert> : null}
    </section>
  );
}

function NameSection({ user, onUser }: { user: User; onUser: (u: User) => void }) {
  const [name, setName] = useState(user.name ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(false);
    try {
      const u = await api.updateProfile(name.trim());
      onUser(u ?? { ...user, name: name.trim() });
      setDone(true);
    } catch (err) {
      setError(err instanceof ApiError ? (err.fieldErrors().name ?? err.message) : errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card section" data-testid="section-name" aria-labelledby="h-name">
      <h2 id="h-name">Name</h2>
      <form onSubmit={submit} className="inline-form" noValidate>
        <Field id="profile-name" label="Display name" error={error ?? undefined} className="grow">
          <input id="profile-name" data-testid="profile-name" type="text" autoComplete="name" value={name} maxLength={200} onChange={(e) => { setName(e.target.value); setDone(false); }} />
        </Field>
        <button type="submit" className="btn btn-primary" disabled={busy || name.trim() === (user.name ?? "")} data-testid="profile-name-submit">
          {busy ? "Saving…" : "Save"}
        </button>
      </form>
      <p className="muted small">Email: {user.email}</p>
      {done ? <Alert kind="success" testId="name-done">Name saved.</Alert> : null}
    </section>
  );
}

function PlanSection({ user }: { user: User }) {
  const [busy, setBusy] = useState(false);
  const [msg, setMsg] = useState<{ kind: "success" | "error"; text: string } | null>(null);
  async function resend() {
    setBusy(true);
    setMsg(null);
    try {
      await api.resendVerification();
      setMsg({ kind: "success", text: `We sent a new verification link to ${user.email}.` });
    } catch (e) {
      setMsg({ kind: "error", text: errorMessage(e) });
    } finally {
      setBusy(false);
    }
  }
  return (
    <section className="card section" data-testid="section-plan" aria-labelledby="h-plan">
      <h2 id="h-plan">Plan and subscription</h2>
      <dl className="facts">
        <div>
          <dt>Plan</dt>
          <dd>
            <span className={`badge badge-plan plan-${user.plan}`} data-testid="plan-name">
              {planLabel(user.plan)}
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
                <button type="button" className="btn btn-secondary btn-sm" onClick={resend} disabled={busy} data-testid="resend-verification">
                  {busy ? "Sending…" : "Resend verification email"}
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
      {msg ? <Alert kind={msg.kind}>{msg.text}</Alert> : null}
      {user.status === "suspended" ? <Alert kind="warning">Your account is suspended: you can look around but not create or change links.</Alert> : null}
    </section>
  );
}

function PasswordSection() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [busy, setBusy] = useState(false);
  const [fe, setFe] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setDone(false);
    const local: Record<string, string> = {};
    if (!current) local.current_password = "Enter your current password.";
    if (next.length < 10) local.new_password = "Use at least 10 characters.";
    else if (next !== confirm) local.confirm = "The two passwords differ.";
    setFe(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    try {
      await api.changePassword(current, next);
      setDone(true);
      setCurrent("");
      setNext("");
      setConfirm("");
    } catch (err) {
      if (err instanceof ApiError) {
        const { fields, general } = err.forFields(["current_password", "new_password"]);
        if (err.code === "invalid_credentials" && !fields.current_password) {
          setFe({ current_password: err.message });
        } else {
          setFe(fields);
          setError(general);
        }
      } else setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card section" data-testid="section-password" aria-labelledby="h-password">
      <h2 id="h-password">Password</h2>
      <form onSubmit={submit} noValidate data-testid="password-form">
        <Field id="current-password" label="Current password" error={fe.current_password}>
          <input id="current-password" data-testid="current-password" type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
        </Field>
        <div className="grid-2">
          <Field id="new-password" label="New password" error={fe.new_password} hint="10 to 200 characters.">
            <input id="new-password" data-testid="new-password" type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />
          </Field>
          <Field id="confirm-password" label="Repeat the new password" error={fe.confirm}>
            <input id="confirm-password" data-testid="confirm-password" type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          </Field>
        </div>
        {error ? <Alert testId="password-error">{error}</Alert> : null}
        {done ? <Alert kind="success" testId="password-done">Your password has been changed.</Alert> : null}
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="password-submit">
          {busy ? "Changing…" : "Change password"}
        </button>
      </form>
    </section>
  );
}

function KeysSection() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [unavailable, setUnavailable] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const [toRevoke, setToRevoke] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState(false);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  async function load() {
    try {
      setKeys(await api.listKeys());
      setUnavailable(null);
    } catch (e) {
      setKeys([]);
      setUnavailable(e instanceof ApiError && e.httpStatus === 404 ? "API keys are not available on this server." : `The API keys could not be loaded: ${errorMessage(e)}`);
    }
  }
  useEffect(() => {
    void load();
  }, []);

  async function create(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const r = await api.createKey(name.trim());
      setSecret({ name: r.key?.name ?? name.trim(), secret: r.secret });
      setName("");
      await load();
    } catch (err) {
      setError(err instanceof ApiError ? (err.fieldErrors().name ?? err.message) : errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  async function revoke() {
    if (!toRevoke) return;
    setRevoking(true);
    setRevokeError(null);
    try {
      await api.revokeKey(toRevoke.id);
      setToRevoke(null);
      await load();
    } catch (e) {
      setRevokeError(errorMessage(e));
    } finally {
      setRevoking(false);
    }
  }

  return (
    <section className="card section" data-testid="section-keys" aria-labelledby="h-keys">
      <h2 id="h-keys">API keys</h2>
      <p className="muted">
        Keys authenticate the external creation API (<code>POST /api/external-create.php</code> with <code>Authorization: Bearer …</code>).
        Keep them on your server: never in web pages, public JavaScript or links.
      </p>

      {secret ? (
        <div className="secret-box" role="status" data-testid="key-secret-box">
          <p>
            <strong>Your new key “{secret.name}”.</strong> Copy it now: it is shown only once and cannot be recovered. Store it on your
            server only.
          </p>
          <div className="secret-row">
            <code data-testid="key-secret">{secret.secret}</code>
            <CopyButton text={secret.secret} testId="key-secret-copy" className="btn btn-primary btn-sm" />
          </div>
          <button type="button" className="btn-link" onClick={() => setSecret(null)}>
            I have stored it, hide it
          </button>
        </div>
      ) : null}

      {keys === null ? (
        <Spinner label="Loading keys…" />
      ) : unavailable ? (
        <div className="placeholder" data-testid="keys-unavailable">
          {unavailable}
        </div>
      ) : (
        <>
          <form onSubmit={create} className="inline-form" noValidate>
            <Field id="key-name" label="New key name" error={error ?? undefined} className="grow">
              <input id="key-name" data-testid="key-name" type="text" placeholder="e.g. Production server" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
            </Field>
            <button type="submit" className="btn btn-primary" disabled={busy || !name.trim()} data-testid="key-create">
              {busy ? "Creating…" : "Create key"}
            </button>
          </form>
          {keys.length === 0 ? (
            <p className="placeholder" data-testid="keys-empty">
              No API keys yet.
            </p>
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="keys-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Prefix</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {keys.map((k) => (
                    <tr key={k.id} data-testid="key-row" className={k.revoked_at ? "row-muted" : ""}>
                      <td>{k.name}</td>
                      <td>
                        <code>{k.prefix}…</code>
                      </td>
                      <td>{formatDate(k.created_at)}</td>
                      <td>{k.last_used_at ? formatDateTime(k.last_used_at) : "Never"}</td>
                      <td>{k.revoked_at ? <span className="badge badge-muted">Revoked {formatDate(k.revoked_at)}</span> : <span className="badge badge-ok">Active</span>}</td>
                      <td className="right">
                        {!k.revoked_at ? (
                          <button type="button" className="btn btn-danger-ghost btn-sm" data-testid="key-revoke" onClick={() => { setRevokeError(null); setToRevoke(k); }}>
                            Revoke
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      <ConfirmDialog open={!!toRevoke} title="Revoke this key?" confirmLabel="Revoke key" danger busy={revoking} error={revokeError} onConfirm={revoke} onCancel={() => setToRevoke(null)}>
        <p>
          Requests using <strong>{toRevoke?.name}</strong> (<code>{toRevoke?.prefix}…</code>) will be rejected from now on. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function DangerZone({ user }: { user: User }) {
  const { setUser, refresh } = useSession();
  const navigate = useNavigate();
  const [cancelOpen, setCancelOpen] = useState(false);
  const [cancelBusy, setCancelBusy] = useState(false);
  const [cancelError, setCancelError] = useState<string | null>(null);
  const [cancelDone, setCancelDone] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [password, setPassword] = useState("");
  const [deleteBusy, setDeleteBusy] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const paid = user.plan !== "free";

  async function cancelSubscription() {
    setCancelBusy(true);
    setCancelError(null);
    try {
      const r = await api.cancelSubscription();
      if (r.user) setUser(r.user);
      else await refresh();
      setCancelOpen(false);
      setCancelDone(true);
    } catch (e) {
      setCancelError(errorMessage(e));
    } finally {
      setCancelBusy(false);
    }
  }

  async function deleteAccount() {
    if (!password) {
      setDeleteError("Enter your password to confirm.");
      return;
    }
    setDeleteBusy(true);
    setDeleteError(null);
    try {
      await api.deleteAccount(password);
      setDeleteOpen(false);
      navigate("/", { replace: true });
      setUser(null);
      await refresh();
    } catch (e) {
      setDeleteError(e instanceof ApiError ? (e.fieldErrors().password ?? e.message) : errorMessage(e));
    } finally {
      setDeleteBusy(false);
    }
  }

  return (
    <section className="danger-zone" data-testid="danger-zone" aria-labelledby="h-danger">
      <h2 id="h-danger">Danger zone</h2>
      <div className="danger-item">
        <div>
          <h3>Cancel subscription</h3>
          <p className="muted small">
            {paid ? `Your account goes back to the free plan. Pro features (expiration, click limits, advanced statistics${user.plan !== "pro" ? ", bulk creation, team, domains, API, webhooks" : ""}) stop.` : "You are on the free plan: there is no subscription to cancel."}
          </p>
          {cancelDone ? <Alert kind="success">Your subscription has been cancelled.</Alert> : null}
        </div>
        <button type="button" className="btn btn-danger-ghost" disabled={!paid} onClick={() => { setCancelError(null); setCancelOpen(true); }} data-testid="cancel-subscription">
          Cancel subscription
        </button>
      </div>
      <div className="danger-item">
        <div>
          <h3>Delete account</h3>
          <p className="muted small">Deletes your account, your links, their statistics and your API keys. Short links stop working. This cannot be undone.</p>
        </div>
        <button type="button" className="btn btn-danger" onClick={() => { setPassword(""); setDeleteError(null); setDeleteOpen(true); }} data-testid="delete-account">
          Delete account
        </button>
      </div>

      <ConfirmDialog open={cancelOpen} title="Cancel your subscription?" confirmLabel="Cancel subscription" danger busy={cancelBusy} error={cancelError} onConfirm={cancelSubscription} onCancel={() => setCancelOpen(false)}>
        <p>Your {planLabel(user.plan)} plan ends and your account moves to the free plan.</p>
      </ConfirmDialog>
      <ConfirmDialog open={deleteOpen} title="Delete your account?" confirmLabel="Delete my account" danger busy={deleteBusy} error={deleteError} onConfirm={deleteAccount} onCancel={() => setDeleteOpen(false)} confirmDisabled={!password}>
        <p>This deletes everything and cannot be undone. Enter your password to confirm.</p>
        <Field id="delete-password" label="Password">
          <input id="delete-password" data-testid="delete-password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
      </ConfirmDialog>
    </section>
  );
}
