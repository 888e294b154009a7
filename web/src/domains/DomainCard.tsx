// One custom domain: its status, the two DNS records to create (copy buttons), verify and what to fix, delete.
import "./domains.css";
import { domainsApi } from "./domains-api";
import type { Domain } from "@contract/domains";
import { Alert, CopyButton, DataTable, formatDateTime } from "../shared/ui";
import { useSubmit } from "../shared/submit";
import { useCallback, useState } from "react";
import { OrphanVisits } from "../shared/orphans/OrphanVisits";
import { DomainApps } from "./DomainApps";

/** The domain's orphan visits, read when opened. */
function DomainOrphans({ id }: { id: string }) {
  const [open, setOpen] = useState(false);
  const load = useCallback(() => domainsApi.orphanVisits(id), [id]);
  return (
    <details className="domain-orphans" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-testid="domain-orphans">
      <summary>Missing paths (orphan visits)</summary>
      {open ? <OrphanVisits load={load} showHost={false} testId="domain-orphan-visits" /> : null}
    </details>
  );
}

export function DomainCard({ domain: d, onChange, onDelete }: { domain: Domain; onChange: (d: Domain) => void; onDelete: () => void }) {
  const verify = useSubmit(async () => onChange(await domainsApi.verifyDomain(d.id)));

  return (
    <li className="card domain-item" data-testid="domain-row" data-hostname={d.hostname}>
      <div className="domain-head">
        <h2 className="domain-name">{d.hostname}</h2>
        <span className={`badge ${d.status === "verified" ? "badge-ok" : "badge-warn"}`} data-testid="domain-status">
          {d.status === "verified" ? "Verified" : "Pending"}
        </span>
        <span className="muted small" data-testid="domain-links">
          {d.link_count === 1 ? "1 link" : `${d.link_count} links`}
        </span>
      </div>

      {d.lost_at ? (
        <Alert kind="warning" testId="domain-lost">
          The check on {formatDateTime(d.lost_at)} no longer found the TXT record: links on {d.hostname} answer “not found” until it is verified again.
        </Alert>
      ) : null}

      <DataTable
        className="table records-table table-cards"
        testId="domain-records"
        frame="none"
        caption={`DNS records for ${d.hostname}`}
        columns={["Type", "Name", "Value"]}
      >
        {d.records.map((r) => (
          <tr key={r.type} data-testid={`record-${r.type.toLowerCase()}`}>
            <td data-label="Type">
              <span className="badge">{r.type}</span>
            </td>
            <td data-label="Name">
              <code className="record-value" data-testid={`record-${r.type.toLowerCase()}-name`}>
                <Breakable text={r.name} />
              </code>
              <CopyButton text={r.name} testId={`copy-${r.type.toLowerCase()}-name`} label="Copy" />
            </td>
            <td data-label="Value">
              <code className="record-value" data-testid={`record-${r.type.toLowerCase()}-value`}>
                <Breakable text={r.value} />
              </code>
              <CopyButton text={r.value} testId={`copy-${r.type.toLowerCase()}-value`} label="Copy" />
            </td>
          </tr>
        ))}
      </DataTable>
      <LoopbackTargetWarning records={d.records} />
      <p className="muted small">Keep the TXT record in place: the domain is checked again regularly, and goes back to pending without it.</p>

      {d.next_action ? (
        <div className={`notice ${d.status === "verified" ? "notice-quiet" : ""}`} data-testid="domain-next-action">
          <strong>{d.status === "verified" ? "Note: " : "Next step: "}</strong>
          {d.next_action}
        </div>
      ) : null}
      {verify.error ? <Alert testId="domain-verify-error">{verify.error}</Alert> : null}
      {d.status === "verified" ? <DomainOrphans id={d.id} /> : null}
      <DomainApps id={d.id} />

      <div className="domain-foot">
        <span className="muted small" data-testid="domain-last-check">
          {d.last_checked_at ? `Last checked ${formatDateTime(d.last_checked_at)}` : "Not checked yet"}
          {d.verified_at ? ` · verified ${formatDateTime(d.verified_at)}` : ""}
        </span>
        <div className="row gap">
          <button type="button" className="btn btn-primary btn-sm" onClick={() => void verify.run()} disabled={verify.busy} data-testid="domain-verify">
            {verify.busy ? "Checking DNS…" : d.status === "verified" ? "Check again" : "Verify"}
          </button>
          <button type="button" className="btn btn-danger-ghost btn-sm" onClick={onDelete} data-testid="domain-delete">
            Delete
          </button>
        </div>
      </div>
    </li>
  );
}

/** A CNAME to localhost, 127.x or ::1 cannot work from the internet: CNAME_TARGET is still the default. */
function LoopbackTargetWarning({ records }: { records: Domain["records"] }) {
  const target = records.find((r) => r.type === "CNAME")?.value ?? "";
  const host = target
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[(.*)\]$/, "$1");
  if (!(host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "::1")) return null;
  return (
    <Alert kind="warning" testId="cname-loopback">
      The CNAME target {target} is a loopback name: DNS cannot lead visitors to this service through it. The operator sets the real host name with CNAME_TARGET
      (docs/custom-domains.md).
    </Alert>
  );
}

/** A DNS name or value that may break after its dots, hyphens and equals signs, never in the middle of a word. */
function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[.\-_=])/);
  return (
    <>
      {parts.map((p, i) => (
        <span key={i}>
          {p}
          {i < parts.length - 1 ? <wbr /> : null}
        </span>
      ))}
    </>
  );
}
