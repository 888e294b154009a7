// The link builder's option fields: limits and the fallback URL (plan-gated: shown locked only to an edited link
// that has them), protection and device destinations. Each sits in its OptionRow (option-rows.tsx).
import type { Link } from "@contract/links";
import { Field } from "../../shared/ui";
import type { Allowed, FormValues } from "./values";

export interface OptionProps {
  values: FormValues;
  errors: Record<string, string>;
  set: <K extends keyof FormValues>(key: K, value: FormValues[K]) => void;
}

export function LimitOptions({ values, errors, set, allowed }: OptionProps & { allowed: Allowed }) {
  const gated = !allowed.limits;
  return (
    <>
      <div className="grid-2">
        <Field
          id="link-expires-at"
          label="Expires at"
          error={errors.expires_at}
          hint={gated ? "Available on Pro" : "Local time. After this, visitors get “expired”."}
        >
          <input
            id="link-expires-at"
            data-testid="link-expires-at"
            type="datetime-local"
            disabled={gated}
            value={values.expires_at}
            onChange={(e) => set("expires_at", e.target.value)}
          />
        </Field>
        <Field
          id="link-max-clicks"
          label="Maximum clicks"
          error={errors.max_clicks}
          hint={gated ? "Available on Pro" : "After this many clicks the link stops redirecting."}
        >
          <input
            id="link-max-clicks"
            data-testid="link-max-clicks"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            disabled={gated}
            value={values.max_clicks}
            onChange={(e) => set("max_clicks", e.target.value)}
          />
        </Field>
      </div>
      <Field
        id="link-expired-url"
        label="Fallback URL (optional)"
        error={errors.expired_url}
        hint={allowed.fallback ? "Once the link has expired or reached its click limit, visitors go here instead of the “expired” page." : "Available on Pro"}
      >
        <input
          id="link-expired-url"
          data-testid="link-expired-url"
          type="url"
          inputMode="url"
          placeholder="https://example.com/offer-ended"
          disabled={!allowed.fallback}
          value={values.expired_url}
          onChange={(e) => set("expired_url", e.target.value)}
        />
      </Field>
    </>
  );
}

/** The password field's hint: an edited link's password is kept unless changed; a copied one cannot be read back. */
function passwordHint(original: Link | null, copiedFrom: Link | null): string {
  if (original?.has_password) return "This link has a password. Leave empty to keep it unchanged.";
  if (copiedFrom?.has_password)
    return "The original link has a password, which cannot be read back or copied: enter one for the copy, or leave empty for none.";
  return "Visitors must enter it before being redirected. It is not your account password.";
}

export function ProtectionOptions({ values, errors, set, original, copiedFrom = null }: OptionProps & { original: Link | null; copiedFrom?: Link | null }) {
  return (
    <>
      <Field
        id="link-password"
        label={original?.has_password ? "New link password" : "Link password (optional)"}
        error={errors.password}
        hint={passwordHint(original, copiedFrom)}
      >
        <input
          id="link-password"
          data-testid="link-password"
          type="password"
          autoComplete="new-password"
          disabled={values.remove_password}
          value={values.password}
          onChange={(e) => set("password", e.target.value)}
        />
      </Field>
      {original?.has_password ? (
        <label className="checkbox" htmlFor="link-remove-password">
          <input
            id="link-remove-password"
            data-testid="link-remove-password"
            type="checkbox"
            checked={values.remove_password}
            onChange={(e) => set("remove_password", e.target.checked)}
          />
          Remove the password
        </label>
      ) : null}
    </>
  );
}

export function DeviceOptions({ values, errors, set }: OptionProps) {
  return (
    <div className="grid-2">
      <Field id="link-ios-url" label="iOS destination (optional)" error={errors.ios_url}>
        <input
          id="link-ios-url"
          data-testid="link-ios-url"
          type="url"
          inputMode="url"
          placeholder="https://apps.apple.com/…"
          value={values.ios_url}
          onChange={(e) => set("ios_url", e.target.value)}
        />
      </Field>
      <Field id="link-android-url" label="Android destination (optional)" error={errors.android_url}>
        <input
          id="link-android-url"
          data-testid="link-android-url"
          type="url"
          inputMode="url"
          placeholder="https://play.google.com/…"
          value={values.android_url}
          onChange={(e) => set("android_url", e.target.value)}
        />
      </Field>
    </div>
  );
}
