// The form that adds a webhook: kind, name, receiver URL and the events it takes, with the server's field errors beside each field.
import { webhooksApi } from "./webhooks-api";
import { useState } from "react";
import type { Webhook, WebhookEventType, WebhookKind } from "@contract/webhooks";
import { Alert, Field } from "../shared/ui";
import { fieldsOrMessage, useSubmit } from "../shared/submit";
import { KINDS } from "./kinds";
import { MAX_WEBHOOKS, WEBHOOK_EVENT_LABELS } from "@contract/tables";

/** The receiver's URL, with what this service accepts as a receiver. */
function ReceiverUrlField(props: { url: string; error: string | undefined; privateReceivers: boolean; onChange: (url: string) => void }) {
  const { url, error, privateReceivers, onChange } = props;
  return (
    <Field
      id="webhook-url-input"
      label="Receiver URL"
      error={error}
      hint={
        privateReceivers
          ? "An https:// address. This service accepts receivers on loopback and private networks too (WEBHOOK_ALLOW_PRIVATE); redirects are not followed."
          : "A public https:// address. Internal addresses (loopback, private networks, cloud metadata) are refused, and so are redirects."
      }
    >
      <input
        id="webhook-url-input"
        data-testid="webhook-url-input"
        type="url"
        inputMode="url"
        placeholder="https://example.com/snip-hook"
        value={url}
        onChange={(e) => onChange(e.target.value)}
      />
    </Field>
  );
}

/** The events the webhook takes: clicks unless others are chosen. */
function EventChoices(props: { events: WebhookEventType[]; error: string | undefined; onChange: (events: WebhookEventType[]) => void }) {
  const { events, error, onChange } = props;
  const toggle = (e: WebhookEventType, on: boolean) => onChange(on ? [...events, e] : events.filter((x) => x !== e));
  return (
    <fieldset className="options event-choices" aria-describedby={error ? "webhook-events-error" : undefined}>
      <legend>Events</legend>
      {WEBHOOK_EVENT_LABELS.map(({ event, label, hint }) => (
        <label className="checkbox" key={event}>
          <input type="checkbox" data-testid={`webhook-event-${event}`} checked={events.includes(event)} onChange={(e) => toggle(event, e.target.checked)} />
          <span>
            {label} <span className="muted small">{hint}</span>
          </span>
        </label>
      ))}
      {error ? (
        <p className="field-error" role="alert" id="webhook-events-error" data-testid="webhook-events-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

/** `privateReceivers`: WEBHOOK_ALLOW_PRIVATE is on, so loopback and private-network receivers are accepted. */
export function CreateWebhookForm({
  count,
  owner,
  privateReceivers,
  onCreated,
}: {
  count: number;
  /** A team owner's account (an admin's), null for the user's own. */
  owner: string | null;
  privateReceivers: boolean;
  onCreated: (hook: Webhook, secret: string | undefined) => Promise<void>;
}) {
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [kind, setKind] = useState<WebhookKind>("custom");
  const [events, setEvents] = useState<WebhookEventType[]>(["link_click"]);
  const [fields, setFields] = useState<Record<string, string>>({});
  const full = count >= MAX_WEBHOOKS;
  const {
    busy,
    error: general,
    onSubmit,
  } = useSubmit(
    async () => {
      setFields({});
      const r = await webhooksApi.createWebhook({ name: name.trim(), url: url.trim(), kind, events }, owner);
      setName("");
      setUrl("");
      setEvents(["link_click"]);
      await onCreated(r.webhook, r.secret);
    },
    fieldsOrMessage(["name", "url", "kind", "events"], setFields),
  );

  return (
    <form className="card form-card" onSubmit={onSubmit} noValidate data-testid="webhook-form">
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
        <input
          id="webhook-name-input"
          data-testid="webhook-name-input"
          type="text"
          maxLength={100}
          placeholder="e.g. Order system"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </Field>
      <ReceiverUrlField url={url} error={fields.url} privateReceivers={privateReceivers} onChange={setUrl} />
      <EventChoices events={events} error={fields.events} onChange={setEvents} />
      {general ? <Alert testId="webhook-form-error">{general}</Alert> : null}
      <button
        type="submit"
        className="btn btn-primary"
        disabled={busy || full || !name.trim() || !url.trim() || events.length === 0}
        data-testid="webhook-create"
      >
        {busy ? "Checking the address…" : "Add webhook"}
      </button>
    </form>
  );
}
