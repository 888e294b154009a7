// Webhooks (Business and above): list with kind, state and last delivery; create (secret shown once);
// activate/deactivate, rotate the secret, delete, send a test event, and each webhook's delivery log.
import { useEffect, useState, type FormEvent } from "react";
import { api, ApiError, planAtLeast, type Webhook, type WebhookDelivery, type WebhookKind } from "../api";
import { useSession } from "../session";
import { Alert, ConfirmDialog, CopyButton, EmptyState, Field, Spinner, TableHead, UpgradeHint, errorMessage, formatDateTime, useTitle } from "../ui";

const MAX_WEBHOOKS = 5;

const KINDS: { value: WebhookKind; label: string; hint: string }[] = [
  { value: "custom", label: "Custom (signed JSON)", hint: "Your own HTTPS endpoint; every request is signed with a secret (X-Snip-Signature)." },
  { value: "slack", label: "Slack", hint: "A Slack incoming-webhook URL (https://hooks.slack.com/…)." },
  { value: "discord", label: "Discord", hint: "A Discord channel webhook URL (https://discord.com/api/webhooks/…)." },
  { value: "teams", label: "Microsoft Teams", hint: "A Teams incoming webhook or Workflows URL (…webhook.office.com, …logic.azure.com)." },
];

function kindLabel(kind: WebhookKind): string {
  return KINDS.find((k) => k.value === kind)?.label.replace(" (signed JSON)", "") ?? kind;
}

/** One delivery as a person reads it: "204 · 120 ms" or the reason it failed. */
function DeliveryOutcome({ d }: { d: WebhookDelivery }) {
  const ok = d.error === null;
  return (
    <span className={`badge ${ok ? "badge-ok" : "badge-fail"}`} data-testid="delivery-outcome">
      {ok ? `${d.status_code} OK` : d.error}
      {d.status_code !== null && !ok ? ` (HTTP ${d.status_code})` : ""}
    </span>
  );
}

