// Operator console, destination blocklist: hosts added here (with a note), search and removal, the state of BLOCKLIST_FILE
// and of the threat feeds.
import { useState, type FormEvent } from "react";
import { ApiError } from "../shared/api";
import { adminApi } from "./admin-api";
import type { BlockedHost, BlocklistFile } from "@contract/admin";
import { Alert, ConfirmDialog, DataTable, Field, errorMessage, formatDateTime, useConfirmedDelete, useTitle } from "../shared/ui";
import { ListView, usePagedList, useUrlFilters } from "../shared/lists";
import { useSubmit } from "../shared/submit";
import { formatNumber } from "../shared/numbers";
import { ThreatFeeds } from "./ThreatFeeds";

// eslint-disable-next-line max-lines-per-function -- the add form, the list and the removal's confirmation share the page's state.
export function AdminBlocklistPage() {
  useTitle("Blocklist · Operator");
  const [filters, setFilters] = useUrlFilters(["q"] as const);
  const [search, setSearch] = useState(filters.q);
  const [file, setFile] = useState<BlocklistFile | null>(null);
  const list = usePagedList(
    (cursor) =>
      adminApi.blocklist({ q: filters.q, cursor, limit: 50 }).then((r) => {
        setFile(r.file);
        return { items: r.hosts, next: r.next_cursor ?? null };
      }),
    filters.q,
  );
  const [notice, setNotice] = useState<string | null>(null);
  const del = useConfirmedDelete(async (h: BlockedHost) => {
    setNotice(null);
    await adminApi.unblockHost(h.host);
    list.update((prev) => prev.filter((x) => x.host !== h.host));
    setNotice(`Removed ${h.host} from the blocklist: links to it redirect again (unless the file lists it).`);
  });

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Destination blocklist</h1>
          <p className="muted">
            New links to a blocked host (or its subdomains) are refused, and links already pointing there stop redirecting at once: visitors get 410 and a page
            saying the destination is blocked.
          </p>
        </div>
      </div>

      <div className="admin-columns">
        <AddHostForm
          onStart={() => setNotice(null)}
          onAdded={(h) => {
            setNotice(`Blocked ${h.host}.`);
            list.reload();
          }}
        />
        <FileStatus file={file} />
      </div>

      <ThreatFeeds />

      {notice ? (
        <Alert kind="success" testId="blocklist-notice">
          {notice}
        </Alert>
      ) : null}

      <form
        className="search-bar"
        role="search"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setFilters({ q: search });
        }}
      >
        <label htmlFor="blocklist-search" className="visually-hidden">
          Search blocked hosts
        </label>
        <input
          id="blocklist-search"
          data-testid="blocklist-search"
          type="search"
          placeholder="Search hosts and notes…"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <button type="submit" className="btn btn-secondary" data-testid="blocklist-search-submit">
          Search
        </button>
      </form>

      <ListView
        list={list}
        what="the blocklist"
        loading="Loading the blocklist…"
        testId="blocklist"
        empty={{
          title: filters.q ? "No blocked host matches" : "No hosts blocked from the console",
          icon: "shield",
          text: (
            <p className="muted">{filters.q ? `Nothing found for “${filters.q}”.` : "Add one above; hosts from BLOCKLIST_FILE are counted beside the form."}</p>
          ),
        }}
      >
        {(items) => (
          <DataTable className="table admin-table" testId="blocklist-table" columns={["Host", "Note", "Added"]} actions>
            {items.map((h) => (
              <BlockedRow key={h.host} host={h} onRemove={() => del.ask(h)} />
            ))}
          </DataTable>
        )}
      </ListView>

      <ConfirmDialog {...del.dialog} title="Remove from the blocklist?" confirmLabel="Remove" danger>
        <p>
          New links to <strong>{del.item?.host}</strong> are accepted again, and existing links to it redirect again (links an operator disabled stay disabled).
        </p>
      </ConfirmDialog>
    </>
  );
}

