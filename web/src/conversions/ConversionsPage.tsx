// The Conversions page (Business and up): the account's defaults (track conversions, the click id's parameter,
// the attribution window), the Stripe webhook endpoint, and the two lines that install track.js on a site.
import { useEffect, useState } from "react";
import type { ConversionSettings } from "@contract/conversions";
import { useSession } from "../shared/session";
import { can } from "../shared/plan-gate";
import { A, Alert, CopyButton, Field, Spinner, UpgradeHint, errorMessage, useTitle } from "../shared/ui";
import { fieldsOrMessage, useSubmit } from "../shared/submit";
import { conversionsApi } from "./conversions-api";
import { StripeSection } from "./StripeSection";
import "./conversions.css";

function SettingsForm({ settings, onSaved }: { settings: ConversionSettings; onSaved: (s: ConversionSettings) => void }) {
  const [track, setTrack] = useState(settings.track_conversions);
  const [param, setParam] = useState(settings.conversion_param);
  const [days, setDays] = useState(String(settings.attribution_days));
  const [fields, setFields] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const { busy, error, onSubmit } = useSubmit(
    async () => {
      setFields({});
      setSaved(false);
      const next = await conversionsApi.updateSettings({ track_conversions: track, conversion_param: param.trim(), attribution_days: Number(days) });
      onSaved(next);
      setSaved(true);
    },
    fieldsOrMessage(["conversion_param", "attribution_days", "track_conversions"], setFields),
  );
  return (
    <form className="card" onSubmit={onSubmit} noValidate data-testid="conversion-settings">
      <h2>Defaults</h2>
      <label className="checkbox" htmlFor="conv-track">
        <input id="conv-track" data-testid="conv-track" type="checkbox" checked={track} onChange={(e) => setTrack(e.target.checked)} />
        Track conversions on my links by default (a link&apos;s own choice in the link builder wins)
      </label>
      <div className="grid-2">
        <Field
          id="conv-param"
          label="Click id parameter"
          error={fields.conversion_param}
          hint="The query parameter the click id is added to the destination under (letters, digits, _ and -)."
        >
          <input id="conv-param" data-testid="conv-param" type="text" maxLength={40} value={param} onChange={(e) => setParam(e.target.value)} />
        </Field>
        <Field id="conv-days" label="Attribution window (days)" error={fields.attribution_days} hint="How long after a click a sign-up still counts for it.">
          <input
            id="conv-days"
            data-testid="conv-days"
            type="number"
            min={1}
            max={3650}
            step={1}
            inputMode="numeric"
            value={days}
            onChange={(e) => setDays(e.target.value)}
          />
        </Field>
      </div>
      {error ? <Alert testId="conv-settings-error">{error}</Alert> : null}
      {saved ? (
        <Alert kind="success" testId="conv-settings-saved">
          Settings saved.
        </Alert>
      ) : null}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="conv-settings-save">
          {busy ? "Saving…" : "Save settings"}
        </button>
      </div>
    </form>
  );
}

/** The two lines for the destination site's pages, with the account's parameter name when it is not the default. */
export function installSnippet(origin: string, param: string): string {
  const attr = param === "snip_id" ? "" : ` data-param="${param}"`;
  return `<script src="${origin}/_snip/track.js"${attr}></script>\n<script>document.querySelector("#signup input[name=snip_click_id]").value = window.snip.clickId() ?? "";</script>`;
}

function InstallSection({ param }: { param: string }) {
  const snippet = installSnippet(window.location.origin, param);
  return (
    <section className="card" data-testid="conv-install">
      <h2>Install on your site</h2>
      <p className="muted">
        Add these two lines to the pages your tracked links lead to (at least the landing and sign-up pages). The script keeps the click id in a cookie of your
        own site and gives it to your sign-up form; your server then sends it with the lead to <code>POST /api/track/lead</code> with an API key of scope{" "}
        <code>conversions:write</code> (<A to="/app/security#api-keys">API keys</A>).
      </p>
      <pre className="conv-snippet" data-testid="conv-snippet">
        <code>{snippet}</code>
      </pre>
      <CopyButton text={snippet} label="Copy the snippet" testId="conv-snippet-copy" />
      <p className="muted small">
        Without a script: read the <code>{param}</code> query parameter where the visitor lands, keep it in your session, and send it with the lead.
      </p>
    </section>
  );
}

export function ConversionsPage() {
  useTitle("Conversions");
  const { user } = useSession();
  const allowed = can(user?.plan ?? "free", "conversions");
  const [settings, setSettings] = useState<ConversionSettings | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!allowed) return;
    let live = true;
    setError(null);
    conversionsApi.settings().then(
      (s) => live && setSettings(s),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [allowed, attempt]);

  if (!allowed)
    return (
      <>
        <h1>Conversions</h1>
        <div className="card upgrade-card" data-testid="conversions-upgrade">
          <h2>See what your clicks led to</h2>
          <p>Conversion tracking counts the sign-ups, sales and revenue each link, rule and A/B variant brought, with a Stripe integration.</p>
          <p>
            <UpgradeHint plan="Business">Conversion tracking is available on Business and Enterprise.</UpgradeHint>
          </p>
        </div>
      </>
    );

  return (
    <div className="conversions-page">
      <div className="page-head">
        <div>
          <h1>Conversions</h1>
          <p className="muted">
            Leads and sales your links led to, reported by your site or by Stripe. See them on each link&apos;s page, in Analytics, and per person under{" "}
            <A to="/app/customers">Customers</A>.
          </p>
        </div>
      </div>
      {error ? (
        <Alert testId="conv-load-error">
          Could not load the conversion settings: {error}{" "}
          <button type="button" className="btn-link" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </button>
        </Alert>
      ) : null}
      {!settings && !error ? <Spinner label="Loading the settings…" /> : null}
      {settings ? (
        <>
          <SettingsForm settings={settings} onSaved={setSettings} />
          <StripeSection />
          <InstallSection param={settings.conversion_param} />
        </>
      ) : null}
    </div>
  );
}