export function WebhooksPage() {
  useTitle("Webhooks");
  const { user } = useSession();
  const allowed = planAtLeast(user?.plan, "business");
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ name: string; secret: string; rotated: boolean } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [logFor, setLogFor] = useState<Webhook | null>(null);
  const [toDelete, setToDelete] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const [toRotate, setToRotate] = useState<Webhook | null>(null);
  const [logVersion, setLogVersion] = useState(0);

  async function load() {
    setLoadError(null);
    try {
      setHooks(await api.listWebhooks());
    } catch (e) {
      setLoadError(`The webhooks could not be loaded: ${errorMessage(e)}`);
    }
  }
  useEffect(() => {
    if (allowed) void load();
  }, [allowed]);

  async function act(hook: Webhook, fn: () => Promise<void>) {
    setBusyId(hook.id);
    setActionError(null);
    setNotice(null);
    try {
      await fn();
      await load();
    } catch (e) {
      setActionError(errorMessage(e));
    } finally {
      setBusyId(null);
    }
  }

  const sendTest = (hook: Webhook) =>
    act(hook, async () => {
      const d = await api.testWebhook(hook.id);
      setNotice(d.error === null ? `Test event delivered to “${hook.name}”: HTTP ${d.status_code} in ${d.duration_ms} ms.` : `Test event to “${hook.name}” failed: ${d.error}.`);
      setLogFor(hook);
      setLogVersion((v) => v + 1);
    });

  async function remove() {
    if (!toDelete) return;
    setDeleting(true);
    setDeleteError(null);
    try {
      await api.deleteWebhook(toDelete.id);
      if (logFor?.id === toDelete.id) setLogFor(null);
      setToDelete(null);
      await load();
    } catch (e) {
      setDeleteError(errorMessage(e));
    } finally {
      setDeleting(false);
    }
  }

  async function rotate() {
    const hook = toRotate;
    if (!hook) return;
    setToRotate(null);
    await act(hook, async () => {
      const r = await api.rotateWebhookSecret(hook.id);
      setSecret({ name: hook.name, secret: r.secret, rotated: true });
    });
  }

  if (!allowed) {
    return (
      <>
        <h1>Webhooks</h1>
        <div className="card upgrade-card" data-testid="webhooks-upgrade">
          <h2>Hear about every click</h2>
          <p>Webhooks send each click on your links to your own HTTPS endpoint, or to Slack, Discord or Microsoft Teams.</p>
          <p>
            <UpgradeHint plan="Business">Webhooks are available on Business and Enterprise.</UpgradeHint>
          </p>
          <p className="muted small">Your plan: {user?.plan ?? "free"}.</p>
        </div>
      </>
    );
  }

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Webhooks</h1>
          <p className="muted">
            Every click on one of your links is sent to each active webhook: one attempt, two seconds at most, no retry. Check the delivery log: a
            webhook in this list does not prove that anything arrived.
          </p>
        </div>
      </div>

      {secret ? (
        <div className="secret-box" role="status" data-testid="webhook-secret-box">
          <p>
            <strong>
              {secret.rotated ? "The new signing secret" : "The signing secret"} of “{secret.name}”.
            </strong>{" "}
            Copy it now: it is shown only once. Your receiver uses it to check the X-Snip-Signature header
            {secret.rotated ? "; the old secret no longer signs anything." : "."}
          </p>
          <div className="secret-row">
            <code data-testid="webhook-secret">{secret.secret}</code>
            <CopyButton text={secret.secret} testId="webhook-secret-copy" className="btn btn-primary btn-sm" />
          </div>
          <button type="button" className="btn-link" data-testid="webhook-secret-hide" onClick={() => setSecret(null)}>
            I have stored it, hide it
          </button>
        </div>
      ) : null}
      {notice ? <Alert kind="info" testId="webhook-notice">{notice}</Alert> : null}
      {actionError ? <Alert testId="webhook-action-error">{actionError}</Alert> : null}

      {hooks === null && !loadError ? (
        <Spinner label="Loading webhooks…" />
      ) : loadError ? (
        <div className="card" data-testid="webhooks-error">
          <Alert>{loadError}</Alert>
          <button type="button" className="btn btn-secondary" onClick={() => void load()} data-testid="webhooks-retry">
            Try again
          </button>
        </div>
      ) : (
        <>
          <CreateWebhookForm
            count={hooks?.length ?? 0}
            onCreated={async (hook, s) => {
              setNotice(null);
              if (s) setSecret({ name: hook.name, secret: s, rotated: false });
              await load();
            }}
          />
          {hooks && hooks.length === 0 ? (
            <EmptyState title="No webhooks yet" testId="webhooks-empty">
              <p className="muted">Add one above to be told about every click on your links.</p>
            </EmptyState>
          ) : (
            <div className="table-wrap card">
              <table className="table" data-testid="webhooks-table">
                <TableHead columns={["Name", "Kind", "State", "Last delivery", "Dropped"]} actions />
                <tbody>
                  {hooks?.map((h) => (
                    <tr key={h.id} data-testid="webhook-row" className={h.active ? "" : "row-muted"}>
                      <td>
                        <strong data-testid="webhook-name">{h.name}</strong>
                        <div className="muted small webhook-url" title={h.url}>
                          {h.url}
                        </div>
                      </td>
                      <td>
                        <span className="badge" data-testid="webhook-kind">
                          {kindLabel(h.kind)}
                        </span>
                      </td>
                      <td>
                        {h.active ? <span className="badge badge-ok" data-testid="webhook-state">Active</span> : <span className="badge badge-muted" data-testid="webhook-state">Inactive</span>}
                      </td>
                      <td data-testid="webhook-last">
                        {h.last_delivery ? (
                          <>
                            <DeliveryOutcome d={h.last_delivery} />
                            <div className="muted small">{formatDateTime(h.last_delivery.at)}</div>
                          </>
                        ) : (
                          <span className="muted">Never</span>
                        )}
                      </td>
                      <td data-testid="webhook-dropped" title="Clicks not sent because the receiver was too slow to keep up">
                        {h.dropped}
                      </td>
                      <td className="right webhook-actions">
                        <button type="button" className="btn btn-secondary btn-sm" disabled={busyId === h.id} onClick={() => void sendTest(h)} data-testid="webhook-test">
                          {busyId === h.id ? "Working…" : "Send test"}
                        </button>
                        <button type="button" className="btn btn-secondary btn-sm" onClick={() => setLogFor(logFor?.id === h.id ? null : h)} data-testid="webhook-log-toggle" aria-expanded={logFor?.id === h.id}>
                          Log
                        </button>
                        <button
                          type="button"
                          className="btn btn-secondary btn-sm"
                          disabled={busyId === h.id}
                          onClick={() => void act(h, async () => void (await api.updateWebhook(h.id, { active: !h.active })))}
                          data-testid="webhook-toggle"
                        >
                          {h.active ? "Deactivate" : "Activate"}
                        </button>
                        {h.kind === "custom" ? (
                          <button type="button" className="btn btn-secondary btn-sm" disabled={busyId === h.id} onClick={() => setToRotate(h)} data-testid="webhook-rotate">
                            Rotate secret
                          </button>
                        ) : null}
                        <button
                          type="button"
                          className="btn btn-danger-ghost btn-sm"
                          onClick={() => {
                            setDeleteError(null);
                            setToDelete(h);
                          }}
                          data-testid="webhook-delete"
                        >
                          Delete
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {logFor ? <DeliveryLog hook={logFor} version={logVersion} onClose={() => setLogFor(null)} /> : null}
        </>
      )}

      <ConfirmDialog open={!!toDelete} title="Delete this webhook?" confirmLabel="Delete webhook" danger busy={deleting} error={deleteError} onConfirm={remove} onCancel={() => setToDelete(null)}>
        <p>
          <strong>{toDelete?.name}</strong> stops receiving clicks at once, and its delivery log is removed. This cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog open={!!toRotate} title="Rotate the secret?" confirmLabel="Rotate secret" onConfirm={() => void rotate()} onCancel={() => setToRotate(null)}>
        <p>
          A new secret is made for <strong>{toRotate?.name}</strong> and shown once. From now on deliveries are signed with it only: update your receiver
          straight away.
        </p>
      </ConfirmDialog>
    </>
  );
}

function CreateWebhookForm({ count, onCreated }: { count: number; onCreated: (hook: Webhook, secret: string | undefined) => Promise<void> }) {
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [kind, setKind] = useState<WebhookKind>("custom");
  const [busy, setBusy] = useState(false);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const full = count >= MAX_WEBHOOKS;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setFields({});
    setGeneral(null);
    try {
      const r = await api.createWebhook({ name: name.trim(), url: url.trim(), kind });
      setName("");
      setUrl("");
      await onCreated(r.webhook, r.secret);
    } catch (err) {
      if (err instanceof ApiError) {
        const f = err.forFields(["name", "url", "kind"]);
        setFields(f.fields);
        setGeneral(f.general);
      } else {
        setGeneral(errorMessage(err));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card form-card" onSubmit={submit} noValidate data-testid="webhook-form">
      <h2>Add a webhook</h2>
      <p className="muted small" data-testid="webhook-count">
        {count} of {MAX_WEBHOOKS} used.
        {full ? " Remove one to add another." : ""}
      </p>
      <Field id="webhook-kind" label="Kind" hint={KINDS.find((k) => k.value === kind)?.hint}>
        <select id="webhook-kind" data-testid="webhook-kind-select" value={kind} onChange={(e) => setKind(e.target.value as WebhookKind)}>
          {KINDS.map((k) => (
            <option key={k.value} value={k.value}>
              {k.label}
            </option>
          ))}
        </select>
      </Field>
      <Field id="webhook-name-input" label="Name" error={fields.name}>
        <input id="webhook-name-input" data-testid="webhook-name-input" type="text" maxLength={100} placeholder="e.g. Order system" value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field
        id="webhook-url-input"
        label="Receiver URL"
        error={fields.url}
        hint="A public https:// address. Internal addresses (loopback, private networks, cloud metadata) are refused, and so are redirects."
      >
        <input id="webhook-url-input" data-testid="webhook-url-input" type="url" inputMode="url" placeholder="https://example.com/snip-hook" value={url} onChange={(e) => setUrl(e.target.value)} />
      </Field>
      {general ? <Alert testId="webhook-form-error">{general}</Alert> : null}
      <button type="submit" className="btn btn-primary" disabled={busy || full || !name.trim() || !url.trim()} data-testid="webhook-create">
        {busy ? "Checking the address…" : "Add webhook"}
      </button>
    </form>
  );
}

function DeliveryLog({ hook, version, onClose }: { hook: Webhook; version: number; onClose: () => void }) {
  const [rows, setRows] = useState<WebhookDelivery[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let live = true;
    setRows(null);
    setError(null);
    api.webhookDeliveries(hook.id).then(
      (r) => live && setRows(r),
      (e) => live && setError(`The delivery log could not be loaded: ${errorMessage(e)}`),
    );
    return () => {
      live = false;
    };
  }, [hook.id, version, reload]);

  return (
    <section className="card section" data-testid="delivery-log" aria-labelledby="h-log">
      <div className="page-head">
        <h2 id="h-log">Deliveries of “{hook.name}”</h2>
        <div className="row gap">
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => setReload((n) => n + 1)} data-testid="delivery-log-refresh">
            Refresh
          </button>
          <button type="button" className="btn btn-secondary btn-sm" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      {error ? (
        <Alert testId="delivery-log-error">{error}</Alert>
      ) : rows === null ? (
        <Spinner label="Loading deliveries…" />
      ) : rows.length === 0 ? (
        <p className="placeholder" data-testid="delivery-log-empty">
          Nothing delivered yet. Send a test event, or click one of your links.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="delivery-log-table">
            <TableHead columns={["Time", "Event", "Result", "Duration"]} />
            <tbody>
              {rows.map((d) => (
                <tr key={d.id} data-testid="delivery-row">
                  <td>{formatDateTime(d.at)}</td>
                  <td>
                    <code>{d.event}</code>
                  </td>
                  <td>
                    <DeliveryOutcome d={d} />
                  </td>
                  <td>{d.duration_ms} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted small">The last 50 deliveries are kept. Dropped clicks (a receiver too slow to keep up) are counted in the list above.</p>
    </section>
  );
}
