// Operator console, audit log: every operator action and every account holder's security change to their own
// account (who and in which role, when, what, before -> after), filtered by action, email and target id, newest first.
import { useState } from "react";
import { adminApi } from "./admin-api";
import type { AuditEntry } from "@contract/admin";
import { AUDIT_ACTOR_LABELS } from "@contract/tables";
import { DataTable, Field, formatDateTime, useTitle } from "../shared/ui";
import { FilterForm, ListView, usePagedList, useUrlFilters } from "../shared/lists";

const ACTIONS: { value: string; label: string }[] = [
  { value: "account.plan", label: "Account plan changed" },
  { value: "account.status", label: "Account suspended / activated" },
  { value: "account.delete", label: "Account deleted" },
  { value: "account.admin", label: "Operator flag (command line)" },
  { value: "link.disable", label: "Link disabled" },
  { value: "link.enable", label: "Link enabled" },
  { value: "link.disable_bulk", label: "Links disabled in bulk" },
  { value: "blocklist.add", label: "Host blocked" },
  { value: "blocklist.remove", label: "Host unblocked" },
  { value: "report.dismiss", label: "Report dismissed" },
  { value: "report.disable_link", label: "Report: link disabled" },
  { value: "report.ban_owner", label: "Report: owner banned" },
  { value: "api_key.create", label: "API key created (account holder)" },
  { value: "api_key.revoke", label: "API key revoked (account holder)" },
  { value: "account.2fa_enabled", label: "Two-factor sign-in on (account holder)" },
  { value: "account.2fa_disabled", label: "Two-factor sign-in off (account holder)" },
  { value: "account.recovery_codes_regenerated", label: "New recovery codes (account holder)" },
  { value: "account.recovery_code_used", label: "Recovery code used (account holder)" },
  { value: "passkey.added", label: "Passkey added (account holder)" },
  { value: "passkey.removed", label: "Passkey removed (account holder)" },
  { value: "team.2fa_policy", label: "Team two-factor policy (account holder)" },
  { value: "sso.create", label: "Single sign-on set up (account holder)" },
  { value: "sso.update", label: "Single sign-on changed (account holder)" },
  { value: "sso.delete", label: "Single sign-on removed" },
];

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

export function AdminAuditPage() {
  useTitle("Audit log · Operator");
  const [filters, setFilters] = useUrlFilters(["action", "actor", "target"] as const);
  const [form, setForm] = useState({ actor: filters.actor, target: filters.target });
  const list = usePagedList(
    (cursor) => adminApi.audit({ ...filters, cursor, limit: 50 }).then((r) => ({ items: r.entries, next: r.next_cursor })),
    JSON.stringify(filters),
  );
  const filtered = !!(filters.action || filters.actor || filters.target);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Audit log</h1>
          <p className="muted" data-testid="audit-intro">
            Every operator action, and every change account holders make to their own accounts (API keys, two-factor sign-in, passkeys, team policy, single
            sign-on), written with the action itself. Entries cannot be changed or deleted.
          </p>
        </div>
      </div>

      <AuditFilters filters={filters} setFilters={setFilters} form={form} setForm={setForm} />

      <ListView
        list={list}
        what="the audit log"
        loading="Loading the audit log…"
        testId="audit"
        empty={{
          title: filtered ? "No entry matches" : "Nothing logged yet",
          icon: "audit",
          onClear: filtered
            ? () => {
                setForm({ actor: "", target: "" });
                setFilters({ action: "", actor: "", target: "" });
              }
            : null,
          text: <p className="muted">Operators' and account holders' actions show up here as they happen.</p>,
        }}
      >
        {(items) => (
          <DataTable className="table admin-table audit-table table-cards" testId="audit-table" columns={["When", "Who", "Action", "What"]}>
            {items.map((e) => (
              <AuditRow
                key={e.id}
                entry={e}
                onTarget={() => {
                  setForm({ actor: "", target: e.target_id });
                  setFilters({ action: "", actor: "", target: e.target_id });
                }}
              />
            ))}
          </DataTable>
        )}
      </ListView>
    </>
  );
}

type AuditFilterValues = { action: string; actor: string; target: string };
type AuditForm = { actor: string; target: string };

/** The filter form: the action (applied at once), the email of who acted and the target id (applied on submit). */
function AuditFilters({
  filters,
  setFilters,
  form,
  setForm,
}: {
  filters: AuditFilterValues;
  setFilters: (f: Partial<AuditFilterValues>) => void;
  form: AuditForm;
  setForm: (f: AuditForm) => void;
}) {
  return (
    <FilterForm onApply={() => setFilters(form)}>
      <Field id="audit-action" label="Action">
        <select id="audit-action" data-testid="audit-action" value={filters.action} onChange={(e) => setFilters({ ...form, action: e.target.value })}>
          <option value="">All actions</option>
          {ACTIONS.map((a) => (
            <option key={a.value} value={a.value}>
              {a.label}
            </option>
          ))}
        </select>
      </Field>
      <Field id="audit-actor" label="Who (email)" className="grow">
        <input id="audit-actor" data-testid="audit-actor" type="search" value={form.actor} onChange={(e) => setForm({ ...form, actor: e.target.value })} />
      </Field>
      <Field id="audit-target" label="Target id" className="grow">
        <input
          id="audit-target"
          data-testid="audit-target"
          type="search"
          spellCheck={false}
          value={form.target}
          onChange={(e) => setForm({ ...form, target: e.target.value })}
        />
      </Field>
      <button type="submit" className="btn btn-secondary filter-submit" data-testid="audit-submit">
        Filter
      </button>
    </FilterForm>
  );
}

/** One entry: when, who, the action's code, its summary and changes, and its target (a button that filters by it). */
function AuditRow({ entry: e, onTarget }: { entry: AuditEntry; onTarget: () => void }) {
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
