// The operator's accounts table: the plan chosen in a dropdown (applied only after the confirmation the page
// shows) and one "…" menu per row for suspending, activating and deleting.
import { planName } from "../../shared/plan-gate";
import type { AdminAccount } from "@contract/admin";
import type { Plan } from "@contract/plans";
import { RowMenu } from "../../shared/menu";
import { A, DataTable, FieldMessage, formatDate, formatDateTime } from "../../shared/ui";
import { PLANS } from "@contract/plans";
import { formatNumber } from "../../shared/numbers";

export type AccountAction =
  { kind: "plan"; account: AdminAccount; plan: Plan } | { kind: "status"; account: AdminAccount } | { kind: "delete"; account: AdminAccount };

export function AccountTable(props: {
  accounts: AdminAccount[];
  selfId: string | undefined;
  busyId: string | null;
  rowErrors: Record<string, string>;
  onAction: (a: AccountAction) => void;
}) {
  return (
    <DataTable
      className="table admin-table table-cards"
      testId="accounts-table"
      columns={["Account", "Plan", "Status", "Links", "Clicks", "Last sign-in", "Created"]}
      actions
    >
      {props.accounts.map((a) => (
        <AccountRow key={a.id} account={a} self={a.id === props.selfId} busy={props.busyId === a.id} error={props.rowErrors[a.id]} onAction={props.onAction} />
      ))}
    </DataTable>
  );
}

function AccountRow({
  account: a,
  self,
  busy,
  error,
  onAction,
}: {
  account: AdminAccount;
  self: boolean;
  busy: boolean;
  error?: string;
  onAction: (a: AccountAction) => void;
}) {
  return (
    <tr data-testid="account-row" data-account-id={a.id} className={a.status === "suspended" ? "row-muted" : ""}>
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
        <FieldMessage error={error} testId="account-error" />
      </td>
      <PlanCell account={a} busy={busy} onAction={onAction} />
      <td>
        <span className={`badge ${a.status === "active" ? "badge-ok" : "badge-fail"}`} data-testid="account-status">
          {a.status === "active" ? "Active" : "Suspended"}
        </span>
      </td>
      <td className="num" data-label="Links">
        <A to={`/app/admin/links?owner=${encodeURIComponent(a.email)}`} testId="account-links">
          {formatNumber(a.links)}
        </A>
      </td>
      <td className="num" data-label="Clicks" data-testid="account-clicks">
        {formatNumber(a.clicks)}
      </td>
      <td className="nowrap small" data-label="Last sign-in">
        {a.last_sign_in_at ? formatDateTime(a.last_sign_in_at) : <span className="muted">Never</span>}
      </td>
      <td className="nowrap small" data-label="Created">
        {formatDate(a.created_at)}
      </td>
      <ActionsCell account={a} busy={busy} onAction={onAction} />
    </tr>
  );
}

type CellProps = { account: AdminAccount; busy: boolean; onAction: (a: AccountAction) => void };

/** The plan dropdown: a choice asks for confirmation first (the page's dialog). */
function PlanCell({ account: a, busy, onAction }: CellProps) {
  return (
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
        onChange={(e) => onAction({ kind: "plan", account: a, plan: e.target.value as Plan })}
      >
        {PLANS.map((p) => (
          <option key={p} value={p}>
            {planName(p)}
          </option>
        ))}
      </select>
    </td>
  );
}

/** The row's "…" menu: suspend or activate, delete. */
function ActionsCell({ account: a, busy, onAction }: CellProps) {
  return (
    <td className="cell-actions">
      <RowMenu
        label={`Actions for ${a.email}`}
        testId="account-menu"
        busy={busy}
        items={[
          {
            label: a.status === "active" ? "Suspend…" : "Activate",
            testId: "account-toggle-status",
            danger: a.status === "active",
            onSelect: () => onAction({ kind: "status", account: a }),
          },
          { label: "Delete…", testId: "account-delete", danger: true, onSelect: () => onAction({ kind: "delete", account: a }) },
        ]}
      />
    </td>
  );
}