function BlockedRow({ host: h, onRemove }: { host: BlockedHost; onRemove: () => void }) {
  return (
    <tr data-testid="blocklist-row">
      <td className="cell-wrap cell-host">
        <code data-testid="blocklist-host">{h.host}</code>
      </td>
      <td className="cell-note" data-testid="blocklist-note">
        {h.note || <span className="muted">—</span>}
      </td>
      <td className="small">
        <div className="nowrap">{formatDateTime(h.created_at)}</div>
        {h.created_by_email ? <div className="muted cell-wrap">by {h.created_by_email}</div> : null}
      </td>
      <td className="cell-actions">
        <button type="button" className="btn btn-danger-ghost btn-sm" data-testid="blocklist-remove" onClick={onRemove}>
          Remove
        </button>
      </td>
    </tr>
  );
}

function AddHostForm({ onStart, onAdded }: { onStart: () => void; onAdded: (h: BlockedHost) => void }) {
  const [host, setHost] = useState("");
  const [note, setNote] = useState("");
  const [fields, setFields] = useState<Record<string, string>>({});
  const {
    busy,
    error: general,
    onSubmit,
  } = useSubmit(
    async () => {
      setFields({});
      const added = await adminApi.blockHost(host.trim(), note.trim());
      setHost("");
      setNote("");
      onAdded(added);
    },
    (err) => {
      if (!(err instanceof ApiError)) return errorMessage(err);
      // A host on the list already: said beside the host field.
      const f = err.forFields(["host", "note"]);
      if (err.code === "conflict" && !f.fields.host) f.fields.host = err.message;
      setFields(f.fields);
      return err.code === "conflict" ? null : f.general;
    },
  );

  function submit(e: FormEvent) {
    onStart();
    onSubmit(e);
  }

  return (
    <form className="card form-card" onSubmit={submit} noValidate data-testid="blocklist-form">
      <h2>Block a host</h2>
      <Field id="block-host" label="Host" error={fields.host} hint="A host name or a URL (its host is taken). Subdomains are blocked too.">
        <input
          id="block-host"
          data-testid="block-host"
          type="text"
          autoCapitalize="off"
          spellCheck={false}
          placeholder="phish.example"
          value={host}
          onChange={(e) => setHost(e.target.value)}
        />
      </Field>
      <Field id="block-note" label="Note (optional)" error={fields.note}>
        <input
          id="block-note"
          data-testid="block-note"
          type="text"
          maxLength={500}
          placeholder="Why, for the other operators"
          value={note}
          onChange={(e) => setNote(e.target.value)}
        />
      </Field>
      {general ? <Alert testId="block-error">{general}</Alert> : null}
      <button type="submit" className="btn btn-primary" disabled={busy || !host.trim()} data-testid="block-submit">
        {busy ? "Blocking…" : "Block host"}
      </button>
    </form>
  );
}

function FileStatus({ file }: { file: BlocklistFile | null }) {
  return (
    <section className="card section" aria-labelledby="h-file" data-testid="blocklist-file">
      <h2 id="h-file">BLOCKLIST_FILE</h2>
      {file === null ? (
        <p className="muted small">Loading…</p>
      ) : file.path === null ? (
        <p className="muted" data-testid="blocklist-file-none">
          No file is configured. Set <code>BLOCKLIST_FILE</code> to a list of hosts (one per line, hosts-file lines accepted) to block them as well.
        </p>
      ) : (
        <>
          <dl className="facts facts-compact">
            <div className="fact-wide">
              <dt>Path</dt>
              <dd className="cell-wrap">
                <code data-testid="blocklist-file-path">{file.path}</code>
              </dd>
            </div>
            <div>
              <dt>Hosts</dt>
              <dd data-testid="blocklist-file-hosts">{formatNumber(file.hosts)}</dd>
            </div>
            {file.skipped_lines ? (
              <div>
                <dt>Skipped lines</dt>
                <dd
                  className="text-warning"
                  data-testid="blocklist-file-skipped"
                  title="Lines that were neither a host, a URL, a hosts-file line, blank nor a comment"
                >
                  {formatNumber(file.skipped_lines)}
                </dd>
              </div>
            ) : null}
            <div>
              <dt>Loaded</dt>
              <dd data-testid="blocklist-file-loaded">{file.loaded_at ? formatDateTime(file.loaded_at) : "Never"}</dd>
            </div>
          </dl>
          {file.error ? (
            <Alert testId="blocklist-file-error">The file could not be read; the last good list is kept. {file.error}</Alert>
          ) : (
            <p className="muted small">Read again within a few seconds of every change.</p>
          )}
        </>
      )}
    </section>
  );
}
