// Customers (Business and up): the people your site reported leads for, newest first; each one's page shows the
// click that brought them, its link, their leads and sales, and erases them on request (a data subject's right).
import { useSearchParams } from "react-router";
import type { Customer } from "@contract/conversions";
import { useSession } from "../shared/session";
import { can } from "../shared/plan-gate";
import { ListView, usePagedList } from "../shared/lists";
import { A, Alert, DataTable, UpgradeHint, formatDateTime, useTitle } from "../shared/ui";
import { destinationLabel } from "../shared/destination-label";
import { conversionsApi } from "./conversions-api";
import "./conversions.css";

/** The Business upsell of both customers pages. */
export function CustomersUpgrade() {
  return (
    <>
      <h1>Customers</h1>
      <div className="card upgrade-card" data-testid="customers-upgrade">
        <h2>Know which link brought each customer</h2>
        <p>Customers are the people your site reports sign-ups for, with the click that brought them and what they bought.</p>
        <p>
          <UpgradeHint plan="Business">Conversion tracking is available on Business and Enterprise.</UpgradeHint>
        </p>
      </div>
    </>
  );
}

export const customerPath = (externalId: string) => `/app/customers/${encodeURIComponent(externalId)}`;

function CustomerTable({ customers }: { customers: Customer[] }) {
  return (
    <DataTable testId="customers-table" caption="Customers" columns={["Customer", "Name", "Email", "Came through", "Since"]}>
      {customers.map((c) => (
        <tr key={c.id} data-testid="customer-row">
          <td className="conv-row-head">
            <A to={customerPath(c.external_id)} testId="customer-link">
              {c.external_id}
            </A>
          </td>
          <td>{c.name ?? <span className="muted">—</span>}</td>
          <td className="conv-email">{c.email ?? <span className="muted">—</span>}</td>
          <td>
            {c.link_id ? (
              <A to={`/app/links/${encodeURIComponent(c.link_id)}`}>{c.destination ? destinationLabel(c.destination) : "Default"}</A>
            ) : (
              <span className="muted">no click</span>
            )}
          </td>
          <td className="nowrap">{formatDateTime(c.created_at)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

export function CustomersPage() {
  useTitle("Customers");
  const { user } = useSession();
  const allowed = can(user?.plan ?? "free", "conversions");
  const [params] = useSearchParams();
  const list = usePagedList((cursor) => conversionsApi.customers(cursor).then((r) => ({ items: r.customers, next: r.next_cursor })), "customers", allowed);
  if (!allowed) return <CustomersUpgrade />;
  return (
    <div className="customers-page">
      <div className="page-head">
        <div>
          <h1>Customers</h1>
          <p className="muted">
            People your site or Stripe reported a sign-up for, with the link that brought them. Set up tracking on the <A to="/app/conversions">Conversions</A>{" "}
            page.
          </p>
        </div>
      </div>
      {params.get("erased") === "1" ? (
        <Alert kind="success" testId="customer-erased">
          The customer was erased.
        </Alert>
      ) : null}
      <ListView
        list={list}
        what="the customers"
        loading="Loading customers…"
        testId="customers"
        empty={{
          title: "No customers yet",
          icon: "analytics",
          text: <p className="muted">When your site reports a sign-up for a tracked click with POST /api/track/lead, the customer appears here.</p>,
        }}
      >
        {(items) => <CustomerTable customers={items} />}
      </ListView>
    </div>
  );
}
