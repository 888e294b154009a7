// The operator console's frame (tabs under /app/admin, the page non-operators get) and the pieces its pages share:
// URL-kept filters, a "Load more" list, link state badges and the disable dialog.
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { NavLink, Outlet, useSearchParams } from "react-router";
import { linkState, type DisableStatus, type Link } from "../../api";
import { useSession } from "../../session";
import { A, Alert, ConfirmDialog, Field, errorMessage, useTitle } from "../../ui";

const TABS: { to: string; label: string; id: string }[] = [
  { to: "/app/admin", label: "Overview", id: "overview" },
  { to: "/app/admin/accounts", label: "Accounts", id: "accounts" },
  { to: "/app/admin/links", label: "Links", id: "links" },
  { to: "/app/admin/reports", label: "Reports", id: "reports" },
  { to: "/app/admin/blocklist", label: "Blocklist", id: "blocklist" },
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
      <Outlet />
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

/** Filters kept in the address (so a filtered list can be linked and survives a reload). */
export function useUrlFilters<K extends string>(keys: readonly K[], defaults: Partial<Record<K, string>> = {}) {
  const [params, setParams] = useSearchParams();
  const values = {} as Record<K, string>;
  for (const k of keys) values[k] = params.get(k) ?? defaults[k] ?? "";
  const defaultsRef = useRef(defaults);
  const set = useCallback(
    (next: Partial<Record<K, string>>) => {
      const defaults = defaultsRef.current;
      setParams(
        (prev) => {
          const p = new URLSearchParams(prev);
          for (const [k, v] of Object.entries(next) as [K, string | undefined][]) {
            const value = (v ?? "").trim();
            if (value === (defaults[k] ?? "")) p.delete(k);
            else p.set(k, value);
          }
          return p;
        },
        { replace: true },
      );
    },
    [setParams],
  );
  return [values, set] as const;
}

export interface Page<T> {
  items: T[];
  next: string | null;
}

/**
 * A list read page by page: the first page whenever `key` changes (the filters), more on demand.
 * Answers that arrive after a newer request are dropped.
 */
export function usePagedList<T>(fetchPage: (cursor: string | null) => Promise<Page<T>>, key: string) {
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [version, setVersion] = useState(0);
  const seq = useRef(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  useEffect(() => {
    const mine = ++seq.current;
    setError(null);
    setItems(null);
    fetchRef.current(null).then(
      (page) => {
        if (mine !== seq.current) return;
        setItems(page.items);
        setNext(page.next);
      },
      (e: unknown) => {
        if (mine === seq.current) setError(errorMessage(e));
      },
    );
  }, [key, version]);

  async function loadMore() {
    if (!next) return;
    const mine = seq.current;
    setLoadingMore(true);
    setError(null);
    try {
      const page = await fetchRef.current(next);
      if (mine !== seq.current) return;
      setItems((prev) => [...(prev ?? []), ...page.items]);
      setNext(page.next);
    } catch (e) {
      if (mine === seq.current) setError(errorMessage(e));
    } finally {
      setLoadingMore(false);
    }
  }

  return {
    items,
    next,
    error,
    loadingMore,
    loadMore,
    /** Reads the first page again. */
    reload: () => setVersion((v) => v + 1),
    /** Replaces items in place (after an action answered with the new object). */
    update: (fn: (prev: T[]) => T[]) => setItems((prev) => (prev ? fn(prev) : prev)),
  };
}

export function LoadMore({ next, busy, onClick, testId = "admin-load-more" }: { next: string | null; busy: boolean; onClick: () => void; testId?: string }) {
  if (!next) return null;
  return (
    <div className="center">
      <button type="button" className="btn btn-secondary" onClick={onClick} disabled={busy} data-testid={testId}>
        {busy ? "Loading…" : "Load more"}
      </button>
    </div>
  );
}

/** The error of a list that could not be read, with a retry. */
export function ListError({ what, error, onRetry, testId }: { what: string; error: string; onRetry: () => void; testId: string }) {
  return (
    <Alert testId={testId}>
      Could not load {what}: {error}{" "}
      <button type="button" className="btn-link" onClick={onRetry}>
        Try again
      </button>
    </Alert>
  );
}

/** Active, disabled (with the operator's reason) or destination blocked. */
export function LinkStateBadge({ link, withReason = true }: { link: Pick<Link, "disabled" | "destination_blocked">; withReason?: boolean }) {
  const state = linkState(link);
  if (state === "active")
    return (
      <span className="badge badge-ok" data-testid="link-state">
        Active
      </span>
    );
  if (state === "blocked")
    return (
      <span className="badge badge-warning" data-testid="link-state">
        Destination blocked
      </span>
    );
  return (
    <span className="link-state-disabled">
      <span className="badge badge-fail" data-testid="link-state" title={`Visitors get ${link.disabled?.status}`}>
        Disabled · {link.disabled?.status}
      </span>
      {withReason && link.disabled ? (
        <span className="muted small state-reason" data-testid="link-state-reason">
          {link.disabled.reason}
        </span>
      ) : null}
    </span>
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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
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
      onConfirm={async () => {
        setBusy(true);
        setError(null);
        try {
          await props.onConfirm(reason.trim(), status);
        } catch (e) {
          setError(errorMessage(e));
        } finally {
          setBusy(false);
        }
      }}
    >
      {props.children}
      {props.host ? (
        <Field id="disable-host" label="Host" hint="Every link whose destination (main, iOS or Android) is on this host or its subdomains.">
          <input id="disable-host" data-testid="disable-host" type="text" autoCapitalize="off" spellCheck={false} placeholder="bad.example" value={props.host.value} onChange={(e) => props.host?.onChange(e.target.value)} />
        </Field>
      ) : null}
      <Field
        id="disable-reason"
        label={requireReason ? "Reason" : "Reason (optional)"}
        error={tooLong ? "At most 500 characters." : undefined}
        hint="The owner sees it in their dashboard."
      >
        <textarea id="disable-reason" className="prose" data-testid="disable-reason" rows={3} maxLength={600} value={reason} onChange={(e) => setReason(e.target.value)} />
      </Field>
      <fieldset className="options status-choice">
        <legend>Visitors get</legend>
        <label className="checkbox">
          <input type="radio" name="disable-status" value="410" checked={status === 410} onChange={() => setStatus(410)} data-testid="disable-status-410" />
          410 Gone: the link was disabled
        </label>
        <label className="checkbox">
          <input type="radio" name="disable-status" value="451" checked={status === 451} onChange={() => setStatus(451)} data-testid="disable-status-451" />
          451 Unavailable for legal reasons
        </label>
      </fieldset>
    </ConfirmDialog>
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
