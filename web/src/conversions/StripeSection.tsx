// The Stripe webhook endpoint: set its signing secret (then give Stripe the address shown), see that it is set up,
// remove it. The secret is sealed on the server and never shown again; the address is unguessable: keep it private.
import { useEffect, useState } from "react";
import { Alert, ConfirmDialog, CopyButton, Field, Spinner, errorMessage, formatDateTime, useConfirmedDelete } from "../shared/ui";
import { fieldOrMessage, useSubmit } from "../shared/submit";
import { conversionsApi } from "./conversions-api";

interface Endpoint {
  endpoint_url: string;
  updated_at: string;
}

type Load = { kind: "loading" } | { kind: "ready"; endpoint: Endpoint | null } | { kind: "error"; message: string };

function SecretForm({ replacing, onSaved }: { replacing: boolean; onSaved: (e: Endpoint) => void }) {
  const [secret, setSecret] = useState("");
  const { busy, error, onSubmit } = useSubmit(async () => {
    onSaved(await conversionsApi.setStripe(secret.trim()));
    setSecret("");
  }, fieldOrMessage("signing_secret"));
  return (
    <form onSubmit={onSubmit} noValidate className="conv-stripe-form" data-testid="stripe-form">
      <Field
        id="stripe-secret"
        label={replacing ? "New signing secret" : "Signing secret"}
        error={error ?? undefined}
        hint="In Stripe: Developers → Webhooks → your endpoint → Signing secret (whsec_…)."
      >
        <input
          id="stripe-secret"
          data-testid="stripe-secret"
          type="password"
          autoComplete="off"
          placeholder="whsec_…"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
        />
      </Field>
      <button type="submit" className="btn btn-primary" disabled={busy || !secret.trim()} data-testid="stripe-save">
        {busy ? "Saving…" : replacing ? "Replace the secret" : "Set up Stripe"}
      </button>
    </form>
  );
}

export function StripeSection() {
  const [load, setLoad] = useState<Load>({ kind: "loading" });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    conversionsApi.stripe().then(
      (endpoint) => live && setLoad({ kind: "ready", endpoint }),
      (e: unknown) => live && setLoad({ kind: "error", message: errorMessage(e) }),
    );
    return () => {
      live = false;
    };
  }, [attempt]);
  const remove = useConfirmedDelete(async () => {
    await conversionsApi.removeStripe();
    setLoad({ kind: "ready", endpoint: null });
  });
  const endpoint = load.kind === "ready" ? load.endpoint : null;
  return (
    <section className="card" data-testid="stripe-section">
      <h2>Stripe</h2>
      <p className="muted">
        Stripe sends <code>checkout.session.completed</code>, <code>invoice.paid</code> and <code>charge.refunded</code> events to snip, which records them as
        leads, sales and refunds of the click you passed to the checkout (<code>client_reference_id</code> or <code>metadata.snip_click_id</code>).
      </p>
      {load.kind === "loading" ? <Spinner label="Loading the Stripe endpoint…" /> : null}
      {load.kind === "error" ? (
        <Alert testId="stripe-error">
          Could not load the Stripe endpoint: {load.message}{" "}
          <button type="button" className="btn-link" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </button>
        </Alert>
      ) : null}
      {endpoint ? (
        <div className="conv-endpoint" data-testid="stripe-configured">
          <p>
            <span className="badge badge-ok">Set up</span> <span className="muted small">since {formatDateTime(endpoint.updated_at)}</span>
          </p>
          <p className="small">Give Stripe this endpoint address (Developers → Webhooks → Add endpoint). Keep it private: it is the endpoint&apos;s key.</p>
          <div className="conv-endpoint-row">
            <code className="conv-endpoint-url" data-testid="stripe-endpoint-url">
              {endpoint.endpoint_url}
            </code>
            <CopyButton text={endpoint.endpoint_url} label="Copy" testId="stripe-endpoint-copy" />
          </div>
        </div>
      ) : load.kind === "ready" ? (
        <p className="muted" data-testid="stripe-none">
          Not set up.
        </p>
      ) : null}
      {load.kind === "ready" ? <SecretForm replacing={!!endpoint} onSaved={(e) => setLoad({ kind: "ready", endpoint: e })} /> : null}
      {endpoint ? (
        <button type="button" className="btn btn-danger btn-sm" onClick={() => remove.ask(true)} data-testid="stripe-remove">
          Remove the Stripe endpoint
        </button>
      ) : null}
      <ConfirmDialog {...remove.dialog} title="Remove the Stripe endpoint?" confirmLabel="Remove" danger>
        <p>Stripe&apos;s events to this address will be refused from now on. Leads and sales recorded so far stay.</p>
      </ConfirmDialog>
    </section>
  );
}
