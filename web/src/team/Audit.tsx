// The team's audit log (docs/audit.md): role and folder access changes, single sign-on and SCIM, newest first, filtered
// by action, who acted, target and days, with CSV and JSON exports of what the filters select. /app/team/audit for the
// owner, /app/team/<owner_id>/audit for an admin of that team (the server refuses everyone else).
import { useState } from "react";
import { useParams } from "react-router";
import { teamApi, teamAuditExportUrl, type TeamAuditFilters } from "./team-api";
import { AuditRow } from "../shared/audit-row";
import { A, DataTable, useTitle } from "../shared/ui";
import { ListView, usePagedList, useUrlFilters } from "../shared/lists";
import { type AuditAction, AuditFilters } from "../shared/audit-filters";
import "./team.css";

const ACTIONS: AuditAction[] = [
  { value: "team.role", label: "Role changed" },
  { value: "folder.access", label: "Folder access changed" },
  { value: "team.2fa_policy", label: "Two-factor policy" },
  { value: "sso.create", label: "Single sign-on set up" },
  { value: "sso.update", label: "Single sign-on changed" },
  { value: "sso.delete", label: "Single sign-on removed" },
  { value: "sso.domain_verified", label: "Domain verified" },
  { value: "sso.saml_create", label: "SAML set up" },
  { value: "sso.saml_update", label: "SAML changed" },
];

type Form = Omit<TeamAuditFilters, "action">;
const NO_FORM: Form = { actor: "", target: "", from: "", to: "" };

export function TeamAuditPage() {
  useTitle("Audit log · Team");
  const owner = useParams().ownerId;
  const [filters, setFilters] = useUrlFilters(["action", "actor", "target", "from", "to"] as const);
  const [form, setForm] = useState<Form>({ actor: filters.actor, target: filters.target, from: filters.from, to: filters.to });
  const list = usePagedList(
    (cursor) => teamApi.audit({ ...filters, owner, cursor: cursor ?? undefined, limit: 50 }).then((r) => ({ items: r.entries, next: r.next_cursor })),
    JSON.stringify([filters, owner]),
  );
  const filtered = Object.values(filters).some((v) => v !== "");
  const clear = () => {
    setForm(NO_FORM);
    setFilters({ action: "", ...NO_FORM });
  };

  return (
    <div className="team-page team-audit">
      <p className="breadcrumb">
        <A to={owner ? `/app/team/${owner}` : "/app/team"}>← Team</A>
      </p>
      <div className="page-head">
        <div>
          <h1>Audit log</h1>
          <p className="muted" data-testid="team-audit-intro">
            Every change to the team's roles, folder access, single sign-on and SCIM, written with the change itself. Entries cannot be changed or deleted.
          </p>
        </div>
        <Exports filters={filters} owner={owner} />
      </div>

      <AuditFilters
        prefix="team-audit"
        actions={ACTIONS}
        fields={[
          { key: "actor", label: "Who (email)", type: "search" },
          { key: "from", label: "From", type: "date" },
          { key: "to", label: "To", type: "date" },
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
        testId="team-audit"
        empty={{
          title: filtered ? "No entry matches" : "Nothing logged yet",
          icon: "audit",
          onClear: filtered ? clear : null,
          text: <p className="muted">Role changes, folder access, single sign-on and SCIM show up here as they happen.</p>,
        }}
      >
        {(items) => (
          <DataTable className="table admin-table audit-table table-cards" testId="team-audit-table" columns={["When", "Who", "Action", "What"]}>
            {items.map((e) => (
              <AuditRow
                key={e.id}
                entry={e}
                onTarget={() => {
                  setForm({ ...NO_FORM, target: e.target_id });
                  setFilters({ action: "", ...NO_FORM, target: e.target_id });
                }}
              />
            ))}
          </DataTable>
        )}
      </ListView>
    </div>
  );
}

/** The downloads of what the filters select. */
function Exports({ filters, owner }: { filters: TeamAuditFilters; owner: string | undefined }) {
  return (
    <div className="page-actions" data-testid="team-audit-exports">
      <a className="btn btn-secondary btn-sm" href={teamAuditExportUrl("csv", filters, owner)} download data-testid="team-audit-csv">
        Export CSV
      </a>
      <a className="btn btn-secondary btn-sm" href={teamAuditExportUrl("json", filters, owner)} download data-testid="team-audit-json">
        Export JSON
      </a>
    </div>
  );
}
