// Operator console, single sign-on: every Enterprise connection with its owner, issuer and domains; removal (audited).
import { useCallback, useEffect, useState } from "react";
import type { AdminSsoConnection } from "@contract/sso";
import { adminApi } from "./admin-api";
import { Alert, ConfirmDialog, DataTable, EmptyState, Spinner, errorMessage, formatDateTime, useConfirmedDelete, useTitle } from "../shared/ui";

export function AdminSsoPage() {
  useTitle("SSO · Operator");
  const [rows, setRows] = useState<AdminSsoConnection[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = useCallback(() => {
    adminApi.ssoConnections().then(setRows, (e) => setError(errorMessage(e)));
  }, []);
  useEffect(load, [load]);
  const del = useConfirmedDelete(async (c: AdminSsoConnection) => {
    await adminApi.removeSsoConnection(c.id);
    setRows((prev) => prev?.filter((x) => x.id !== c.id) ?? null);
    setNotice(`Removed the single sign-on connection of ${c.owner_email}.`);
  });

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Single sign-on connections</h1>
          <p className="muted">Enterprise owners' identity providers. Removing one stops sign-ins through it; its members keep their accounts.</p>
        </div>
      </div>
      {notice ? <Alert kind="success">{notice}</Alert> : null}
      {error ? <Alert>{error}</Alert> : null}
      {rows === null && !error ? (
        <Spinner />
      ) : rows ? (
        <DataTable
          testId="admin-sso-table"
          frame="none"
          columns={["Owner", "Issuer", "Domains", "Require SSO", "Updated"]}
          actions
          empty={<EmptyState title="No connections" testId="admin-sso-empty" icon="shield" />}
        >
          {rows.map((c) => (
            <tr key={c.id} data-testid="admin-sso-row">
              <td>{c.owner_email}</td>
              <td>
                <span className="break-anywhere">{c.issuer}</span>
                <div className="muted small">client {c.client_id}</div>
              </td>
              <td>
                {c.domains.map((d) => (
                  <div key={d.domain}>
                    {d.domain} <span className={`badge ${d.status === "verified" ? "badge-ok" : "badge-warn"}`}>{d.status}</span>
                  </div>
                ))}
              </td>
              <td>{c.require_sso ? "Yes" : "No"}</td>
              <td>{formatDateTime(c.updated_at)}</td>
              <td>
                <button type="button" className="btn btn-danger-ghost btn-sm" onClick={() => del.ask(c)} data-testid="admin-sso-remove">
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <ConfirmDialog {...del.dialog} title={`Remove ${del.item?.owner_email ?? ""}'s connection?`} confirmLabel="Remove" danger>
        <p>Nobody signs in through {del.item?.issuer} any more. The removal is recorded in the audit log.</p>
      </ConfirmDialog>
    </>
  );
}
