// Small shared pieces: form fields, buttons, notices, copy, dialogs, formatting.
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { formatDate, formatDateTime } from "./dates";
import { Link as RouterLink, Navigate, useLocation } from "react-router";
import { useSession } from "./session";
import { errorMessage, useSubmit } from "./submit";
import type { Link } from "@contract/links";
import { EmptyStateIcon, type EmptyIcon } from "./empty-icons";

export function Field(props: { id: string; label: string; error?: string; hint?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <div className={`field${props.error ? " field-invalid" : ""}${props.className ? ` ${props.className}` : ""}`}>
      <label htmlFor={props.id}>{props.label}</label>
      {props.children}
      {props.hint && !props.error ? <p className="field-hint">{props.hint}</p> : null}
      <FieldMessage error={props.error} id={`${props.id}-error`} testId={`${props.id}-error`} />
    </div>
  );
}

/** The message under a field or a group of fields; nothing when there is none. */
export function FieldMessage({ error, testId, id }: { error?: string | null; testId: string; id?: string }) {
  if (!error) return null;
  return (
    <p className="field-error" role="alert" id={id} data-testid={testId}>
      {error}
    </p>
  );
}

export function Alert({ kind = "error", children, testId }: { kind?: "error" | "success" | "info" | "warning"; children: ReactNode; testId?: string }) {
  return (
    <div className={`alert alert-${kind}`} role={kind === "error" ? "alert" : "status"} data-testid={testId ?? `alert-${kind}`}>
      {children}
    </div>
  );
}

export function Spinner({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="loading" role="status" data-testid="loading">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

export function EmptyState({ title, children, testId, icon = "links" }: { title: string; children?: ReactNode; testId?: string; icon?: EmptyIcon }) {
  return (
    <div className="empty" data-testid={testId ?? "empty-state"}>
      <div className="empty-icon" aria-hidden="true">
        <EmptyStateIcon icon={icon} />
      </div>
      <h3>{title}</h3>
      {children}
    </div>
  );
}

/** Copies text with navigator.clipboard, falling back to a hidden textarea + execCommand. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall through to the fallback */
  }
  try {
    const ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand("copy");
    document.body.removeChild(ta);
    return ok;
  } catch {
    return false;
  }
}

export function CopyButton({
  text,
  label = "Copy",
  testId = "copy-button",
  className = "btn btn-secondary btn-sm",
}: {
  text: string;
  label?: string;
  testId?: string;
  className?: string;
}) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <button
      type="button"
      className={className}
      data-testid={testId}
      onClick={async () => {
        const ok = await copyText(text);
        setState(ok ? "copied" : "failed");
        window.clearTimeout(timer.current);
        timer.current = window.setTimeout(() => setState("idle"), 1800);
      }}
    >
      {state === "copied" ? "Copied!" : state === "failed" ? "Copy failed" : label}
    </button>
  );
}

/** The state of "delete this item?" around a ConfirmDialog: the item asked about, busy, the error, confirm. */
export function useConfirmedDelete<T>(remove: (item: T) => Promise<void>) {
  const [item, setItem] = useState<T | null>(null);
  const { busy, error, setError, run } = useSubmit(async (next: T) => {
    await remove(next);
    setItem(null);
  });
  return {
    item,
    dialog: {
      open: item !== null,
      busy,
      error,
      onCancel: () => setItem(null),
      onConfirm: () => (item === null ? undefined : run(item)),
    },
    ask(next: T) {
      setError(null);
      setItem(next);
    },
  };
}

/** A modal <dialog> shown while `open` and closed when not: the ref goes on the <dialog>. */
export function useModal(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return ref;
}

