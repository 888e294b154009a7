// The API key creation form: a name, the scopes (links:create preselected: what a key could always do) and an
// optional expiry date (the key is refused from the end of that day on).
import { useState } from "react";
import { API_KEY_SCOPES, DEFAULT_KEY_SCOPES, SCOPE_LABELS, type ApiKeyScope } from "@contract/tables";
import { ApiError } from "../shared/api";
import { Field } from "../shared/ui";
import { errorMessage, useSubmit } from "../shared/submit";
import { keysApi } from "./keys-api";

/** The local date as YYYY-MM-DD (the date input's value). */
function localDay(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** The end of the chosen local day, as the ISO time the server takes. */
function endOfDay(day: string): string {
  return new Date(`${day}T23:59:59`).toISOString();
}

export function KeyForm(props: { onCreated: (created: { name: string; secret: string }) => Promise<void> }) {
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<ApiKeyScope[]>([...DEFAULT_KEY_SCOPES]);
  const [expires, setExpires] = useState("");
  const [errors, setErrors] = useState<{ name?: string; scopes?: string; expires_at?: string }>({});

  function toggle(scope: ApiKeyScope, on: boolean) {
    setScopes((s) => API_KEY_SCOPES.filter((x) => (x === scope ? on : s.includes(x))));
  }

  // A message about no field of the form (`other`) shows under the name.
  const {
    busy,
    error: other,
    onSubmit: create,
  } = useSubmit(
    async () => {
      setErrors({});
      const r = await keysApi.createKey({ name: name.trim(), scopes, expires_at: expires ? endOfDay(expires) : null });
      setName("");
      setScopes([...DEFAULT_KEY_SCOPES]);
      setExpires("");
      await props.onCreated({ name: r.key?.name ?? name.trim(), secret: r.secret });
    },
    (err) => {
      if (!(err instanceof ApiError)) return errorMessage(err);
      const f = err.fieldErrors();
      setErrors({ name: f.name, scopes: f.scopes, expires_at: f.expires_at });
      return (f.name ?? f.scopes ?? f.expires_at) ? null : err.message;
    },
  );

  return (
    <form onSubmit={create} className="key-form" noValidate data-testid="key-form">
      <div className="key-form-row">
        <Field id="key-name" label="New key name" error={errors.name ?? other ?? undefined} className="grow">
          <input
            id="key-name"
            data-testid="key-name"
            type="text"
            placeholder="e.g. Production server"
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </Field>
        <Field id="key-expires" label="Expires (optional)" error={errors.expires_at} hint="Refused from the end of this day">
          <input
            id="key-expires"
            data-testid="key-expires"
            type="date"
            min={localDay(new Date())}
            value={expires}
            onChange={(e) => setExpires(e.target.value)}
          />
        </Field>
      </div>
      <fieldset className="options key-scopes" aria-describedby={errors.scopes ? "key-scopes-error" : undefined}>
        <legend>Scopes</legend>
        {API_KEY_SCOPES.map((s) => (
          <label className="checkbox" key={s}>
            <input type="checkbox" data-testid={`key-scope-${s}`} checked={scopes.includes(s)} onChange={(e) => toggle(s, e.target.checked)} />
            <span>
              <code>{s}</code> <span className="muted">{SCOPE_LABELS[s]}</span>
            </span>
          </label>
        ))}
        {errors.scopes ? (
          <p className="field-error" role="alert" id="key-scopes-error" data-testid="key-scopes-error">
            {errors.scopes}
          </p>
        ) : null}
      </fieldset>
      <button type="submit" className="btn btn-primary" disabled={busy || !name.trim() || scopes.length === 0} data-testid="key-create">
        {busy ? "Creating…" : "Create key"}
      </button>
    </form>
  );
}
