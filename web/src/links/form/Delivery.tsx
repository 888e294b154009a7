// The link builder's "Start date and redirect code" option: a start date (Pro: without the plan, shown locked
// only when the link has one), the redirect status and whether search engines may follow the link (docs/api.md, Links).
import { Field } from "../../shared/ui";
import type { OptionProps } from "./Options";

const STATUSES: [string, string][] = [
  ["", "Service default"],
  ["302", "302 Found (temporary)"],
  ["307", "307 Temporary Redirect (keeps the method)"],
  ["301", "301 Moved Permanently"],
  ["308", "308 Permanent Redirect (keeps the method)"],
];

export function DeliveryOptions({ values, errors, set, allowed }: OptionProps & { allowed: boolean }) {
  const permanent = values.redirect_status === "301" || values.redirect_status === "308";
  return (
    <>
      <div className="grid-2">
        {allowed || values.starts_at ? (
          <Field
            id="link-starts-at"
            label="Opens at (optional)"
            error={errors.starts_at}
            hint={allowed ? "Local time. Before this, visitors see when the link opens; no click counts." : "Available on Pro"}
          >
            <input
              id="link-starts-at"
              data-testid="link-starts-at"
              type="datetime-local"
              disabled={!allowed}
              value={values.starts_at}
              onChange={(e) => set("starts_at", e.target.value)}
            />
          </Field>
        ) : null}
        <Field
          id="link-redirect-status"
          label="Redirect status"
          error={errors.redirect_status}
          hint={
            permanent
              ? "Browsers keep a permanent redirect for a while: their repeat visits are not counted."
              : "Temporary: every visit reaches the service and counts."
          }
        >
          <select
            id="link-redirect-status"
            data-testid="link-redirect-status"
            value={values.redirect_status}
            onChange={(e) => set("redirect_status", e.target.value)}
          >
            {STATUSES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <label className="checkbox" htmlFor="link-crawlable">
        <input
          id="link-crawlable"
          data-testid="link-crawlable"
          type="checkbox"
          checked={values.crawlable}
          onChange={(e) => set("crawlable", e.target.checked)}
        />
        Let search engines follow this link (listed as allowed in robots.txt)
      </label>
    </>
  );
}
