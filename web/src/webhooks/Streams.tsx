// Click streams (Business and above), beside the webhooks: each stream's broker, state and delivery status;
// add one (kind, name, broker URL, the server's field errors beside each field), turn it off or on, delete it.
import { useState } from "react";
import type { Stream, StreamKind } from "@contract/streams";
import { BROKER_KINDS, MAX_STREAMS } from "@contract/broker-kinds";
import { usePagedList } from "../shared/lists";
import { Alert, ConfirmDialog, DataTable, EmptyState, Field, Spinner, formatDateTime, useConfirmedDelete } from "../shared/ui";
import { streamsApi } from "./streams-api";
import { fieldsOrMessage, useRowSubmit, useSubmit } from "../shared/submit";

const KINDS: { value: StreamKind; label: string; example: string }[] = BROKER_KINDS.map((k) => ({ value: k.kind, label: k.label, example: k.example }));
const kindLabel = (k: string) => KINDS.find((x) => x.value === k)?.label ?? k;
/** "RabbitMQ, Redis Streams, NATS JetStream, MQTT or ClickHouse": every kind the server takes. */
const KIND_LIST = `${KINDS.slice(0, -1)
  .map((k) => k.label)
  .join(", ")} or ${KINDS[KINDS.length - 1]?.label ?? ""}`;

function StreamForm({ count, owner, privateReceivers, onCreated }: { count: number; owner: string | null; privateReceivers: boolean; onCreated: () => void }) {
  const [kind, setKind] = useState<StreamKind>("amqp");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [fields, setFields] = useState<Record<string, string>>({});
  const full = count >= MAX_STREAMS;
  const {
    busy,
    error: general,
    onSubmit,
  } = useSubmit(
    async () => {
      setFields({});
      await streamsApi.createStream({ name: name.trim(), kind, url: url.trim() }, owner);
      setName("");
      setUrl("");
      onCreated();
    },
    fieldsOrMessage(["name", "url", "kind"], setFields),
  );

  const hint = `${KINDS.find((k) => k.value === kind)?.example}. ${privateReceivers ? "Brokers on loopback and private networks are accepted (WEBHOOK_ALLOW_PRIVATE)." : "A public address: internal ones are refused."} The password is stored encrypted and never shown again.`;
  return (
    <form className="card form-card" onSubmit={onSubmit} noValidate data-testid="stream-form">
      <h2>Add a click stream</h2>
      <p className="muted small" data-testid="stream-count">
        {count} of {MAX_STREAMS} used.{full ? " Remove one to add another." : ""}
      </p>
      <Field id="stream-kind" label="Broker">
        <select id="stream-kind" data-testid="stream-kind-select" value={kind} onChange={(e) => setKind(e.target.value as StreamKind)}>
          {KINDS.map((k) => (
            <option key={k.value} value={k.value}>
              {k.label}
            </option>
          ))}
        </select>
      </Field>
      <Field id="stream-name-input" label="Stream name" error={fields.name}>
        <input
          id="stream-name-input"
          data-testid="stream-name-input"
          type="text"
          maxLength={100}
          placeholder="e.g. Warehouse"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </Field>
      <Field id="stream-url-input" label="Broker URL" error={fields.url} hint={hint}>
        <input
          id="stream-url-input"
          data-testid="stream-url-input"
          type="text"
          inputMode="url"
          autoComplete="off"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
      </Field>
      {general ? <Alert testId="stream-form-error">{general}</Alert> : null}
      <button type="submit" className="btn btn-primary" disabled={busy || full || !name.trim() || !url.trim()} data-testid="stream-create">
        {busy ? "Checking the address…" : "Add stream"}
      </button>
    </form>
  );
}

