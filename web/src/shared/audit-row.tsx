// One audit log entry as the operator's log and a team's log show it (admin/Audit.tsx, team/Audit.tsx): when, who and
// in which role, the action, its summary, before -> after field by field, and its target (a button that filters by it).
import type { AuditEntry } from "@contract/admin";
import { AUDIT_ACTOR_LABELS } from "@contract/tables";
import { formatDateTime } from "./ui";

/** A value as one short line of text. */
function show(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "string") return v === "" ? "“”" : v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return v.length === 0 ? "none" : v.map(show).join(", ");
  return JSON.stringify(v);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Nested objects as dotted paths ({link: {disabled: {reason}}} -> "link.disabled.reason"); other values are leaves. */
function flatten(v: unknown, prefix: string, out: Map<string, unknown>): Map<string, unknown> {
  if (isObject(v) && Object.keys(v).length > 0) {
    for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out.set(prefix, v);
  return out;
}

/** True when a path's parent object was null on that side ({disabled: null} before {disabled: {reason}}). */
function underNull(side: Map<string, unknown>, path: string): boolean {
  const parts = path.split(".");
  for (let i = parts.length - 1; i > 0; i--) {
    const parent = parts.slice(0, i).join(".");
    if (side.has(parent)) return side.get(parent) === null;
  }
  return false;
}

function hasChildren(side: Map<string, unknown>, path: string): boolean {
  for (const k of side.keys()) if (k.startsWith(`${path}.`)) return true;
  return false;
}

export interface Change {
  field: string;
  before?: string;
  after?: string;
}

/**
 * Before and after as a person reads them: one line per field that differs ("plan: free -> pro", nested fields as
 * "link.disabled.reason: — -> Phishing"), the fields of a created or removed object, or two plain values whole.
 */
export function changes(before: unknown, after: unknown): Change[] {
  if (isObject(before) || isObject(after)) {
    const b = flatten(isObject(before) ? before : {}, "", new Map());
    const a = flatten(isObject(after) ? after : {}, "", new Map());
    const out: Change[] = [];
    for (const key of new Set([...b.keys(), ...a.keys()])) {
      // {disabled: null} against {disabled: {reason, status}}: the child lines say it.
      if ((b.get(key) === null && hasChildren(a, key)) || (a.get(key) === null && hasChildren(b, key))) continue;
      const was = b.has(key) ? show(b.get(key)) : underNull(b, key) ? "—" : undefined;
      const now = a.has(key) ? show(a.get(key)) : underNull(a, key) ? "—" : undefined;
      if (was === now) continue;
      out.push({ field: key, before: was, after: now });
    }
    return out;
  }
  if ((before === null || before === undefined) && (after === null || after === undefined)) return [];
  return [
    {
      field: "",
      before: before === null || before === undefined ? undefined : show(before),
      after: after === null || after === undefined ? undefined : show(after),
    },
  ];
}

function Changes({ entry }: { entry: AuditEntry }) {
  const list = changes(entry.before, entry.after);
  if (list.length === 0) return null;
  return (
    <ul className="audit-changes" data-testid="audit-changes">
      {list.map((c, i) => (
        <li key={`${c.field}-${i}`}>
          {c.field ? <span className="audit-field">{c.field}: </span> : null}
          {c.before !== undefined ? <del className="audit-before">{c.before}</del> : null}
          {c.before !== undefined && c.after !== undefined ? <span aria-label="changed to"> → </span> : null}
          {c.after !== undefined ? <ins className="audit-after">{c.after}</ins> : null}
          {c.before !== undefined && c.after === undefined && entry.after !== null ? <span className="muted"> (removed)</span> : null}
        </li>
      ))}
    </ul>
  );
}

/** One entry: when, who, the action's code, its summary and changes, and its target (a button that filters by it). */
export function AuditRow({ entry: e, onTarget }: { entry: AuditEntry; onTarget: () => void }) {
  return (
    <tr data-testid="audit-row" data-action={e.action}>
      <td className="nowrap small" data-label="When">
        {formatDateTime(e.at)}
      </td>
      <td data-label="Who">
        <div className="audit-actor cell-wrap" data-testid="audit-actor-email">
          {e.actor_id === null ? <span className="muted">{e.actor_email}</span> : e.actor_email}
        </div>
        <span className={`badge ${e.actor_role === "operator" ? "badge-warn" : "badge-muted"}`} data-testid="audit-actor-role">
          {AUDIT_ACTOR_LABELS[e.actor_role]}
        </span>
      </td>
      <td data-label="Action">
        <code className="nowrap" data-testid="audit-action-code">
          {e.action}
        </code>
      </td>
      <td className="cell-what" data-label="What">
        <div data-testid="audit-summary">{e.summary}</div>
        <Changes entry={e} />
        <button
          type="button"
          className="btn-link small audit-target"
          title="Show every entry about this target"
          data-testid="audit-target-filter"
          onClick={onTarget}
        >
          {e.target_type} {e.target_id}
        </button>
      </td>
    </tr>
  );
}
