// Operator console, links: every account's links with search and filters; disable (410 or 451) and enable one,
// or disable every link of an owner or every link to a host at once.
import { useState, type FormEvent } from "react";
import { adminApi, type AdminLink } from "../../api";
import { A, Alert, EmptyState, Field, Spinner, TableHead, formatDate, useTitle } from "../../ui";
import { DisableDialog, LinkStateBadge, ListError, LoadMore, hostOf, shortLabel, usePagedList, useUrlFilters } from "./common";

const PAGE = 50;

type Dialog =
  | { kind: "one"; link: AdminLink }
  | { kind: "owner"; ownerId: string; ownerEmail: string }
  | { kind: "host" };

export function AdminLinksPage() {
  useTitle("Links · Operator");
  const [filters, setFilters] = useUrlFilters(["q", "owner", "domain", "state"] as const);
  const [form, setForm] = useState({ q: filters.q, owner: filters.owner, domain: filters.domain });
  const list = usePagedList(
    (cursor) => adminApi.links({ ...filters, cursor, limit: PAGE }).then((r) => ({ items: r.links, next: r.next_cursor })),
    JSON.stringify(filters),
  );
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [host, setHost] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const [rowErrors, setRowErrors] = useState<Record<string, string>>({});
  const [busyId, setBusyId] = useState<string | null>(null);

  const replace = (link: AdminLink) => list.update((prev) => prev.map((l) => (l.id === link.id ? { ...l, ...link } : l)));

  async function enable(l: AdminLink) {
    setBusyId(l.id);
    setNotice(null);
    setRowErrors(({ [l.id]: _, ...rest }) => rest);
    try {
      replace(await adminApi.enableLink(l.id));
      setNotice(`Enabled ${shortLabel(l.short_url)}: it redirects again.`);
    } catch (e) {
      setRowErrors((r) => ({ ...r, [l.id]: e instanceof Error ? e.message : String(e) }));
    } finally {
      setBusyId(null);
    }
  }

  async function confirmDisable(reason: string, status: 410 | 451) {
    if (!dialog) return;
    if (dialog.kind === "one") {
      replace(await adminApi.disableLink(dialog.link.id, reason, status));
      setNotice(`Disabled ${shortLabel(dialog.link.short_url)}: visitors get ${status}.`);
    } else if (dialog.kind === "owner") {
      const n = await adminApi.disableBulk({ owner_id: dialog.ownerId, reason, status });
      setNotice(`Disabled ${n} ${n === 1 ? "link" : "links"} of ${dialog.ownerEmail}.`);
      list.reload();
    } else {
      const h = host.trim();
      const n = await adminApi.disableBulk({ host: h, reason, status });
      setNotice(`Disabled ${n} ${n === 1 ? "link" : "links"} to ${h} and its subdomains.`);
      list.reload();
    }
    setDialog(null);
  }

  const filtered = !!(filters.q || filters.owner || filters.domain || filters.state);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Links</h1>
          <p className="muted">The links of every account. A disabled link answers 410 or 451 with a page saying so; its owner sees your reason.</p>
        </div>
        <button
          type="button"
          className="btn btn-danger-ghost"
          data-testid="bulk-host-open"
          onClick={() => {
            setHost("");
            setDialog({ kind: "host" });
          }}
        >
          Disable all links to a host…
        </button>
      </div>

      <form
        className="card filter-bar"
        role="search"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setFilters(form);
        }}
      >
        <Field id="links-q" label="Alias or destination" className="grow">
          <input id="links-q" data-testid="admin-links-search" type="search" value={form.q} onChange={(e) => setForm({ ...form, q: e.target.value })} />
        </Field>
        <Field id="links-owner" label="Owner email" className="grow">
          <input id="links-owner" data-testid="admin-links-owner" type="search" value={form.owner} onChange={(e) => setForm({ ...form, owner: e.target.value })} />
        </Field>
        <Field id="links-domain" label="Custom domain">
          <input id="links-domain" data-testid="admin-links-domain" type="search" placeholder="go.example.com" value={form.domain} onChange={(e) => setForm({ ...form, domain: e.target.value })} />
        </Field>
        <Field id="links-state" label="State">
          <select id="links-state" data-testid="admin-links-state" value={filters.state} onChange={(e) => setFilters({ ...form, state: e.target.value })}>
            <option value="">Any state</option>
            <option value="active">Active</option>
            <option value="disabled">Disabled</option>
            <option value="blocked">Destination blocked</option>
          </select>
        </Field>
        <button type="submit" className="btn btn-secondary filter-submit" data-testid="admin-links-submit">
          Search
        </button>
      </form>

      {notice ? (
        <Alert kind="success" testId="admin-links-notice">
          {notice}
        </Alert>
      ) : null}
      {list.error ? <ListError what="the links" error={list.error} onRetry={list.reload} testId="admin-links-error" /> : null}

      {list.items === null ? (
        list.error ? null : <Spinner label="Loading links…" />
      ) : list.items.length === 0 && list.next ? (
        // The state filters look at a bounded number of links per request: a page can be empty with more to look at.
        <div className="placeholder" data-testid="admin-links-partial">
          <p>No match among the links looked at so far.</p>
          <LoadMore next={list.next} busy={list.loadingMore} onClick={() => void list.loadMore()} testId="admin-links-load-more" />
        </div>
      ) : list.items.length === 0 ? (
        <EmptyState title={filtered ? "No link matches" : "No links yet"} testId="admin-links-empty">
          {filtered ? (
            <button
              type="button"
              className="btn btn-secondary"
              onClick={() => {
                setForm({ q: "", owner: "", domain: "" });
                setFilters({ q: "", owner: "", domain: "", state: "" });
              }}
            >
              Clear the filters
            </button>
          ) : null}
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap card card-flush">
            <table className="table admin-table" data-testid="admin-links-table">
              <TableHead columns={["Short link", "Destination", "Owner", "Clicks", "State"]} actions />
              <tbody>
                {list.items.map((l) => (
                  <tr key={l.id} data-testid="admin-link-row" data-link-id={l.id}>
                    <td className="cell-short">
                      <a href={l.short_url} target="_blank" rel="noopener noreferrer" className="cell-wrap" data-testid="admin-link-short">
                        {shortLabel(l.short_url)}
                      </a>
                      <div className="muted small">{formatDate(l.created_at)}</div>
                    </td>
                    <td className="cell-url">
                      <div className="truncate" title={l.url} data-testid="admin-link-destination">
                        {l.url}
                      </div>
                      {l.ios_url || l.android_url ? <div className="muted small">+ device destinations</div> : null}
                    </td>
                    <td className="cell-owner">
                      {l.owner_email ? (
                        <A to={`/app/admin/accounts?q=${encodeURIComponent(l.owner_email)}`} className="cell-wrap" testId="admin-link-owner">
                          {l.owner_email}
                        </A>
                      ) : (
                        <span className="muted">signed out</span>
                      )}
                    </td>
                    <td className="num">{l.click_count.toLocaleString()}</td>
                    <td className="cell-state">
                      <LinkStateBadge link={l} />
                      {rowErrors[l.id] ? (
                        <p className="field-error" role="alert" data-testid="admin-link-error">
                          {rowErrors[l.id]}
                        </p>
                      ) : null}
                    </td>
                    <td className="cell-actions">
                      <div className="row-actions row-actions-stack">
                        {l.disabled ? (
                          <button type="button" className="btn btn-secondary btn-sm" disabled={busyId === l.id} data-testid="admin-link-enable" onClick={() => void enable(l)}>
                            {busyId === l.id ? "Working…" : "Enable"}
                          </button>
                        ) : (
                          <button type="button" className="btn btn-danger-ghost btn-sm" data-testid="admin-link-disable" onClick={() => setDialog({ kind: "one", link: l })}>
                            Disable
                          </button>
                        )}
                        {l.owner_id && l.owner_email ? (
                          <button
                            type="button"
                            className="btn btn-secondary btn-sm"
                            data-testid="admin-link-disable-owner"
                            title={`Disable every active link of ${l.owner_email}`}
                            onClick={() => setDialog({ kind: "owner", ownerId: l.owner_id as string, ownerEmail: l.owner_email as string })}
                          >
                            All of owner…
                          </button>
                        ) : null}
                        {hostOf(l.url) ? (
                          <button
                            type="button"
                            className="btn btn-secondary btn-sm"
                            data-testid="admin-link-disable-host"
                            title={`Disable every link to ${hostOf(l.url)}`}
                            onClick={() => {
                              setHost(hostOf(l.url));
                              setDialog({ kind: "host" });
                            }}
                          >
                            All to host…
                          </button>
                        ) : null}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <LoadMore next={list.next} busy={list.loadingMore} onClick={() => void list.loadMore()} testId="admin-links-load-more" />
        </>
      )}

      <DisableDialog
        open={dialog !== null}
        title={dialog?.kind === "one" ? "Disable this link?" : dialog?.kind === "owner" ? "Disable all links of this owner?" : "Disable all links to a host?"}
        confirmLabel={dialog?.kind === "one" ? "Disable link" : "Disable links"}
        host={dialog?.kind === "host" ? { value: host, onChange: setHost } : undefined}
        onConfirm={confirmDisable}
        onCancel={() => setDialog(null)}
      >
        {dialog?.kind === "one" ? (
          <p>
            <strong>{shortLabel(dialog.link.short_url)}</strong> stops redirecting at once. Its owner sees the reason and cannot enable it again.
          </p>
        ) : dialog?.kind === "owner" ? (
          <p>
            Every active link of <strong>{dialog.ownerEmail}</strong> stops redirecting at once. The account itself stays active.
          </p>
        ) : (
          <p>Every link whose destination is on this host stops redirecting. To refuse new links there as well, add the host to the blocklist.</p>
        )}
      </DisableDialog>
    </>
  );
}
