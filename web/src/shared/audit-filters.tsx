// An audit log's filter form (the operators' and a team's): the action, applied at once, and the text and date
// fields, applied on submit.
import { Field } from "./ui";
import { FilterForm } from "./lists";

export type AuditAction = { value: string; label: string };

export function AuditFilters<F extends Record<string, string>>({
  prefix,
  actions,
  fields,
  action,
  form,
  setForm,
  apply,
}: {
  /** The ids' and test ids' prefix: `${prefix}-action`, `${prefix}-<field>`, `${prefix}-submit`. */
  prefix: string;
  actions: AuditAction[];
  fields: { key: keyof F & string; label: string; type: "search" | "date" }[];
  action: string;
  form: F;
  setForm: (f: F) => void;
  apply: (f: F & { action?: string }) => void;
}) {
  return (
    <FilterForm onApply={() => apply(form)}>
      <Field id={`${prefix}-action`} label="Action">
        <select id={`${prefix}-action`} data-testid={`${prefix}-action`} value={action} onChange={(e) => apply({ ...form, action: e.target.value })}>
          <option value="">All actions</option>
          {actions.map((a) => (
            <option key={a.value} value={a.value}>
              {a.label}
            </option>
          ))}
        </select>
      </Field>
      {fields.map((f) => (
        <Field key={f.key} id={`${prefix}-${f.key}`} label={f.label} className={f.type === "search" ? "grow" : undefined}>
          <input
            id={`${prefix}-${f.key}`}
            data-testid={`${prefix}-${f.key}`}
            type={f.type}
            spellCheck={false}
            value={form[f.key]}
            onChange={(e) => setForm({ ...form, [f.key]: e.target.value })}
          />
        </Field>
      ))}
      <button type="submit" className="btn btn-secondary filter-submit" data-testid={`${prefix}-submit`}>
        Filter
      </button>
    </FilterForm>
  );
}
