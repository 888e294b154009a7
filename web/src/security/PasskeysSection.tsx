// Passkeys: the account's list (name, created, last used), "Add a passkey" through the browser's own prompt,
// and removal with the password.
import { keysApi } from "./keys-api";
import { useEffect, useState } from "react";
import { browserSupportsWebAuthn, WebAuthnError } from "@simplewebauthn/browser";
import { ApiError } from "../shared/api";
import type { Passkey } from "@contract/passkeys";
import { Alert, ConfirmDialog, DataTable, Field, Spinner, errorMessage, formatDate, formatDateTime } from "../shared/ui";
import { fieldOrMessage, useSubmit } from "../shared/submit";

/** What the browser's refusal means to a person (they closed the prompt, or the authenticator has this one). */
function ceremonyError(e: unknown): string {
  if (e instanceof WebAuthnError && e.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED")
    return "This authenticator holds a passkey for your account already.";
  if (e instanceof Error && e.name === "NotAllowedError") return "The passkey prompt was closed or timed out. Nothing was added.";
  return e instanceof ApiError ? (e.fieldErrors().name ?? e.message) : errorMessage(e);
}

// eslint-disable-next-line max-lines-per-function -- the list, the add form and the removal dialog share the section's state.
export function PasskeysSection() {
  const [passkeys, setPasskeys] = useState<Passkey[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [added, setAdded] = useState<string | null>(null);
  const [toRemove, setToRemove] = useState<Passkey | null>(null);
  const [password, setPassword] = useState("");
  const supported = browserSupportsWebAuthn();

  async function load() {
    try {
      setPasskeys(await keysApi.listPasskeys());
      setLoadError(null);
    } catch (e) {
      setPasskeys([]);
      setLoadError(`The passkeys could not be loaded: ${errorMessage(e)}`);
    }
  }
  useEffect(() => {
    void load();
  }, []);

  const {
    busy,
    error,
    onSubmit: add,
  } = useSubmit(async () => {
    setAdded(null);
    const passkey = await keysApi.addPasskey(name.trim() || undefined);
    setAdded(passkey.name);
    setName("");
    await load();
  }, ceremonyError);

  const removing = useSubmit(async (p: Passkey) => {
    await keysApi.removePasskey(p.id, password);
    setToRemove(null);
    await load();
  }, fieldOrMessage("password"));

  return (
    <section className="card section" data-testid="section-passkeys" aria-labelledby="h-passkeys">
      <h2 id="h-passkeys">Passkeys</h2>
      <p className="muted">
        Sign in with your fingerprint, face, screen lock or a security key instead of your password. A passkey works only on this site, so a phishing page
        cannot use it.
      </p>
      {!supported ? <Alert kind="info">This browser cannot create passkeys. You can still sign in with your password.</Alert> : null}
      <form onSubmit={add} className="inline-form" noValidate>
        <Field id="passkey-name" label="Passkey name (optional)" error={error ?? undefined} className="grow">
          <input
            id="passkey-name"
            data-testid="passkey-name"
            type="text"
            placeholder="e.g. Work laptop"
            maxLength={64}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </Field>
        <button type="submit" className="btn btn-primary" disabled={busy || !supported} data-testid="passkey-add">
          {busy ? "Waiting for your passkey…" : "Add a passkey"}
        </button>
      </form>
      {added ? (
        <Alert kind="success" testId="passkey-added">
          Passkey “{added}” added. You can sign in with it now.
        </Alert>
      ) : null}
      {passkeys === null ? (
        <Spinner label="Loading passkeys…" />
      ) : loadError ? (
        <div className="placeholder">{loadError}</div>
      ) : (
        <DataTable
          testId="passkeys-table"
          frame="none"
          columns={["Name", "Created", "Last used"]}
          actions
          empty={
            <p className="placeholder" data-testid="passkeys-empty">
              No passkeys yet.
            </p>
          }
        >
          {passkeys.map((p) => (
            <tr key={p.id} data-testid="passkey-row">
              <td>
                {p.name}
                {p.synced ? <span className="badge badge-muted"> Synced</span> : null}
              </td>
              <td>{formatDate(p.created_at)}</td>
              <td data-testid="passkey-last-used">{p.last_used_at ? formatDateTime(p.last_used_at) : "Never"}</td>
              <td className="right">
                <button
                  type="button"
                  className="btn btn-danger-ghost btn-sm"
                  data-testid="passkey-remove"
                  onClick={() => {
                    setPassword("");
                    removing.setError(null);
                    setToRemove(p);
                  }}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ConfirmDialog
        open={!!toRemove}
        title="Remove this passkey?"
        confirmLabel="Remove passkey"
        danger
        busy={removing.busy}
        error={removing.error}
        onConfirm={() => (toRemove ? void removing.run(toRemove) : undefined)}
        onCancel={() => setToRemove(null)}
        confirmDisabled={!password}
      >
        <p>
          <strong>{toRemove?.name}</strong> will no longer sign you in. Enter your password to confirm. Delete it from your device or password manager too.
        </p>
        <Field id="passkey-remove-password" label="Password">
          <input
            id="passkey-remove-password"
            data-testid="passkey-remove-password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
      </ConfirmDialog>
    </section>
  );
}
