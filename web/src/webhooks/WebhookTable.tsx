// The webhooks as a table: name and address, kind and events, state, last delivery, clicks dropped, and each one's actions.
import type { Webhook } from "@contract/webhooks";
import { DataTable, formatDateTime } from "../shared/ui";
import { DeliveryOutcome, kindLabel } from "./kinds";
import { WEBHOOK_EVENT_LABELS } from "@contract/tables";

type OnHook = (hook: Webhook) => void;

export function WebhookTable(props: {
  hooks: Webhook[];
  busyId: string | null;
  logForId: string | null;
  onTest: OnHook;
  onLog: OnHook;
  onToggle: OnHook;
  onRotate: OnHook;
  onDelete: OnHook;
}) {
  const { hooks, busyId, logForId, onTest, onLog, onToggle, onRotate, onDelete } = props;
  return (
    <DataTable testId="webhooks-table" frame="card" columns={["Name", "Kind", "State", "Last delivery", "Dropped"]} actions>
      {hooks.map((h) => (
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
            <div className="muted small" data-testid="webhook-events">
              {WEBHOOK_EVENT_LABELS.filter((e) => h.events.includes(e.event))
                .map((e) => e.label)
                .join(", ")}
            </div>
          </td>
          <td>
            {h.active ? (
              <span className="badge badge-ok" data-testid="webhook-state">
                Active
              </span>
            ) : (
              <span className="badge badge-muted" data-testid="webhook-state">
                Inactive
              </span>
            )}
          </td>
          <td data-testid="webhook-last">
            <LastDelivery hook={h} />
          </td>
          <td data-testid="webhook-dropped" title="Clicks not sent because the receiver was too slow to keep up">
            {h.dropped}
          </td>
          <td className="cell-actions">
            <div className="row-actions">
              <button type="button" className="btn btn-secondary btn-sm" disabled={busyId === h.id} onClick={() => onTest(h)} data-testid="webhook-test">
                {busyId === h.id ? "Working…" : "Send test"}
              </button>
              <button
                type="button"
                className="btn btn-secondary btn-sm"
                onClick={() => onLog(h)}
                data-testid="webhook-log-toggle"
                aria-expanded={logForId === h.id}
              >
                Log
              </button>
              <button type="button" className="btn btn-secondary btn-sm" disabled={busyId === h.id} onClick={() => onToggle(h)} data-testid="webhook-toggle">
                {h.active ? "Deactivate" : "Activate"}
              </button>
              {h.kind === "custom" ? (
                <button type="button" className="btn btn-secondary btn-sm" disabled={busyId === h.id} onClick={() => onRotate(h)} data-testid="webhook-rotate">
                  Rotate secret
                </button>
              ) : null}
              <button type="button" className="btn btn-danger-ghost btn-sm" onClick={() => onDelete(h)} data-testid="webhook-delete">
                Delete
              </button>
            </div>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function LastDelivery({ hook }: { hook: Webhook }) {
  if (!hook.last_delivery) return <span className="muted">Never</span>;
  return (
    <>
      <DeliveryOutcome d={hook.last_delivery} />
      <div className="muted small">{formatDateTime(hook.last_delivery.at)}</div>
    </>
  );
}
