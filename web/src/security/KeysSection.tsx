// API keys (the Security page's #api-keys): create (the secret shown once), list with their scopes, expiry and last use,
// revoke; the API reference at /docs.
import { keysApi } from "./keys-api";
import { KeyForm } from "./KeyForm";
import { useEffect, useState } from "react";
import { ApiError } from "../shared/api";
import type { ApiKey } from "@contract/api-keys";
import { useSession } from "../shared/session";
import { PlanGate, can } from "../shared/plan-gate";
import { ConfirmDialog, CopyButton, DataTable, Spinner, errorMessage, formatDate, formatDateTime, useConfirmedDelete } from "../shared/ui";

function isExpired(k: ApiKey): boolean {
  return k.expires_at !== null && Date.parse(k.expires_at) <= Date.now();
}

function KeyStatus({ k }: { k: ApiKey }) {
  if (k.revoked_at) return <span className="badge badge-muted">Revoked {formatDate(k.revoked_at)}</span>;
  if (isExpired(k))
    return (
      <span className="badge badge-warn" data-testid="key-expired">
        Expired
      </span>
    );
  return <span className="badge badge-ok">Active</span>;
}

// eslint-disable-next-line max-lines-per-function -- the key list, the creation form and the secret shown once share the section's state.
export function KeysSection() {
  const { user } = useSession();
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [unavailable, setUnavailable] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);

  async function load() {
    try {
      setKeys(await keysApi.listKeys());
      setUnavailable(null);
    } catch (e) {
      setKeys([]);
      setUnavailable(
        e instanceof ApiError && e.httpStatus === 404 ? "API keys are not available on this server." : `The API keys could not be loaded: ${errorMessage(e)}`,
      );
    }
  }
  useEffect(() => {
    void load();
  }, []);

  const revoking = useConfirmedDelete(async (k: ApiKey) => {
    await keysApi.revokeKey(k.id);
    await load();
  });
  const toRevoke = revoking.item;

  return (
    <section id="api-keys" tabIndex={-1} className="card section" data-testid="section-keys" aria-labelledby="h-keys">
      <h2 id="h-keys">API keys</h2>
      <p className="muted">
        Keys authenticate the external API (<code>Authorization: Bearer …</code>): each does only what its scopes allow, and the default,{" "}
        <code>links:create</code>, is the creation API (<code>POST /api/external-create.php</code>). Keep them on your server: never in web pages, public
        JavaScript or links.
      </p>
      <p className="muted small">
        <a href="/docs" data-testid="keys-api-docs">
          The API reference
        </a>
        : every route with its fields, answers and scopes.
      </p>

      {secret ? (
        <div className="secret-box" role="status" data-testid="key-secret-box">
          <p>
            <strong>Your new key “{secret.name}”.</strong> Copy it now: it is shown only once and cannot be recovered. Store it on your server only.
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
          {/* Keys can be made on any plan; the external API they open answers plan_required below Business. */}
          {user && !can(user.plan, "external_api") ? (
            <PlanGate feature="Creating links with an API key" capability="external_api" testId="keys-plan-gate" />
          ) : null}
          <KeyForm
            onCreated={async (created) => {
              setSecret(created);
              await load();
            }}
          />
          <DataTable
            className="table table-cards keys-table"
            testId="keys-table"
            frame="none"
            columns={["Key", "Scopes", "Expires", "Last used", "Status"]}
            actions
            empty={
              <p className="placeholder" data-testid="keys-empty">
                No API keys yet.
              </p>
            }
          >
            {keys.map((k) => (
              <tr key={k.id} data-testid="key-row" className={k.revoked_at ? "row-muted" : ""}>
                <td>
                  <div className="key-name">{k.name}</div>
                  <div className="muted key-meta">
                    <code>{k.prefix}…</code> created {formatDate(k.created_at)}
                  </div>
                </td>
                <td data-label="Scopes" data-testid="key-scopes">
                  <span className="key-scope-list">
                    {k.scopes.map((s) => (
                      <code key={s}>{s}</code>
                    ))}
                  </span>
                </td>
                <td className="key-when" data-label="Expires" data-testid="key-expires-at">
                  {k.expires_at ? formatDate(k.expires_at) : "Never"}
                </td>
                <td data-label="Last used" data-testid="key-last-used">
                  {k.last_used_at ? formatDateTime(k.last_used_at) : "Never"}
                </td>
                <td data-label="Status">
                  <KeyStatus k={k} />
                </td>
                <td className="right">
                  {!k.revoked_at ? (
                    <button type="button" className="btn btn-danger-ghost btn-sm" data-testid="key-revoke" onClick={() => revoking.ask(k)}>
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
      <ConfirmDialog {...revoking.dialog} title="Revoke this key?" confirmLabel="Revoke key" danger>
        <p>
          Requests using <strong>{toRevoke?.name}</strong> (<code>{toRevoke?.prefix}…</code>) will be rejected from now on. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
