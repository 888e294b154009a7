// Webhooks (Business and above): list with kind, state and last delivery; create (secret shown once);
// activate/deactivate, rotate the secret, delete, send a test event, and each webhook's delivery log.
import { can } from "../shared/plan-gate";
import { webhooksApi } from "./webhooks-api";
import { useState } from "react";
import type { Webhook } from "@contract/webhooks";
import { useSession } from "../shared/session";
import { ManagedTeamHead, useManagedTeam } from "../shared/team-view";
import { usePagedList } from "../shared/lists";
import { Alert, ConfirmDialog, EmptyState, Spinner, UpgradeHint, useConfirmedDelete, useTitle } from "../shared/ui";
import { useRowSubmit } from "../shared/submit";
import { CreateWebhookForm } from "./CreateWebhookForm";
import { DeliveryLog } from "./DeliveryLog";
import { SecretBox } from "./kinds";
import { WebhookTable } from "./WebhookTable";
import { StreamsSection } from "./Streams";

// eslint-disable-next-line max-lines-per-function -- the list, the creation form, each webhook's actions and the delivery log share the page's state.
export function WebhooksPage() {
  useTitle("Webhooks");
  const { user } = useSession();
  // A team's webhooks and streams for its admin (/app/webhooks/<owner id>): the owner's plan decides, the server answers for it.
  const { owner, team } = useManagedTeam();
  const allowed = owner !== null || can(user?.plan ?? "free", "webhooks");
  const [privateReceivers, setPrivateReceivers] = useState(false);
  const list = usePagedList(
    () =>
      webhooksApi.listWebhooks(owner).then((r) => {
        setPrivateReceivers(r.private_receivers);
        return { items: r.webhooks, next: null };
      }),
    `webhooks:${owner ?? ""}`,
    allowed,
  );
  const hooks = list.items;
  const loadError = list.error === null ? null : `The webhooks could not be loaded: ${list.error}`;
  const [secret, setSecret] = useState<{ name: string; secret: string; rotated: boolean } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const rows = useRowSubmit();
  const [logFor, setLogFor] = useState<Webhook | null>(null);
  const [toRotate, setToRotate] = useState<Webhook | null>(null);
  const [logVersion, setLogVersion] = useState(0);

  function act(hook: Webhook, fn: () => Promise<void>) {
    setNotice(null);
    return rows.run(hook.id, async () => {
      await fn();
      list.reload();
    });
  }

  const sendTest = (hook: Webhook) =>
    act(hook, async () => {
      const d = await webhooksApi.testWebhook(hook.id);
      setNotice(
        d.error === null
          ? `Test event delivered to “${hook.name}”: HTTP ${d.status_code} in ${d.duration_ms} ms.`
          : `Test event to “${hook.name}” failed: ${d.error}.`,
      );
      setLogFor(hook);
      setLogVersion((v) => v + 1);
    });

  const del = useConfirmedDelete(async (hook: Webhook) => {
    await webhooksApi.deleteWebhook(hook.id);
    if (logFor?.id === hook.id) setLogFor(null);
    list.reload();
  });

  async function rotate() {
    const hook = toRotate;
    if (!hook) return;
    setToRotate(null);
    await act(hook, async () => {
      const r = await webhooksApi.rotateWebhookSecret(hook.id);
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
          {owner ? <ManagedTeamHead team={team} title="Webhooks" /> : <h1>Webhooks</h1>}
          <p className="muted">
            Every click on one of your links is sent to each active webhook: one attempt, two seconds at most, no retry. Check the delivery log: a webhook in
            this list does not prove that anything arrived.
          </p>
        </div>
      </div>

      {secret ? <SecretBox secret={secret} onHide={() => setSecret(null)} /> : null}
      {notice ? (
        <Alert kind="info" testId="webhook-notice">
          {notice}
        </Alert>
      ) : null}
      {rows.error ? <Alert testId="webhook-action-error">{rows.error}</Alert> : null}

      {hooks === null && !loadError ? (
        <Spinner label="Loading webhooks…" />
      ) : loadError ? (
        <div className="card" data-testid="webhooks-error">
          <Alert>{loadError}</Alert>
          <button type="button" className="btn btn-secondary" onClick={list.reload} data-testid="webhooks-retry">
            Try again
          </button>
        </div>
      ) : (
        <>
          <CreateWebhookForm
            count={hooks?.length ?? 0}
            owner={owner}
            privateReceivers={privateReceivers}
            onCreated={async (hook, s) => {
              setNotice(null);
              if (s) setSecret({ name: hook.name, secret: s, rotated: false });
              list.reload();
            }}
          />
          {hooks && hooks.length === 0 ? (
            <EmptyState title="No webhooks yet" testId="webhooks-empty" icon="webhooks">
              <p className="muted">Add one above to be told about every click on your links.</p>
            </EmptyState>
          ) : (
            <WebhookTable
              hooks={hooks ?? []}
              busyId={rows.busyId}
              logForId={logFor?.id ?? null}
              onTest={(h) => void sendTest(h)}
              onLog={(h) => setLogFor(logFor?.id === h.id ? null : h)}
              onToggle={(h) => void act(h, async () => void (await webhooksApi.updateWebhook(h.id, { active: !h.active })))}
              onRotate={setToRotate}
              onDelete={del.ask}
            />
          )}
          {logFor ? <DeliveryLog key={logFor.id} hook={logFor} version={logVersion} onClose={() => setLogFor(null)} /> : null}
        </>
      )}

      {owner !== null || can(user?.plan ?? "free", "streams") ? <StreamsSection owner={owner} /> : null}

      <ConfirmDialog {...del.dialog} title="Delete this webhook?" confirmLabel="Delete webhook" danger>
        <p>
          <strong>{del.item?.name}</strong> stops receiving clicks at once, and its delivery log is removed. This cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={!!toRotate}
        title="Rotate the secret?"
        confirmLabel="Rotate secret"
        onConfirm={() => void rotate()}
        onCancel={() => setToRotate(null)}
      >
        <p>
          A new secret is made for <strong>{toRotate?.name}</strong> and shown once. From now on deliveries are signed with it only: update your receiver
          straight away.
        </p>
      </ConfirmDialog>
    </>
  );
}
