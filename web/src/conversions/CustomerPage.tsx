// One customer: who they are as your site knows them, the click that brought them (link, destination, country,
// device, referrer), their leads and sales; and erasing them, after a confirmation, as a data subject may ask.
import { useEffect, useState } from "react";
import { useNavigate, useParams } from "react-router";
import type { CustomerDetail } from "@contract/conversions";
import { ApiError } from "../shared/api";
import { useSession } from "../shared/session";
import { can } from "../shared/plan-gate";
import { destinationLabel } from "../shared/destination-label";
import { formatMoney } from "../shared/numbers";
import { A, Alert, ConfirmDialog, DataTable, Spinner, errorMessage, formatDateTime, useConfirmedDelete, useTitle } from "../shared/ui";
import { conversionsApi } from "./conversions-api";
import { CustomersUpgrade } from "./Customers";
import "./conversions.css";

type Load = { kind: "loading" } | { kind: "ok"; customer: CustomerDetail } | { kind: "missing" } | { kind: "error"; message: string };

function useCustomer(externalId: string, allowed: boolean, attempt: number): Load {
  const [load, setLoad] = useState<Load>({ kind: "loading" });
  useEffect(() => {
    if (!allowed) return;
    let live = true;
    setLoad({ kind: "loading" });
    conversionsApi.customer(externalId).then(
      (customer) => live && setLoad({ kind: "ok", customer }),
      (e: unknown) => live && setLoad(e instanceof ApiError && e.httpStatus === 404 ? { kind: "missing" } : { kind: "error", message: errorMessage(e) }),
    );
    return () => {
      live = false;
    };
  }, [externalId, allowed, attempt]);
  return load;
}

function Facts({ c }: { c: CustomerDetail }) {
  const rows: [string, React.ReactNode][] = [
    ["Name", c.name ?? "—"],
    ["Email", c.email ?? "—"],
    ["Customer since", formatDateTime(c.created_at)],
    ["Link", c.link ? <A to={`/app/links/${encodeURIComponent(c.link.id)}`}>{c.link.domain ? `${c.link.domain}/${c.link.alias}` : c.link.alias}</A> : "—"],
    ["Destination", c.click ? destinationLabel(c.click.destination ?? "default") : "—"],
    ["Clicked", c.click ? formatDateTime(c.click.at) : "—"],
    ["Country", c.click?.country ?? "Unknown"],
    ["Device", c.click ? c.click.device.charAt(0).toUpperCase() + c.click.device.slice(1) : "—"],
    ["Referrer", c.click?.referrer_host ?? "Direct or unknown"],
  ];
  return (
    <section className="card" data-testid="customer-facts">
      <h2>The customer and the click that brought them</h2>
      <dl className="conv-facts">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Events({ c }: { c: CustomerDetail }) {
  return (
    <>
      <section className="card" data-testid="customer-leads">
        <h2>Leads</h2>
        <DataTable frame="none" caption="Leads" columns={["Event", "Destination", "When"]} empty={<p className="muted">No leads.</p>}>
          {c.leads.map((l) => (
            <tr key={l.id} data-testid="customer-lead">
              <td>{l.event_name}</td>
              <td>{destinationLabel(l.destination ?? "default")}</td>
              <td className="nowrap">{formatDateTime(l.created_at)}</td>
            </tr>
          ))}
        </DataTable>
      </section>
      <section className="card" data-testid="customer-sales">
        <h2>Sales</h2>
        <DataTable
          frame="none"
          caption="Sales"
          columns={["Event", { label: "Amount", className: "num" }, { label: "Refunded", className: "num" }, "Invoice", "Via", "When"]}
          empty={<p className="muted">No sales.</p>}
        >
          {c.sales.map((s) => (
            <tr key={s.id} data-testid="customer-sale">
              <td>{s.event_name}</td>
              <td className="num" data-testid="customer-sale-amount">
                {formatMoney(s.amount, s.currency)}
              </td>
              <td className="num">{s.refunded ? formatMoney(s.refunded, s.currency) : "—"}</td>
              <td className="conv-invoice">{s.invoice_id ?? "—"}</td>
              <td>{s.payment_processor}</td>
              <td className="nowrap">{formatDateTime(s.created_at)}</td>
            </tr>
          ))}
        </DataTable>
      </section>
    </>
  );
}

export function CustomerPage() {
  const { externalId = "" } = useParams();
  const navigate = useNavigate();
  const { user } = useSession();
  const allowed = can(user?.plan ?? "free", "conversions");
  const [attempt, setAttempt] = useState(0);
  const load = useCustomer(externalId, allowed, attempt);
  useTitle(load.kind === "ok" ? `Customer ${load.customer.external_id}` : "Customer");
  const erase = useConfirmedDelete(async (id: string) => {
    await conversionsApi.eraseCustomer(id);
    navigate("/app/customers?erased=1");
  });
  if (!allowed) return <CustomersUpgrade />;
  return (
    <div className="customer-page">
      <p className="breadcrumb">
        <A to="/app/customers">← Customers</A>
      </p>
      {load.kind === "loading" ? <Spinner label="Loading the customer…" /> : null}
      {load.kind === "missing" ? (
        <Alert testId="customer-missing">No customer with this id: it may have been erased.</Alert>
      ) : load.kind === "error" ? (
        <Alert testId="customer-error">
          Could not load the customer: {load.message}{" "}
          <button type="button" className="btn-link" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </button>
        </Alert>
      ) : null}
      {load.kind === "ok" ? (
        <>
          <div className="page-head">
            <h1 className="conv-customer-id" data-testid="customer-heading">
              {load.customer.external_id}
            </h1>
            <button type="button" className="btn btn-danger" onClick={() => erase.ask(load.customer.external_id)} data-testid="customer-erase">
              Erase customer
            </button>
          </div>
          <Facts c={load.customer} />
          <Events c={load.customer} />
        </>
      ) : null}
      <ConfirmDialog {...erase.dialog} title="Erase this customer?" confirmLabel="Erase" danger>
        <p>
          Their name, email and your id for them are deleted, and so are their leads&apos; and sales&apos; details. The counts in your statistics stay. This
          cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}
