// Create and edit a link, with the options the user's plan allows.
import { useEffect, useState, type FormEvent } from "react";
import { useNavigate, useParams } from "react-router";
import { api, ApiError, planAtLeast, planLabel, type Domain, type Link } from "../api";
import { useSession } from "../session";
import { A, Alert, Field, ModerationNotice, Spinner, UpgradeHint, errorMessage, useTitle } from "../ui";
import { CreatedLink } from "./Home";

interface FormValues {
  url: string;
  alias: string;
  /** "" for the service's own host. */
  domain: string;
  expires_at: string; // datetime-local value
  max_clicks: string;
  password: string;
  remove_password: boolean;
  ios_url: string;
  android_url: string;
}

const EMPTY: FormValues = { url: "", alias: "", domain: "", expires_at: "", max_clicks: "", password: "", remove_password: false, ios_url: "", android_url: "" };

/** ISO instant -> value for <input type="datetime-local"> in the browser's time zone. */
function isoToLocalInput(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** datetime-local value (local time) -> ISO-8601 UTC, or null when empty/invalid. */
function localInputToIso(v: string): string | null {
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

function fromLink(l: Link): FormValues {
  return {
    url: l.url,
    alias: l.alias,
    domain: l.domain ?? "",
    expires_at: isoToLocalInput(l.expires_at),
    max_clicks: l.max_clicks == null ? "" : String(l.max_clicks),
    password: "",
    remove_password: false,
    ios_url: l.ios_url ?? "",
    android_url: l.android_url ?? "",
  };
}

/** Verified domains, plus the link's own domain when it is no longer verified (so the form shows where it lives). */
function domainChoices(domains: Domain[] | null, original: Link | null): Pick<Domain, "hostname" | "status">[] {
  const list: Pick<Domain, "hostname" | "status">[] = (domains ?? []).filter((d) => d.status === "verified");
  if (original?.domain && !list.some((d) => d.hostname === original.domain)) list.push({ hostname: original.domain, status: "pending" });
  return list;
}

export function LinkFormPage({ mode }: { mode: "create" | "edit" }) {
  useTitle(mode === "create" ? "New link" : "Edit link");
  const { id } = useParams();
  const { user } = useSession();
  const navigate = useNavigate();
  const [original, setOriginal] = useState<Link | null>(null);
  // A team owner's link: its options follow the owner's plan, and an active team means Business or above.
  const shared = !!original && !!user && original.owner_id !== user.id;
  const pro = shared || planAtLeast(user?.plan, "pro");
  const back = shared && original?.owner_id ? `/app/shared/${encodeURIComponent(original.owner_id)}` : "/app";
  const business = planAtLeast(user?.plan, "business");
  const [domains, setDomains] = useState<Domain[] | null>(null);
  const [domainsError, setDomainsError] = useState<string | null>(null);
  const [values, setValues] = useState<FormValues>(EMPTY);
  const [loading, setLoading] = useState(mode === "edit");
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<Link | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (mode !== "edit" || !id) return;
    let live = true;
    setLoading(true);
    api
      .getLink(id)
      .then((l) => {
        if (!live) return;
        setOriginal(l);
        setValues(fromLink(l));
      })
      .catch((e: unknown) => live && setLoadError(errorMessage(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [mode, id]);

  // Verified custom domains are offered (Business and above; the server checks again).
  useEffect(() => {
    if (!business) return;
    let live = true;
    api
      .listDomains()
      .then((list) => live && setDomains(list))
      .catch((e: unknown) => live && setDomainsError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [business]);

  function set<K extends keyof FormValues>(key: K, value: FormValues[K]) {
    setValues((v) => ({ ...v, [key]: value }));
    setSaved(false);
  }

  function buildCreateBody(): Record<string, unknown> {
    const b: Record<string, unknown> = { url: values.url.trim() };
    if (values.alias.trim()) b.alias = values.alias.trim();
    if (values.domain) b.domain = values.domain;
    if (pro && values.expires_at) b.expires_at = localInputToIso(values.expires_at);
    if (pro && values.max_clicks.trim()) b.max_clicks = Number(values.max_clicks);
    if (values.password) b.password = values.password;
    if (values.ios_url.trim()) b.ios_url = values.ios_url.trim();
    if (values.android_url.trim()) b.android_url = values.android_url.trim();
    return b;
  }

  function buildPatchBody(o: Link): Record<string, unknown> {
    const b: Record<string, unknown> = {};
    if (values.url.trim() !== o.url) b.url = values.url.trim();
    if (values.alias.trim() && values.alias.trim() !== o.alias) b.alias = values.alias.trim();
    if (values.domain !== (o.domain ?? "")) b.domain = values.domain || null;
    if (pro || o.expires_at) {
      const iso = localInputToIso(values.expires_at);
      if (isoToLocalInput(iso) !== isoToLocalInput(o.expires_at)) b.expires_at = iso;
    }
    if (pro || o.max_clicks != null) {
      const mc = values.max_clicks.trim() === "" ? null : Number(values.max_clicks);
      if (mc !== o.max_clicks) b.max_clicks = mc;
    }
    if (values.remove_password) b.password = null;
    else if (values.password) b.password = values.password;
    const ios = values.ios_url.trim() || null;
    if (ios !== o.ios_url) b.ios_url = ios;
    const android = values.android_url.trim() || null;
    if (android !== o.android_url) b.android_url = android;
    return b;
  }

  function localCheck(): Record<string, string> {
    const fe: Record<string, string> = {};
    if (!values.url.trim()) fe.url = "Enter the destination address.";
    if (values.max_clicks.trim() && !/^[1-9]\d*$/.test(values.max_clicks.trim())) fe.max_clicks = "Enter a whole number of at least 1.";
    if (values.expires_at && !localInputToIso(values.expires_at)) fe.expires_at = "Enter a valid date and time.";
    return fe;
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const fe = localCheck();
    setFieldErrors(fe);
    if (Object.keys(fe).length) return;
    setBusy(true);
    try {
      if (mode === "create") {
        const link = await api.createLink(buildCreateBody());
        setCreated(link);
        setValues(EMPTY);
      } else if (original) {
        const body = buildPatchBody(original);
        if (Object.keys(body).length === 0) {
          setSaved(true);
        } else {
          const link = await api.updateLink(original.id, body);
          setOriginal(link);
          setValues(fromLink(link));
          setSaved(true);
        }
      }
    } catch (err) {
      if (err instanceof ApiError) {
        const { fields, general } = err.forFields(["url", "alias", "domain", "expires_at", "max_clicks", "password", "ios_url", "android_url"]);
        setFieldErrors(fields);
        setError(general && err.code === "plan_required" && err.requiredPlan ? `${general} (requires the ${planLabel(err.requiredPlan)} plan)` : general);
      } else setError(String(err));
    } finally {
      setBusy(false);
    }
  }

  if (loading) return <Spinner label="Loading the link…" />;
  if (loadError)
    return (
      <div className="narrow">
        <Alert testId="link-load-error">Could not load this link: {loadError}</Alert>
        <A to="/app" className="btn btn-secondary">
          Back to your links
        </A>
      </div>
    );

  if (created)
    return (
      <div className="narrow">
        <h1>Link created</h1>
        <CreatedLink link={created} anonymous={false} />
        <div className="row gap">
          <button type="button" className="btn btn-primary" onClick={() => setCreated(null)} data-testid="create-another">
            Create another
          </button>
          <A to="/app" className="btn btn-secondary">
            Back to your links
          </A>
        </div>
      </div>
    );

  const gated = !pro;
  return (
    <div className="narrow">
      <p className="breadcrumb">
        <A to={back}>{shared ? "← Shared links" : "← Your links"}</A>
      </p>
      <h1>{mode === "create" ? "New link" : "Edit link"}</h1>
      {original ? (
        <p className="muted">
          <a href={original.short_url} target="_blank" rel="noopener noreferrer">
            {original.short_url}
          </a>{" "}
          · {original.click_count} {original.click_count === 1 ? "click" : "clicks"}
          {original.updated_by && original.updated_by_email ? (
            <span data-testid="link-form-updated-by"> · last edited by {original.updated_by === user?.id ? "you" : original.updated_by_email}</span>
          ) : null}
        </p>
      ) : null}
      {original ? <ModerationNotice link={original} /> : null}
      <form className="card form-card" onSubmit={submit} noValidate data-testid="link-form">
        <Field id="link-url" label="Destination URL" error={fieldErrors.url}>
          <input id="link-url" data-testid="link-url" type="url" inputMode="url" required placeholder="https://example.com/page" value={values.url} onChange={(e) => set("url", e.target.value)} />
        </Field>
        {domainChoices(domains, original).length > 0 || domainsError ? (
          <Field
            id="link-domain"
            label="Domain"
            error={fieldErrors.domain}
            hint={domainsError ? `Your domains could not be loaded: ${domainsError}` : "Verified custom domains are listed; add one on the Domains page."}
          >
            <select id="link-domain" data-testid="link-domain" value={values.domain} onChange={(e) => set("domain", e.target.value)}>
              <option value="">{window.location.host} (default)</option>
              {domainChoices(domains, original).map((d) => (
                <option key={d.hostname} value={d.hostname} disabled={d.status !== "verified"}>
                  {d.hostname}
                  {d.status !== "verified" ? " (not verified: its links answer “not found”)" : ""}
                </option>
              ))}
            </select>
          </Field>
        ) : null}
        <Field id="link-alias" label="Alias (optional)" error={fieldErrors.alias} hint={mode === "create" ? "Leave empty to get a random short address." : "Changing the alias changes the short address; the old one stops working."}>
          <input id="link-alias" data-testid="link-alias" type="text" autoCapitalize="off" autoCorrect="off" spellCheck={false} placeholder="my-campaign" value={values.alias} onChange={(e) => set("alias", e.target.value)} />
        </Field>

        <fieldset className="options">
          <legend>Limits</legend>
          {gated ? (
            <p className="gated-note" data-testid="gated-note">
              <UpgradeHint plan="Pro">Expiration and click limits are available on Pro.</UpgradeHint>
            </p>
          ) : null}
          <div className="grid-2">
            <Field id="link-expires-at" label="Expires at" error={fieldErrors.expires_at} hint={gated ? "Available on Pro" : "Local time. After this, visitors get “expired”."}>
              <input id="link-expires-at" data-testid="link-expires-at" type="datetime-local" disabled={gated} value={values.expires_at} onChange={(e) => set("expires_at", e.target.value)} />
            </Field>
            <Field id="link-max-clicks" label="Maximum clicks" error={fieldErrors.max_clicks} hint={gated ? "Available on Pro" : "After this many clicks the link stops redirecting."}>
              <input id="link-max-clicks" data-testid="link-max-clicks" type="number" min={1} step={1} inputMode="numeric" disabled={gated} value={values.max_clicks} onChange={(e) => set("max_clicks", e.target.value)} />
            </Field>
          </div>
        </fieldset>

        <fieldset className="options">
          <legend>Protection</legend>
          <Field
            id="link-password"
            label={original?.has_password ? "New link password" : "Link password (optional)"}
            error={fieldErrors.password}
            hint={original?.has_password ? "This link has a password. Leave empty to keep it unchanged." : "Visitors must enter it before being redirected. It is not your account password."}
          >
            <input id="link-password" data-testid="link-password" type="password" autoComplete="new-password" disabled={values.remove_password} value={values.password} onChange={(e) => set("password", e.target.value)} />
          </Field>
          {original?.has_password ? (
            <label className="checkbox" htmlFor="link-remove-password">
              <input id="link-remove-password" data-testid="link-remove-password" type="checkbox" checked={values.remove_password} onChange={(e) => set("remove_password", e.target.checked)} />
              Remove the password
            </label>
          ) : null}
        </fieldset>

        <fieldset className="options">
          <legend>Device destinations</legend>
          <div className="grid-2">
            <Field id="link-ios-url" label="iOS destination (optional)" error={fieldErrors.ios_url}>
              <input id="link-ios-url" data-testid="link-ios-url" type="url" inputMode="url" placeholder="https://apps.apple.com/…" value={values.ios_url} onChange={(e) => set("ios_url", e.target.value)} />
            </Field>
            <Field id="link-android-url" label="Android destination (optional)" error={fieldErrors.android_url}>
              <input id="link-android-url" data-testid="link-android-url" type="url" inputMode="url" placeholder="https://play.google.com/…" value={values.android_url} onChange={(e) => set("android_url", e.target.value)} />
            </Field>
          </div>
        </fieldset>

        {error ? <Alert testId="link-form-error">{error}</Alert> : null}
        {saved ? <Alert kind="success" testId="link-saved">Changes saved.</Alert> : null}
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="link-submit">
            {busy ? "Saving…" : mode === "create" ? "Create link" : "Save changes"}
          </button>
          <button type="button" className="btn btn-secondary" onClick={() => navigate(back)}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
