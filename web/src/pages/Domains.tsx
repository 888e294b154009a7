// Custom domains: add a hostname, create its two DNS records (copy buttons), verify and read what to
// fix, see when it was last checked or why it went back to pending, delete it with its links.
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { api, ApiError, planAtLeast, type Domain } from "../api";
import { useSession } from "../session";
import { Alert, ConfirmDialog, CopyButton, EmptyState, Field, Spinner, UpgradeHint, errorMessage, formatDateTime, useConfirmedDelete, useTitle } from "../ui";

export function DomainsPage() {
  useTitle("Domains");
  const { user } = useSession();
  const allowed = planAtLeast(user?.plan, "business");
  const [domains, setDomains] = useState<Domain[]>([]);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [hostname, setHostname] = useState("");
  const [adding, setAdding] = useState(false);
  const [addError, setAddError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(async () => {
    setLoading(true);
    setLoadError(null);
    try {
      setDomains(await api.listDomains());
    } catch (e) {
      setLoadError(errorMessage(e));
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  async function add(e: FormEvent) {
    e.preventDefault();
    setAddError(null);
    setNotice(null);
    if (!hostname.trim()) {
      setAddError("Enter a domain name, e.g. links.example.com.");
      return;
    }
    setAdding(true);
    try {
      const d = await api.addDomain(hostname.trim());
      setDomains((prev) => [...prev, d]);
      setHostname("");
      setNotice(`${d.hostname} added. Create its two DNS records, then verify.`);
    } catch (err) {
      setAddError(err instanceof ApiError ? (err.details[0]?.message ? `${err.details[0].field === "hostname" ? "Domain" : err.details[0].field} ${err.details[0].message}` : err.message) : String(err));
    } finally {
      setAdding(false);
    }
  }

  const del = useConfirmedDelete(async (domain: Domain) => {
    await api.deleteDomain(domain.id);
    setDomains((prev) => prev.filter((d) => d.id !== domain.id));
    setNotice(`${domain.hostname} deleted.`);
  });
  const toDelete = del.item;

  const replace = (d: Domain) => setDomains((prev) => prev.map((x) => (x.id === d.id ? d : x)));

  return (
    <div className="domains-page">
      <div className="page-head">
        <div>
          <h1>Custom domains</h1>
          <p className="muted">Serve your short links on your own domain, e.g. links.example.com/sale.</p>
        </div>
      </div>

      {allowed ? (
        <form className="card inline-form" onSubmit={add} noValidate data-testid="domain-add-form">
          <Field id="domain-hostname" label="Domain name" error={addError ?? undefined} className="grow" hint="A subdomain you control, such as links.example.com.">
            <input
              id="domain-hostname"
              data-testid="domain-hostname"
              type="text"
              autoCapitalize="off"
              autoCorrect="off"
              spellCheck={false}
              placeholder="links.example.com"
              value={hostname}
              onChange={(e) => setHostname(e.target.value)}
            />
          </Field>
          <button type="submit" className="btn btn-primary" disabled={adding} data-testid="domain-add">
            {adding ? "Adding…" : "Add domain"}
          </button>
        </form>
      ) : (
        <p className="card gated-note" data-testid="domains-gated">
          <UpgradeHint plan="Business">Custom domains are available on Business and Enterprise.</UpgradeHint>
        </p>
      )}

      {notice ? <Alert kind="success" testId="domain-notice">{notice}</Alert> : null}

      {loadError ? (
        <Alert testId="domains-error">
          Could not load your domains: {loadError}{" "}
          <button type="button" className="btn-link" onClick={() => void load()}>
            Try again
          </button>
        </Alert>
      ) : null}

      {loading ? (
        <Spinner label="Loading your domains…" />
      ) : domains.length === 0 && !loadError ? (
        <EmptyState title="No custom domains yet" testId="domains-empty">
          <p className="muted">{allowed ? "Add a domain above; you will get the two DNS records to create." : "Upgrade to Business to add one."}</p>
        </EmptyState>
      ) : (
        <ul className="domain-list" data-testid="domain-list">
          {domains.map((d) => (
            <DomainCard
              key={d.id}
              domain={d}
              onChange={replace}
              onDelete={() => del.ask(d)}
            />
          ))}
        </ul>
      )}

      <ConfirmDialog {...del.dialog} title={`Delete ${toDelete?.hostname ?? "this domain"}?`} confirmLabel="Delete domain" danger>
        <p>
          {toDelete && toDelete.link_count > 0 ? (
            <>
              {toDelete.link_count === 1 ? (
                <>
                  Its <strong>1 link</strong> is deleted with it and stops working
                </>
              ) : (
                <>
                  Its <strong>{toDelete.link_count} links</strong> are deleted with it and stop working
                </>
              )}{" "}
              immediately (visitors get “not found”), statistics included.{" "}
            </>
          ) : (
            <>Links can no longer be created on it. </>
          )}
          The domain name is then free to add again. This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function DomainCard({ domain: d, onChange, onDelete }: { domain: Domain; onChange: (d: Domain) => void; onDelete: () => void }) {
  const [verifying, setVerifying] = useState(false);
  const [verifyError, setVerifyError] = useState<string | null>(null);

  async function verify() {
    setVerifying(true);
    setVerifyError(null);
    try {
      onChange(await api.verifyDomain(d.id));
    } catch (e) {
      setVerifyError(errorMessage(e));
    } finally {
      setVerifying(false);
    }
  }

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

      <div className="table-wrap">
        <table className="table records-table" data-testid="domain-records">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {d.records.map((r) => (
              <tr key={r.type} data-testid={`record-${r.type.toLowerCase()}`}>
                <td>
                  <span className="badge">{r.type}</span>
                </td>
                <td>
                  <code className="record-value" data-testid={`record-${r.type.toLowerCase()}-name`}>
                    {r.name}
                  </code>
                  <CopyButton text={r.name} testId={`copy-${r.type.toLowerCase()}-name`} label="Copy" />
                </td>
                <td>
                  <code className="record-value" data-testid={`record-${r.type.toLowerCase()}-value`}>
                    {r.value}
                  </code>
                  <CopyButton text={r.value} testId={`copy-${r.type.toLowerCase()}-value`} label="Copy" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted small">Keep the TXT record in place: the domain is checked again regularly, and goes back to pending without it.</p>

      {d.next_action ? (
        <div className={`notice ${d.status === "verified" ? "notice-quiet" : ""}`} data-testid="domain-next-action">
          <strong>{d.status === "verified" ? "Note: " : "Next step: "}</strong>
          {d.next_action}
        </div>
      ) : null}
      {verifyError ? <Alert testId="domain-verify-error">{verifyError}</Alert> : null}

      <div className="domain-foot">
        <span className="muted small" data-testid="domain-last-check">
          {d.last_checked_at ? `Last checked ${formatDateTime(d.last_checked_at)}` : "Not checked yet"}
          {d.verified_at ? ` · verified ${formatDateTime(d.verified_at)}` : ""}
        </span>
        <div className="row gap">
          <button type="button" className="btn btn-primary btn-sm" onClick={verify} disabled={verifying} data-testid="domain-verify">
            {verifying ? "Checking DNS…" : d.status === "verified" ? "Check again" : "Verify"}
          </button>
          <button type="button" className="btn btn-danger-ghost btn-sm" onClick={onDelete} data-testid="domain-delete">
            Delete
          </button>
        </div>
      </div>
    </li>
  );
}
