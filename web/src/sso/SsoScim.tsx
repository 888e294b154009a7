// The SCIM section of the single sign-on page (docs/scim.md): the base URL to give the identity provider, the bearer
// token (made here, shown once with a copy button; replacing it stops the old one at once), when it was made, and
// revocation.
import { useEffect, useState } from "react";
import type { ScimTokenReply } from "@contract/scim";
import { Alert, ConfirmDialog, CopyButton, Spinner, errorMessage } from "../shared/ui";
import { useSubmit } from "../shared/submit";
import { formatDateTime } from "../shared/dates";
import { scimApi } from "./sso-api";

type ScimState = ScimTokenReply["scim"];

export function SsoScim() {
  const [state, setState] = useState<ScimState | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [token, setToken] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<"replace" | "revoke" | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    scimApi.state().then(setState, (e) => setLoadError(errorMessage(e)));
  }, []);

  const issue = useSubmit(async () => {
    setNotice(null);
    const made = await scimApi.issue();
    setState({ base_url: made.base_url, token_set: made.token_set, token_created_at: made.token_created_at });
    setToken(made.token);
    setConfirm(null);
  });
  const revoke = useSubmit(async () => {
    await scimApi.revoke();
    setState((s) => (s ? { ...s, token_set: false, token_created_at: null } : s));
    setToken(null);
    setConfirm(null);
    setNotice("SCIM token revoked: your identity provider's next request is refused.");
  });

  return (
    <section className="card stack scim" aria-labelledby="scim-title" data-testid="sso-scim">
      <h2 id="scim-title">Provisioning (SCIM 2.0)</h2>
      <p className="muted">
        Your identity provider (Okta, Entra ID, OneLogin, JumpCloud) creates, updates and removes your team&apos;s members. Groups named <code>admin</code>,{" "}
        <code>member</code> or <code>viewer</code> give that role; a deactivated person leaves the team at once.
      </p>
      {loadError ? <Alert testId="scim-load-error">{loadError}</Alert> : null}
      {!state && !loadError ? <Spinner label="Loading SCIM…" /> : null}
      {state ? (
        <>
          <div className="saml-value">
            <div className="muted small">SCIM base URL (Tenant URL, SCIM connector base URL)</div>
            <div className="row gap saml-value-row">
              <code data-testid="scim-base-url">{state.base_url}</code>
              <CopyButton text={state.base_url} testId="scim-base-url-copy" />
            </div>
          </div>
          <p data-testid="scim-token-state">
            {state.token_set && state.token_created_at ? (
              <>Token made {formatDateTime(state.token_created_at)}. It is not shown again; replace it if it is lost.</>
            ) : (
              <>No token yet: your identity provider cannot provision anyone until you make one.</>
            )}
          </p>
          {token ? <ScimTokenShown token={token} /> : null}
          {notice ? (
            <Alert kind="info" testId="scim-notice">
              {notice}
            </Alert>
          ) : null}
          {issue.error && !confirm ? <Alert testId="scim-error">{issue.error}</Alert> : null}
          <div className="row gap">
            {state.token_set ? (
              <>
                <button type="button" className="btn btn-secondary" onClick={() => setConfirm("replace")} data-testid="scim-replace">
                  Replace token
                </button>
                <button type="button" className="btn btn-danger-ghost" onClick={() => setConfirm("revoke")} data-testid="scim-revoke">
                  Revoke token
                </button>
              </>
            ) : (
              <button type="button" className="btn btn-primary" disabled={issue.busy} onClick={() => void issue.run()} data-testid="scim-make">
                {issue.busy ? "Making…" : "Make a SCIM token"}
              </button>
            )}
          </div>
        </>
      ) : null}
      <ScimDialogs confirm={confirm} issue={issue} revoke={revoke} onCancel={() => setConfirm(null)} />
    </section>
  );
}

function ScimTokenShown({ token }: { token: string }) {
  return (
    <Alert kind="success" testId="scim-token-made">
      <div className="stack">
        <span>Copy this token into your identity provider now (API token, Secret token). It is shown only this once.</span>
        <div className="row gap saml-value-row">
          <code data-testid="scim-token">{token}</code>
          <CopyButton text={token} testId="scim-token-copy" />
        </div>
      </div>
    </Alert>
  );
}

type Action = { busy: boolean; error: string | null; run: () => Promise<void> };

const DIALOGS = {
  replace: {
    title: "Replace the SCIM token?",
    confirmLabel: "Replace",
    danger: false,
    text: "The current token stops working at once: paste the new one into your identity provider.",
  },
  revoke: {
    title: "Revoke the SCIM token?",
    confirmLabel: "Revoke",
    danger: true,
    text: "Your identity provider can no longer create, change or remove members until you make a new token. Members stay as they are.",
  },
} as const;

function ScimDialogs({ confirm, issue, revoke, onCancel }: { confirm: "replace" | "revoke" | null; issue: Action; revoke: Action; onCancel: () => void }) {
  const which = confirm ?? "replace";
  const action = which === "replace" ? issue : revoke;
  const d = DIALOGS[which];
  return (
    <ConfirmDialog
      open={confirm !== null}
      busy={action.busy}
      error={action.error}
      onCancel={onCancel}
      onConfirm={() => void action.run()}
      title={d.title}
      confirmLabel={d.confirmLabel}
      danger={d.danger}
    >
      <p>{d.text}</p>
    </ConfirmDialog>
  );
}
