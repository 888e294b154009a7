// A webhook's delivery log: time, event, outcome (test events marked), duration, and each delivery's payload as sent.
import { webhooksApi } from "./webhooks-api";
import { useState } from "react";

import type { Webhook, WebhookDelivery } from "@contract/webhooks";
import { usePagedList } from "../shared/lists";
import { Alert, DataTable, Spinner, formatDateTime } from "../shared/ui";
import { DeliveryOutcome } from "./kinds";

/** The body as sent, indented when it is JSON. */
function pretty(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

export function DeliveryLog({ hook, version, onClose }: { hook: Webhook; version: number; onClose: () => void }) {
  const list = usePagedList(() => webhooksApi.webhookDeliveries(hook.id).then((items) => ({ items, next: null })), `${hook.id}:${version}`);
  const [open, setOpen] = useState<WebhookDelivery | null>(null);

  return (
    <section className="card section" data-testid="delivery-log" aria-labelledby="h-log">
      <div className="page-head">
        <h2 id="h-log">Deliveries of “{hook.name}”</h2>
        <div className="row gap">
          <button type="button" className="btn btn-secondary btn-sm" onClick={list.reload} data-testid="delivery-log-refresh">
            Refresh
          </button>
          <button type="button" className="btn btn-secondary btn-sm" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      {list.error ? (
        <Alert testId="delivery-log-error">The delivery log could not be loaded: {list.error}</Alert>
      ) : list.items === null ? (
        <Spinner label="Loading deliveries…" />
      ) : (
        <DataTable
          testId="delivery-log-table"
          frame="none"
          columns={["Time", "Event", "Result", "Duration"]}
          actions
          empty={
            <p className="placeholder" data-testid="delivery-log-empty">
              Nothing delivered yet. Send a test event, or click one of your links.
            </p>
          }
        >
          {list.items.map((d) => (
            <DeliveryRow key={d.id} d={d} open={open?.id === d.id} onToggle={() => setOpen(open?.id === d.id ? null : d)} />
          ))}
        </DataTable>
      )}
      {open ? (
        <div className="payload-box" data-testid="delivery-payload-box">
          <h3>
            Payload of the {open.test ? "test " : ""}delivery of {formatDateTime(open.at)}
          </h3>
          <pre className="payload" data-testid="delivery-payload" tabIndex={0}>
            {open.payload === null ? "Not kept for this delivery (it was logged before payloads were kept)." : pretty(open.payload)}
          </pre>
        </div>
      ) : null}
      <p className="muted small">The last 50 deliveries are kept. Dropped clicks (a receiver too slow to keep up) are counted in the list above.</p>
    </section>
  );
}

function DeliveryRow({ d, open, onToggle }: { d: WebhookDelivery; open: boolean; onToggle: () => void }) {
  return (
    <tr data-testid="delivery-row" data-test-event={d.test ? "true" : "false"}>
      <td className="nowrap">{formatDateTime(d.at)}</td>
      <td>
        <code>{d.event}</code>
      </td>
      <td>
        <DeliveryOutcome d={d} />
      </td>
      <td className="nowrap">{d.duration_ms} ms</td>
      <td className="cell-actions">
        <button type="button" className="btn btn-secondary btn-sm" aria-expanded={open} onClick={onToggle} data-testid="delivery-payload-toggle">
          {open ? "Hide payload" : "Payload"}
        </button>
      </td>
    </tr>
  );
}
