// The kinds of webhook, how a delivery's outcome reads, and the secret shown once.
import type { WebhookDelivery, WebhookKind } from "@contract/webhooks";
import { CopyButton } from "../shared/ui";

export const KINDS: { value: WebhookKind; label: string; hint: string }[] = [
  { value: "custom", label: "Custom (signed JSON)", hint: "Your own HTTPS endpoint; every request is signed with a secret (X-Snip-Signature)." },
  { value: "slack", label: "Slack", hint: "A Slack incoming-webhook URL (https://hooks.slack.com/…)." },
  { value: "discord", label: "Discord", hint: "A Discord channel webhook URL (https://discord.com/api/webhooks/…)." },
  { value: "teams", label: "Microsoft Teams", hint: "A Teams incoming webhook or Workflows URL (…webhook.office.com, …logic.azure.com)." },
];

export function kindLabel(kind: WebhookKind): string {
  return KINDS.find((k) => k.value === kind)?.label.replace(" (signed JSON)", "") ?? kind;
}

/** One delivery as a person reads it: "204 OK" or the reason it failed; a test event says so. */
export function DeliveryOutcome({ d }: { d: WebhookDelivery }) {
  const ok = d.error === null;
  return (
    <>
      <span className={`badge ${ok ? "badge-ok" : "badge-fail"}`} data-testid="delivery-outcome">
        {ok ? `${d.status_code} OK` : d.error}
        {d.status_code !== null && !ok ? ` (HTTP ${d.status_code})` : ""}
      </span>
      {d.test ? (
        <>
          {" "}
          <span className="badge badge-plan" data-testid="delivery-test">
            Test
          </span>
        </>
      ) : null}
    </>
  );
}

/** A signing secret, shown once after creation or rotation. */
export function SecretBox({ secret, onHide }: { secret: { name: string; secret: string; rotated: boolean }; onHide: () => void }) {
  return (
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
      <button type="button" className="btn-link" data-testid="webhook-secret-hide" onClick={onHide}>
        I have stored it, hide it
      </button>
    </div>
  );
}
