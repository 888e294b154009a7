// Operator console, audit log: every operator action and every account holder's security change to their own
// account (who and in which role, when, what, before -> after), filtered by action, email and target id, newest first.
import { useState } from "react";
import { adminApi } from "./admin-api";
import { DataTable, useTitle } from "../shared/ui";
import { AuditRow } from "../shared/audit-row";
import { ListView, usePagedList, useUrlFilters } from "../shared/lists";
import { type AuditAction, AuditFilters } from "../shared/audit-filters";

export { type Change, changes } from "../shared/audit-row";

const ACTIONS: AuditAction[] = [
  { value: "account.plan", label: "Account plan changed" },
  { value: "account.status", label: "Account suspended / activated" },
  { value: "account.delete", label: "Account deleted" },
  { value: "account.admin", label: "Operator flag (command line)" },
  { value: "link.disable", label: "Link disabled" },
  { value: "link.enable", label: "Link enabled" },
  { value: "link.disable_bulk", label: "Links disabled in bulk" },
  { value: "blocklist.add", label: "Host blocked" },
  { value: "blocklist.remove", label: "Host unblocked" },
  { value: "report.dismiss", label: "Report dismissed" },
  { value: "report.disable_link", label: "Report: link disabled" },
  { value: "report.ban_owner", label: "Report: owner banned" },
  { value: "api_key.create", label: "API key created (account holder)" },
  { value: "api_key.revoke", label: "API key revoked (account holder)" },
  { value: "account.2fa_enabled", label: "Two-factor sign-in on (account holder)" },
  { value: "account.2fa_disabled", label: "Two-factor sign-in off (account holder)" },
  { value: "account.recovery_codes_regenerated", label: "New recovery codes (account holder)" },
  { value: "account.recovery_code_used", label: "Recovery code used (account holder)" },
  { value: "passkey.added", label: "Passkey added (account holder)" },
  { value: "passkey.removed", label: "Passkey removed (account holder)" },
  { value: "team.2fa_policy", label: "Team two-factor policy (account holder)" },
  { value: "sso.create", label: "Single sign-on set up (account holder)" },
  { value: "sso.update", label: "Single sign-on changed (account holder)" },
  { value: "sso.delete", label: "Single sign-on removed" },
];

export function AdminAuditPage() {
  useTitle("Audit log · Operator");
  const [filters, setFilters] = useUrlFilters(["action", "actor", "target"] as const);
  const [form, setForm] = useState({ actor: filters.actor, target: filters.target });
  const list = usePagedList(
    (cursor) => adminApi.audit({ ...filters, cursor, limit: 50 }).then((r) => ({ items: r.entries, next: r.next_cursor })),
    JSON.stringify(filters),
  );
  const filtered = !!(filters.action || filters.actor || filters.target);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Audit log</h1>
          <p className="muted" data-testid="audit-intro">
            Every operator action, and every change account holders make to their own accounts (API keys, two-factor sign-in, passkeys, team policy, single
            sign-on), written with the action itself. Entries cannot be changed or deleted.
          </p>
        </div>
      </div>

      <AuditFilters
        prefix="audit"
        actions={ACTIONS}
        fields={[
          { key: "actor", label: "Who (email)", type: "search" },
          { key: "target", label: "Target id", type: "search" },
        ]}
        action={filters.action}
        form={form}
        setForm={setForm}
        apply={setFilters}
      />

      <ListView
        list={list}
        what="the audit log"
        loading="Loading the audit log…"
        testId="audit"
        empty={{
          title: filtered ? "No entry matches" : "Nothing logged yet",
          icon: "audit",
          onClear: filtered
            ? () => {
                setForm({ actor: "", target: "" });
                setFilters({ action: "", actor: "", target: "" });
              }
            : null,
          text: <p className="muted">Operators' and account holders' actions show up here as they happen.</p>,
        }}
      >
        {(items) => (
          <DataTable className="table admin-table audit-table table-cards" testId="audit-table" columns={["When", "Who", "Action", "What"]}>
            {items.map((e) => (
              <AuditRow
                key={e.id}
                entry={e}
                onTarget={() => {
                  setForm({ actor: "", target: e.target_id });
                  setFilters({ action: "", actor: "", target: e.target_id });
                }}
              />
            ))}
          </DataTable>
        )}
      </ListView>
    </>
  );
}