/** A modal <dialog> shown while `open`; Escape calls onClose. Named by a heading's id (`labelledBy`) or by `label`. */
export function Modal(props: {
  open: boolean;
  onClose: () => void;
  className?: string;
  testId: string;
  labelledBy?: string;
  label?: string;
  children: ReactNode;
}) {
  const ref = useModal(props.open);
  return (
    <dialog
      ref={ref}
      className={props.className ? `dialog ${props.className}` : "dialog"}
      aria-labelledby={props.labelledBy}
      aria-label={props.label}
      data-testid={props.testId}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      {props.children}
    </dialog>
  );
}

/** A modal confirmation built on <dialog>. */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
  confirmDisabled?: boolean;
}) {
  const titleId = useId();
  return (
    <Modal open={props.open} onClose={props.onCancel} labelledBy={titleId} testId="confirm-dialog">
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          props.onConfirm();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        <div className="dialog-body">{props.children}</div>
        {props.error ? <Alert>{props.error}</Alert> : null}
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={props.onCancel} data-testid="confirm-cancel">
            Cancel
          </button>
          <button
            type="submit"
            className={`btn ${props.danger ? "btn-danger" : "btn-primary"}`}
            disabled={props.busy || props.confirmDisabled}
            data-testid="confirm-ok"
          >
            {props.busy ? "Working…" : props.confirmLabel}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** Renders children only for a signed-in user; sends others to /app/login?next=... */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { user } = useSession();
  const loc = useLocation();
  if (user === undefined) return <Spinner />;
  if (!user) {
    const next = loc.pathname + loc.search;
    return <Navigate to={`/app/login?next=${encodeURIComponent(next)}`} replace />;
  }
  return <>{children}</>;
}

/** A feature of a higher plan; plans are the operator's to set on a self-hosted service, so it says whom to ask. */
export function UpgradeHint({ plan, children }: { plan: string; children?: ReactNode }) {
  return (
    <span className="upgrade-hint" data-testid="upgrade-hint">
      <span className="badge badge-plan">{plan}</span> {children ?? `Available on ${plan}.`} Ask the operator of this service to move your account to {plan}.
    </span>
  );
}

export function A(props: { to: string; children: ReactNode; className?: string; testId?: string }) {
  return (
    <RouterLink to={props.to} className={props.className} data-testid={props.testId}>
      {props.children}
    </RouterLink>
  );
}

// Dates have one format across the dashboard (dates.ts); pages that import them from here keep working.
export { formatDate, formatDateTime };

// Pages import errorMessage from here too; it lives beside useSubmit.
export { errorMessage };

// And the tables, which live in table.tsx.
export { DataTable, TableHead, type Column } from "./table";

/** Sets the document title for the page. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · snip` : "snip";
  }, [title]);
}

/**
 * What the owner is told about a link an operator disabled (with the operator's reason) or whose destination is
 * on the blocklist. Only an operator can enable the link again.
 */
export function ModerationNotice({ link, compact = false }: { link: Pick<Link, "disabled" | "destination_blocked">; compact?: boolean }) {
  if (!link.disabled && !link.destination_blocked) return null;
  return (
    <div
      className={`moderation${link.disabled ? "" : " moderation-blocked"}${compact ? " moderation-compact" : ""}`}
      role="status"
      data-testid="link-moderation"
    >
      {link.disabled ? (
        <p data-testid="link-disabled-reason">
          <strong>Disabled by the operator:</strong> {link.disabled.reason}
          {compact ? null : (
            <span className="muted">
              {" "}
              Since {formatDateTime(link.disabled.at)}, visitors get {link.disabled.status === 451 ? "451 (unavailable for legal reasons)" : "410 (gone)"}. Only
              the operator of this service can enable it again.
            </span>
          )}
        </p>
      ) : null}
      {link.destination_blocked ? (
        <p data-testid="link-blocked-notice">
          <strong>Destination blocked:</strong> a destination of this link is on the operator's blocklist, so visitors get 410.
          {compact ? null : <span className="muted"> Point the link at another address to make it work again.</span>}
        </p>
      ) : null}
    </div>
  );
}
