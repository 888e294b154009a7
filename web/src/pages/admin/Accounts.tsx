// Operator console, accounts: search by email, filter by plan and status, change a plan, suspend or activate, delete.
import { useState, type FormEvent } from "react";
import { adminApi, planLabel, type AdminAccount, type Plan } from "../../api";
import { useSession } from "../../session";
import { A, Alert, ConfirmDialog, EmptyState, Field, Spinner, TableHead, errorMessage, formatDate, formatDateTime, useTitle } from "../../ui";
import { ListError, LoadMore, usePagedList, useUrlFilters } from "./common";

const PLANS: Plan[] = ["free", "pro", "business", "enterprise"];
const PAGE = 50;

export function AdminAccountsPage() {
  useTitle("Accounts · Operator");
  const { user } = useSession();
  const [filters, setFilters] = useUrlFilters(["q", "plan", "status"] as const);
  const [search, setSearch] = useState(filters.q);
  const list = usePagedList(
    (cursor) => adminApi.accounts({ ...filters, cursor, limit: PAGE }).then((r) => ({ items: r.accounts, next: r.next_cursor })),
    JSON.stringify(filters),
  );
  const [busyId, setBusyId] = useState<string | null>(null);
  const [rowErrors, setRowErrors] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string | null>(null);
  const [toDelete, setToDelete] = useState<AdminAccount | null>(null);
  const [confirmEmail, setConfirmEmail] = useState("");
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  async function change(a: AdminAccount, body: { plan?: Plan; status?: "active" | "suspended" }, done: string) {
    setBusyId(a.id);
    setNotice(null);
    setRowErrors(({ [a.id]: _, ...rest }) => rest);
    try {
      const updated = await adminApi.updateAccount(a.id, body);
      list.update((prev) => prev.map((x) => (x.id === a.id ? { ...x, ...updated } : x)));
      setNotice(done);
    } catch (e) {
      setRowErrors((r) => ({ ...r, [a.id]: errorMessage(e) }));
    } finally {
      setBusyId(null);
    }
  }

  async function remove() {
    if (!toDelete) return;
    setDeleting(true);
    setDeleteError(null);
    try {
      await adminApi.deleteAccount(toDelete.id, confirmEmail.trim());
      list.update((prev) => prev.filter((x) => x.id !== toDelete.id));
      setNotice(`Deleted the account ${toDelete.email} with its links and statistics.`);
      setToDelete(null);
    } catch (e) {
      setDeleteError(errorMessage(e));
    } finally {
      setDeleting(false);
    }
  }

  const filtered = !!(filters.q || filters.plan || filters.status);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Accounts</h1>
          <p className="muted">Every account of the service. Changes apply at once and are written to the audit log.</p>
        </div>
      </div>

      <form
        className="card filter-bar"
        role="search"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setFilters({ q: search });
        }}
      >
        <Field id="accounts-q" label="Email contains" className="grow">
          <input id="accounts-q" data-testid="accounts-search" type="search" placeholder="name@example.com" value={search} onChange={(e) => setSearch(e.target.value)} />
        </Field>
        <Field id="accounts-plan" label="Plan">
          <select id="accounts-plan" data-testid="accounts-plan-filter" value={filters.plan} onChange={(e) => setFilters({ plan: e.target.value, q: search })}>
            <option value="">All plans</option>
            {PLANS.map((p) => (
              <option key={p} value={p}>
                {planLabel(p)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="accounts-status" label="Status">
          <select id="accounts-status" data-testid="accounts-status-filter" value={filters.status} onChange={(e) => setFilters({ status: e.target.value, q: search })}>
            <option value="">Any status</option>
            <option value="active">Active</option>
            <option value="suspended">Suspended</option>
          </select>
        </Field>
        <button type="submit" className="btn btn-secondary filter-submit" data-testid="accounts-search-submit">
          Search
        </button>
      </form>

      {notice ? (
        <Alert kind="success" testId="accounts-notice">
          {notice}
        </Alert>
      ) : null}
      {list.error ? <ListError what="the accounts" error={list.error} onRetry={list.reload} testId="accounts-error" /> : null}

      {list.items === null ? (
        list.error ? null : <Spinner label="Loading accounts…" />
      ) : list.items.length === 0 ? (
        <EmptyState title={filtered ? "No account matches" : "No accounts yet"} testId="accounts-empty">
          {filtered ? (
            <button
              type="button"
              className="btn btn-secondary"
              onClick={() => {
                setSearch("");
                setFilters({ q: "", plan: "", status: "" });
              }}
            >
              Clear the filters
            </button>
          ) : null}
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap card card-flush">
            <table className="table admin-table" data-testid="accounts-table">
              <TableHead columns={["Account", "Plan", "Status", "Links", "Clicks", "Last sign-in", "Created"]} actions />
              <tbody>
                {list.items.map((a) => {
                  const self = a.id === user?.id;
                  const busy = busyId === a.id;
                  return (
                    <tr key={a.id} data-testid="account-row" data-account-id={a.id} className={a.status === "suspended" ? "row-muted" : ""}>
                      <td className="cell-account">
                        <div className="cell-wrap" data-testid="account-email">
                          <strong>{a.email}</strong>
                        </div>
                        {a.name ? <div className="muted small cell-wrap">{a.name}</div> : null}
                        <div className="row gap-sm">
                          {a.is_admin ? <span className="badge badge-plan">Operator</span> : null}
                          {self ? <span className="badge">You</span> : null}
                          {a.email_verified ? null : <span className="badge badge-warning">Unverified</span>}
                        </div>
                        {rowErrors[a.id] ? (
                          <p className="field-error" role="alert" data-testid="account-error">
                            {rowErrors[a.id]}
                          </p>
                        ) : null}
                      </td>
                      <td>
                        <label className="visually-hidden" htmlFor={`plan-${a.id}`}>
                          Plan of {a.email}
                        </label>
                        <select
                          id={`plan-${a.id}`}
                          className="select-sm"
                          data-testid="account-plan"
                          value={a.plan}
                          disabled={busy}
                          onChange={(e) => void change(a, { plan: e.target.value as Plan }, `${a.email} is now on the ${planLabel(e.target.value)} plan.`)}
                        >
                          {PLANS.map((p) => (
                            <option key={p} value={p}>
                              {planLabel(p)}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td>
                        <span className={`badge ${a.status === "active" ? "badge-ok" : "badge-fail"}`} data-testid="account-status">
                          {a.status === "active" ? "Active" : "Suspended"}
                        </span>
                      </td>
                      <td className="num">
                        <A to={`/app/admin/links?owner=${encodeURIComponent(a.email)}`} testId="account-links">
                          {a.links.toLocaleString()}
                        </A>
                      </td>
                      <td className="num" data-testid="account-clicks">
                        {a.clicks.toLocaleString()}
                      </td>
                      <td className="nowrap small">{a.last_sign_in_at ? formatDateTime(a.last_sign_in_at) : <span className="muted">Never</span>}</td>
                      <td className="nowrap small">{formatDate(a.created_at)}</td>
                      <td className="cell-actions">
                        <div className="row-actions">
                          <button
                            type="button"
                            className="btn btn-secondary btn-sm"
                            disabled={busy}
                            data-testid="account-toggle-status"
                            onClick={() =>
                              void change(
                                a,
                                { status: a.status === "active" ? "suspended" : "active" },
                                a.status === "active" ? `Suspended ${a.email}: its API keys and dashboard writes are refused.` : `Activated ${a.email}.`,
                              )
                            }
                          >
                            {busy ? "Working…" : a.status === "active" ? "Suspend" : "Activate"}
                          </button>
                          <button
                            type="button"
                            className="btn btn-danger-ghost btn-sm"
                            data-testid="account-delete"
                            onClick={() => {
                              setConfirmEmail("");
                              setDeleteError(null);
                              setToDelete(a);
                            }}
                          >
                            Delete
                          </button>
                        </div>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <LoadMore next={list.next} busy={list.loadingMore} onClick={() => void list.loadMore()} testId="accounts-load-more" />
        </>
      )}

      <ConfirmDialog
        open={!!toDelete}
        title="Delete this account?"
        confirmLabel="Delete account"
        danger
        busy={deleting}
        error={deleteError}
        confirmDisabled={confirmEmail.trim() !== toDelete?.email}
        onConfirm={() => void remove()}
        onCancel={() => setToDelete(null)}
      >
        <p>
          <strong>{toDelete?.email}</strong> is deleted with its {toDelete?.links.toLocaleString()} links, their clicks, its API keys, team, domains and
          webhooks. This cannot be undone.
        </p>
        <Field id="confirm-email" label="Type the account's email to confirm">
          <input
            id="confirm-email"
            data-testid="confirm-email"
            type="text"
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            value={confirmEmail}
            onChange={(e) => setConfirmEmail(e.target.value)}
          />
        </Field>
      </ConfirmDialog>
    </>
  );
}
