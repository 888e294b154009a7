// Custom domains: add a hostname, create its two DNS records (copy buttons), verify and read what to
// fix, see when it was last checked or why it went back to pending, delete it with its links.
import { domainsApi } from "./domains-api";
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { ApiError } from "../shared/api";
import type { Domain } from "@contract/domains";
import { useSession } from "../shared/session";
import { ManagedTeamHead, useManagedTeam } from "../shared/team-view";
import { Alert, ConfirmDialog, EmptyState, Field, Spinner, errorMessage, useConfirmedDelete, useTitle } from "../shared/ui";
import { PlanGate, can } from "../shared/plan-gate";
import { ListError } from "../shared/lists";
import { useSubmit } from "../shared/submit";
import { MESSAGES, typedHostname } from "../../../src/contract/form-rules";
import { DomainCard } from "./DomainCard";
import { OpenOutsideDefault } from "./OpenOutsideDefault";

// eslint-disable-next-line max-lines-per-function -- the add form, the list and the plan gate share the page's state.
export function DomainsPage() {
  useTitle("Domains");
  const { user } = useSession();
  // A team's domains for its admin (/app/domains/<owner id>): the owner's plan decides, the server answers for it.
  const { owner, team } = useManagedTeam();
  const allowed = owner !== null || can(user?.plan ?? "free", "custom_domains");
  const [domains, setDomains] = useState<Domain[]>([]);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [hostname, setHostname] = useState("");
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(async () => {
    setLoading(true);
    setLoadError(null);
    try {
      setDomains(await domainsApi.listDomains(owner));
    } catch (e) {
      setLoadError(errorMessage(e));
    } finally {
      setLoading(false);
    }
  }, [owner]);

  useEffect(() => {
    void load();
  }, [load]);

  const adding = useSubmit(
    async (typed: string) => {
      const d = await domainsApi.addDomain(typed, owner);
      setDomains((prev) => [...prev, d]);
      setHostname("");
      setNotice(`${d.hostname} added. Create its two DNS records, then verify.`);
    },
    (err) => (err instanceof ApiError ? (err.forFields(["hostname"]).fields.hostname ?? err.message) : String(err)),
  );

  function add(e: FormEvent) {
    e.preventDefault();
    adding.setError(null);
    setNotice(null);
    const typed = typedHostname(hostname);
    if (!typed) adding.setError(MESSAGES.hostnameRequired);
    else void adding.run(typed);
  }

  const del = useConfirmedDelete(async (domain: Domain) => {
    await domainsApi.deleteDomain(domain.id);
    setDomains((prev) => prev.filter((d) => d.id !== domain.id));
    setNotice(`${domain.hostname} deleted.`);
  });
  const toDelete = del.item;

  const replace = (d: Domain) => setDomains((prev) => prev.map((x) => (x.id === d.id ? d : x)));

  return (
    <div className="domains-page">
      <div className="page-head">
        <div>
          {owner ? <ManagedTeamHead team={team} title="Custom domains" /> : <h1>Custom domains</h1>}
          <p className="muted">Serve {owner ? "the team's" : "your"} short links on your own domain, e.g. links.example.com/sale.</p>
        </div>
      </div>

      {allowed ? (
        <form className="card inline-form" onSubmit={add} noValidate data-testid="domain-add-form">
          <Field
            id="domain-hostname"
            label="Domain name"
            error={adding.error ?? undefined}
            className="grow"
            hint="A subdomain you control, such as links.example.com."
          >
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
          <button type="submit" className="btn btn-primary" disabled={adding.busy} data-testid="domain-add">
            {adding.busy ? "Adding…" : "Add domain"}
          </button>
        </form>
      ) : (
        <div className="card" data-testid="domains-gated">
          <PlanGate feature="Custom domains" capability="custom_domains" />
        </div>
      )}

      {notice ? (
        <Alert kind="success" testId="domain-notice">
          {notice}
        </Alert>
      ) : null}

      {loadError ? <ListError what="your domains" error={loadError} onRetry={() => void load()} testId="domains-error" /> : null}

      {loading ? (
        <Spinner label="Loading your domains…" />
      ) : domains.length === 0 && !loadError ? (
        <EmptyState title="No custom domains yet" testId="domains-empty" icon="domains">
          <p className="muted">
            {allowed
              ? "Add a domain above; you will get the two DNS records to create."
              : "Custom domains need the Business plan: ask the operator of this service."}
          </p>
        </EmptyState>
      ) : (
        <ul className="domain-list" data-testid="domain-list">
          {domains.map((d) => (
            <DomainCard key={d.id} domain={d} onChange={replace} onDelete={() => del.ask(d)} />
          ))}
        </ul>
      )}

      {owner ? null : <OpenOutsideDefault />}

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
