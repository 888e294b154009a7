// Operator console, accounts: search by email, filter by plan and status; change a plan, suspend or activate,
// delete, each after a confirmation that names the consequences.
import { planName } from "../shared/plan-gate";
import { useState } from "react";
import { adminApi } from "./admin-api";
import type { Plan } from "@contract/plans";
import type { AccountStatus, AdminAccount } from "@contract/admin";
import { useSession } from "../shared/session";
import { Alert, Field, useTitle } from "../shared/ui";
import { useRowSubmit } from "../shared/submit";
import { FilterForm, ListView, usePagedList, useUrlFilters } from "../shared/lists";
import { AccountTable, type AccountAction } from "./accounts/AccountTable";
import { ChangeDialog, DeleteAccountDialog, type PendingChange } from "./accounts/AccountDialogs";
import { PLANS } from "@contract/plans";

const PAGE = 50;

// eslint-disable-next-line max-lines-per-function -- the list's filters, its row actions and their confirmations share the page's state.
export function AdminAccountsPage() {
  useTitle("Accounts · Operator");
  const { user } = useSession();
  const [filters, setFilters] = useUrlFilters(["q", "plan", "status"] as const);
  const [search, setSearch] = useState(filters.q);
  const list = usePagedList(
    (cursor) => adminApi.accounts({ ...filters, cursor, limit: PAGE }).then((r) => ({ items: r.accounts, next: r.next_cursor })),
    JSON.stringify(filters),
  );
  const rows = useRowSubmit();
  const [notice, setNotice] = useState<string | null>(null);
  const [pending, setPending] = useState<PendingChange | null>(null);
  const [toDelete, setToDelete] = useState<AdminAccount | null>(null);

  function change(a: AdminAccount, body: { plan?: Plan; status?: AccountStatus }, done: string) {
    setNotice(null);
    return rows.run(a.id, async () => {
      const updated = await adminApi.updateAccount(a.id, body);
      list.update((prev) => prev.map((x) => (x.id === a.id ? { ...x, ...updated } : x)));
      setNotice(done);
    });
  }

  async function confirmPending() {
    if (!pending) return;
    const a = pending.account;
    if (pending.kind === "plan") await change(a, { plan: pending.plan }, `${a.email} is now on the ${planName(pending.plan)} plan.`);
    else await change(a, { status: "suspended" }, `Suspended ${a.email}: its API keys and dashboard writes are refused.`);
    // A refusal shows on the row, where the operator looks once the dialog is gone.
    setPending(null);
  }

  function act(x: AccountAction) {
    if (x.kind === "plan") setPending({ kind: "plan", account: x.account, plan: x.plan });
    else if (x.kind === "delete") setToDelete(x.account);
    else if (x.account.status === "active") setPending({ kind: "suspend", account: x.account });
    else void change(x.account, { status: "active" }, `Activated ${x.account.email}.`);
  }

  async function remove(email: string) {
    if (!toDelete) return;
    await adminApi.deleteAccount(toDelete.id, email);
    list.update((prev) => prev.filter((x) => x.id !== toDelete.id));
    setNotice(`Deleted the account ${toDelete.email} with its links and statistics.`);
    setToDelete(null);
  }

  const filtered = !!(filters.q || filters.plan || filters.status);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Accounts</h1>
          <p className="muted">Every account of the service. Changes apply once confirmed and are written to the audit log.</p>
        </div>
      </div>

      <FilterForm onApply={() => setFilters({ q: search })}>
        <Field id="accounts-q" label="Email contains" className="grow">
          <input
            id="accounts-q"
            data-testid="accounts-search"
            type="search"
            placeholder="name@example.com"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </Field>
        <Field id="accounts-plan" label="Plan">
          <select id="accounts-plan" data-testid="accounts-plan-filter" value={filters.plan} onChange={(e) => setFilters({ plan: e.target.value, q: search })}>
            <option value="">All plans</option>
            {PLANS.map((p) => (
              <option key={p} value={p}>
                {planName(p)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="accounts-status" label="Status">
          <select
            id="accounts-status"
            data-testid="accounts-status-filter"
            value={filters.status}
            onChange={(e) => setFilters({ status: e.target.value, q: search })}
          >
            <option value="">Any status</option>
            <option value="active">Active</option>
            <option value="suspended">Suspended</option>
          </select>
        </Field>
        <button type="submit" className="btn btn-secondary filter-submit" data-testid="accounts-search-submit">
          Search
        </button>
      </FilterForm>

      {notice ? (
        <Alert kind="success" testId="accounts-notice">
          {notice}
        </Alert>
      ) : null}
      <ListView
        list={list}
        what="the accounts"
        loading="Loading accounts…"
        testId="accounts"
        empty={{
          title: filtered ? "No account matches" : "No accounts yet",
          icon: "team",
          onClear: filtered
            ? () => {
                setSearch("");
                setFilters({ q: "", plan: "", status: "" });
              }
            : null,
        }}
      >
        {(items) => <AccountTable accounts={items} selfId={user?.id} busyId={rows.busyId} rowErrors={rows.errors} onAction={act} />}
      </ListView>

      <ChangeDialog
        change={pending}
        busy={pending !== null && rows.busyId === pending.account.id}
        onConfirm={() => void confirmPending()}
        onCancel={() => setPending(null)}
      />
      <DeleteAccountDialog account={toDelete} onConfirm={remove} onCancel={() => setToDelete(null)} />
    </>
  );
}
