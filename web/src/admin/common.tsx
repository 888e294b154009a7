// The operator console's frame (tabs under /app/admin, the page non-operators get) and the pieces its pages share:
// host and short-link labels, the disable dialog and the overview's figures.
import { Suspense, useEffect, useState, type ReactNode } from "react";
import { NavLink, Outlet } from "react-router";
import type { DisableStatus } from "@contract/admin";
import { useSession } from "../shared/session";
import { A, ConfirmDialog, Field, Spinner, useTitle } from "../shared/ui";
import { useSubmit } from "../shared/submit";

const TABS: { to: string; label: string; id: string }[] = [
  { to: "/app/admin", label: "Overview", id: "overview" },
  { to: "/app/admin/accounts", label: "Accounts", id: "accounts" },
  { to: "/app/admin/links", label: "Links", id: "links" },
  { to: "/app/admin/reports", label: "Reports", id: "reports" },
  { to: "/app/admin/blocklist", label: "Blocklist", id: "blocklist" },
  { to: "/app/admin/sso", label: "SSO", id: "sso" },
  { to: "/app/admin/audit", label: "Audit log", id: "audit" },
];

/** /app/admin/*: the console's tabs around the current page, or "not available" for everyone but an operator. */
export function AdminLayout() {
  const { user } = useSession();
  if (!user?.is_admin) return <AdminUnavailable />;
  return (
    <div className="admin" data-testid="admin-console">
      <div className="admin-head">
        <p className="eyebrow">Operator console</p>
        <nav className="admin-tabs" aria-label="Operator console">
          {TABS.map((t) => (
            <NavLink key={t.id} to={t.to} end={t.to === "/app/admin"} className="admin-tab" data-testid={`admin-tab-${t.id}`}>
              {t.label}
            </NavLink>
          ))}
        </nav>
      </div>
      {/* Each tab's page loads on demand: the tabs stay while it does. */}
      <Suspense fallback={<Spinner />}>
        <Outlet />
      </Suspense>
    </div>
  );
}

export function AdminUnavailable() {
  useTitle("Not available");
  return (
    <section className="narrow center-page" data-testid="admin-unavailable">
      <p className="big-code">403</p>
      <h1>Not available</h1>
      <p className="muted">The operator console is only for the people who run this snip service. Your account does not have access to it.</p>
      <A to="/app" className="btn btn-primary">
        Go to the dashboard
      </A>
    </section>
  );
}

/** The host of a URL, or "" when it is not one. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

export function shortLabel(url: string): string {
  return url.replace(/^https?:\/\//, "");
}

/**
 * The disable dialog: a reason (1 to 500 characters) and what visitors get (410 or 451). `extra` goes above the
 * reason (what is disabled); `requireReason` false lets the server's default reason stand when left empty.
 */
export function DisableDialog(props: {
  open: boolean;
  title: string;
  confirmLabel: string;
  children?: ReactNode;
  initialReason?: string;
  requireReason?: boolean;
  /** A host field (the bulk "links to a host" dialog). */
  host?: { value: string; onChange: (v: string) => void };
  onConfirm: (reason: string, status: DisableStatus) => Promise<void>;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState(props.initialReason ?? "");
  const [status, setStatus] = useState<DisableStatus>(410);
  const { busy, error, setError, run } = useSubmit(() => props.onConfirm(reason.trim(), status));
  useEffect(() => {
    if (props.open) {
      setReason(props.initialReason ?? "");
      setStatus(410);
      setError(null);
    }
  }, [props.open, props.initialReason]);
  const requireReason = props.requireReason ?? true;
  const tooLong = reason.trim().length > 500;
  return (
    <ConfirmDialog
      open={props.open}
      title={props.title}
      confirmLabel={props.confirmLabel}
      danger
      busy={busy}
      error={error}
      confirmDisabled={(requireReason && !reason.trim()) || tooLong || (props.host !== undefined && !props.host.value.trim())}
      onCancel={props.onCancel}
      onConfirm={() => void run()}
    >
      {props.children}
      {props.host ? <DisableHostField host={props.host} /> : null}
      <Field
        id="disable-reason"
        label={requireReason ? "Reason" : "Reason (optional)"}
        error={tooLong ? "At most 500 characters." : undefined}
        hint="The owner sees it in their dashboard."
      >
        <textarea
          id="disable-reason"
          className="prose"
          data-testid="disable-reason"
          rows={3}
          maxLength={600}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </Field>
      <StatusChoice status={status} onChange={setStatus} />
    </ConfirmDialog>
  );
}

/** The bulk dialog's host field: every link to that host (or a subdomain) is disabled. */
function DisableHostField({ host }: { host: { value: string; onChange: (v: string) => void } }) {
  return (
    <Field id="disable-host" label="Host" hint="Every link whose destination (main, iOS or Android) is on this host or its subdomains.">
      <input
        id="disable-host"
        data-testid="disable-host"
        type="text"
        autoCapitalize="off"
        spellCheck={false}
        placeholder="bad.example"
        value={host.value}
        onChange={(e) => host.onChange(e.target.value)}
      />
    </Field>
  );
}

/** What visitors of a disabled link get: 410 Gone or 451 Unavailable for legal reasons. */
function StatusChoice({ status, onChange }: { status: DisableStatus; onChange: (s: DisableStatus) => void }) {
  return (
    <fieldset className="options status-choice">
      <legend>Visitors get</legend>
      <label className="checkbox">
        <input type="radio" name="disable-status" value="410" checked={status === 410} onChange={() => onChange(410)} data-testid="disable-status-410" />
        410 Gone: the link was disabled
      </label>
      <label className="checkbox">
        <input type="radio" name="disable-status" value="451" checked={status === 451} onChange={() => onChange(451)} data-testid="disable-status-451" />
        451 Unavailable for legal reasons
      </label>
    </fieldset>
  );
}

/** A small figure with its label (the overview's tiles). */
export function Figure({ label, value, testId, children }: { label: string; value: ReactNode; testId: string; children?: ReactNode }) {
  return (
    <div className="card tile admin-tile" data-testid={testId}>
      <p className="tile-label">{label}</p>
      <p className="tile-value" data-testid={`${testId}-value`}>
        {value}
      </p>
      {children ? <div className="muted small">{children}</div> : null}
    </div>
  );
}
