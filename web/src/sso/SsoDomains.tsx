// The connection's email domains: the TXT record each needs (copy buttons), its status, and a verify button.
import type { SsoDomain } from "@contract/sso";
import { Alert, CopyButton, DataTable, formatDateTime } from "../shared/ui";
import { useSubmit } from "../shared/submit";
import { ssoApi } from "./sso-api";

function DomainRow({ d, onChange }: { d: SsoDomain; onChange: (d: SsoDomain) => void }) {
  const { busy, error, run: verify } = useSubmit(async () => onChange(await ssoApi.verify(d.domain)));
  return (
    <li className="card domain-item" data-testid="sso-domain" data-domain={d.domain}>
      <div className="domain-head">
        <h3 className="domain-name">{d.domain}</h3>
        <span className={`badge ${d.status === "verified" ? "badge-ok" : "badge-warn"}`} data-testid="sso-domain-status">
          {d.status === "verified" ? "Verified" : "Pending"}
        </span>
      </div>
      <DataTable className="table records-table" frame="none" caption={`DNS record for ${d.domain}`} columns={["Type", "Name", "Value"]}>
        <tr>
          <td>
            <span className="badge">TXT</span>
          </td>
          <td>
            <code className="record-value">{d.record.name}</code>
            <CopyButton text={d.record.name} testId="sso-copy-name" />
          </td>
          <td>
            <code className="record-value" data-testid="sso-record-value">
              {d.record.value}
            </code>
            <CopyButton text={d.record.value} testId="sso-copy-value" />
          </td>
        </tr>
      </DataTable>
      {d.next_action ? (
        <div className="notice" data-testid="sso-domain-next">
          <strong>Next step: </strong>
          {d.next_action}
        </div>
      ) : null}
      {error ? <Alert>{error}</Alert> : null}
      <div className="domain-foot">
        <span className="muted small">
          {d.last_checked_at ? `Last checked ${formatDateTime(d.last_checked_at)}` : "Not checked yet"}
          {d.verified_at ? ` · verified ${formatDateTime(d.verified_at)}` : ""}
        </span>
        <button type="button" className="btn btn-primary btn-sm" onClick={() => void verify()} disabled={busy} data-testid="sso-domain-verify">
          {busy ? "Checking DNS…" : d.status === "verified" ? "Check again" : "Verify"}
        </button>
      </div>
    </li>
  );
}

export function SsoDomains({ domains, onChange }: { domains: SsoDomain[]; onChange: (d: SsoDomain) => void }) {
  return (
    <ul className="domain-list" data-testid="sso-domains">
      {domains.map((d) => (
        <DomainRow key={d.domain} d={d} onChange={onChange} />
      ))}
    </ul>
  );
}