function Status({ s }: { s: Stream }) {
  const st = s.status;
  return (
    <div className="small" data-testid="stream-status">
      <div>
        {st.delivered} delivered · {st.backlog} waiting{st.full ? " (full: new clicks not queued)" : ""}
      </div>
      {st.last_error && st.last_error_at && (!st.last_ok_at || st.last_error_at > st.last_ok_at) ? (
        <div className="text-error" data-testid="stream-error">
          {formatDateTime(st.last_error_at)}: {st.last_error}
        </div>
      ) : st.last_ok_at ? (
        <div className="muted">Last sent {formatDateTime(st.last_ok_at)}</div>
      ) : (
        <div className="muted">Nothing sent yet</div>
      )}
    </div>
  );
}

/** `owner`: a team owner's streams (an admin's, docs/roles.md), null for the user's own. */
// eslint-disable-next-line max-lines-per-function -- the list, its actions and the deletion dialog share the section's state.
export function StreamsSection({ owner }: { owner: string | null }) {
  const [privateReceivers, setPrivateReceivers] = useState(false);
  const list = usePagedList(
    () => streamsApi.listStreams(owner).then((r) => (setPrivateReceivers(r.private_receivers), { items: r.streams, next: null })),
    `streams:${owner ?? ""}`,
    true,
  );
  const rows = useRowSubmit();
  const del = useConfirmedDelete(async (s: Stream) => {
    await streamsApi.deleteStream(s.id);
    list.reload();
  });
  const streams = list.items;

  const toggle = (s: Stream) =>
    rows.run(s.id, async () => {
      await streamsApi.updateStream(s.id, { active: !s.active });
      list.reload();
    });

  return (
    <section className="streams-section" data-testid="streams-section">
      <h2>Click streams</h2>
      <p className="muted">
        Every click on your links, sent to your own {KIND_LIST}: kept and retried while it is away, each event with an id to de-duplicate by (ClickHouse: its
        tables made if missing, repeats collapsed). The event format and the tables: docs/stream.md.
      </p>
      {rows.error ? <Alert testId="stream-action-error">{rows.error}</Alert> : null}
      {streams === null && list.error === null ? (
        <Spinner label="Loading click streams…" />
      ) : list.error !== null ? (
        <div className="card" data-testid="streams-error">
          <Alert>{`The click streams could not be loaded: ${list.error}`}</Alert>
          <button type="button" className="btn btn-secondary" onClick={list.reload} data-testid="streams-retry">
            Try again
          </button>
        </div>
      ) : (
        <>
          <StreamForm count={streams?.length ?? 0} owner={owner} privateReceivers={privateReceivers} onCreated={list.reload} />
          <DataTable
            className="table table-cards"
            testId="streams-table"
            columns={["Name", "Broker", "State", "Delivery"]}
            actions
            empty={
              <EmptyState title="No click streams yet" testId="streams-empty" icon="streams">
                <p className="muted">Add one above to send every click to your own broker.</p>
              </EmptyState>
            }
          >
            {(streams ?? []).map((s) => (
              <tr key={s.id} data-testid="stream-row" className={s.active ? "" : "row-muted"}>
                <td>
                  <strong data-testid="stream-name">{s.name}</strong>
                  <div className="muted small webhook-url" title={s.url}>
                    {s.url}
                  </div>
                </td>
                <td data-label="Broker">
                  <span className="badge">{kindLabel(s.kind)}</span>
                </td>
                <td data-label="State">{s.active ? <span className="badge badge-ok">Active</span> : <span className="badge badge-muted">Off</span>}</td>
                <td data-label="Delivery">
                  <Status s={s} />
                </td>
                <td className="cell-actions">
                  <div className="row-actions">
                    <button
                      type="button"
                      className="btn btn-secondary btn-sm"
                      disabled={rows.busyId === s.id}
                      onClick={() => void toggle(s)}
                      data-testid="stream-toggle"
                    >
                      {s.active ? "Turn off" : "Turn on"}
                    </button>
                    <button type="button" className="btn btn-danger btn-sm" onClick={() => del.ask(s)} data-testid="stream-delete">
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
      <ConfirmDialog {...del.dialog} title="Delete this click stream?" confirmLabel="Delete stream" danger>
        <p>
          <strong>{del.item?.name}</strong> stops receiving clicks at once; the events still waiting for it are dropped.
        </p>
      </ConfirmDialog>
    </section>
  );
}
