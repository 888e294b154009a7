// Create and edit a link, with the options the user's plan allows; /app/links/new?from=<id> opens the
// create form with a copy of that link's settings (all but its alias; "Duplicate" on the edit page).
import { linkApi } from "../../shared/link-api";
import { linksApi } from "../links-api";
import { useEffect, useState, type FormEvent } from "react";
import { useNavigate, useParams, useSearchParams } from "react-router";
import { ApiError } from "../../shared/api";
import type { Domain } from "@contract/domains";
import type { Link } from "@contract/links";
import type { TagListItem } from "@contract/tags";
import { useSession } from "../../shared/session";
import { A, Alert, Field, ModerationNotice, Spinner, errorMessage, useTitle } from "../../shared/ui";
import { withScheme } from "../../shared/with-scheme";
import { useSubmit } from "../../shared/submit";
import { FormPlanNote, can, planName, type Capability } from "../../shared/plan-gate";
import { SharedCreateNote } from "../../shared/team-view";
import { DetailFields } from "./Details";
import { DeviceOptions, LimitOptions, ProtectionOptions } from "./Options";
import { DeliveryOptions } from "./Delivery";
import { PreviewOptions } from "./Preview";
import { RulesSection } from "./Rules";
import { SplitSection } from "./Split";
import { TestVisit } from "./TestVisit";
import { useFormSource, useOwnerList } from "./use-form-source";
import { UtmBuilder } from "./Utm";
import { EMPTY, LINK_FIELDS, checkValues, createBody, domainChoices, patchBody, fromLink, type Allowed, type FormValues } from "./values";
import "./link-form.css";
import "./targeting.css";

/** The form's features the plan lacks, for its one plan note. */
function missingOf(allowed: Allowed): Capability[] {
  const out: Capability[] = [];
  if (!allowed.limits) out.push("link_expiration", "link_start", "link_max_clicks");
  if (!allowed.fallback) out.push("link_fallback");
  if (!allowed.preview) out.push("link_preview");
  if (!allowed.targeting) out.push("link_targeting");
  return out;
}

/** The create page with a copy of link `id`'s settings (the list's "Duplicate" links here too). */
export function duplicatePath(id: string): string {
  return `/app/links/new?${new URLSearchParams({ from: id })}`;
}

/** The owner's tags, with the edited link's own (a tag created by the last save is not in the list read before). */
function withLinkTags(list: TagListItem[] | null, link: Link | null): TagListItem[] | null {
  if (!list || !link) return list;
  const missing = link.tags.filter((t) => !list.some((k) => k.id === t.id)).map((t) => ({ ...t, link_count: 1 }));
  return missing.length ? [...list, ...missing] : list;
}

/** Verified custom domains are offered (Business and above; the server checks again). */
function useDomains(business: boolean) {
  const [domains, setDomains] = useState<Domain[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!business) return;
    let live = true;
    linkApi
      .domains()
      .then((list) => live && setDomains(list))
      .catch((e: unknown) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [business]);
  return { domains, error };
}

function PageHead({
  mode,
  original,
  copiedFrom,
  userId,
}: {
  mode: "create" | "edit";
  original: Link | null;
  copiedFrom: Link | null;
  userId: string | undefined;
}) {
  if (copiedFrom)
    return (
      <>
        <h1>Duplicate link</h1>
        <p className="muted" data-testid="duplicate-note">
          A copy of{" "}
          <a href={copiedFrom.short_url} target="_blank" rel="noopener noreferrer">
            {copiedFrom.short_url}
          </a>{" "}
          with all its settings but the alias: choose one, or leave it empty for a random one.
        </p>
      </>
    );
  if (!original) return <h1>{mode === "create" ? "New link" : "Edit link"}</h1>;
  return (
    <>
      <div className="lf-head">
        <h1>Edit link</h1>
        <A to={duplicatePath(original.id)} className="btn btn-secondary btn-sm" testId="link-duplicate">
          Duplicate
        </A>
      </div>
      <p className="muted lf-head-meta">
        <a href={original.short_url} target="_blank" rel="noopener noreferrer">
          {original.short_url}
        </a>{" "}
        · {original.click_count} {original.click_count === 1 ? "click" : "clicks"}
        {original.archived ? <span className="badge lf-archived">Archived</span> : null}
        {original.updated_by && original.updated_by_email ? (
          <span data-testid="link-form-updated-by"> · last edited by {original.updated_by === userId ? "you" : original.updated_by_email}</span>
        ) : null}
      </p>
    </>
  );
}

// eslint-disable-next-line max-lines-per-function -- the form's sections share one set of values, gates and errors.
export function LinkFormPage({ mode }: { mode: "create" | "edit" }) {
  const { id } = useParams();
  const [params] = useSearchParams();
  const fromId = mode === "create" ? params.get("from") : null;
  useTitle(mode === "edit" ? "Edit link" : fromId ? "Duplicate link" : "New link");
  const { user } = useSession();
  const navigate = useNavigate();
  // "Create this alias" (orphan visits): the create page with the missing alias and its domain filled in.
  const askedAlias = mode === "create" && !fromId ? params.get("alias") : null;
  const initial = askedAlias ? { ...EMPTY, alias: askedAlias, domain: params.get("domain") ?? "" } : EMPTY;
  const { original, setOriginal, copiedFrom, values, setValues, loading, loadError } = useFormSource(mode, mode === "edit" ? (id ?? null) : fromId, initial);
  // A team owner's link: its options follow the owner's plan, and an active team means Business or above.
  const shared = !!original && !!user && original.owner_id !== user.id;
  const plan = user?.plan ?? "free";
  const allowed: Allowed = shared
    ? { limits: true, fallback: true, preview: true, targeting: true }
    : {
        limits: can(plan, "link_expiration"),
        fallback: can(plan, "link_fallback"),
        preview: can(plan, "link_preview"),
        targeting: can(plan, "link_targeting"),
      };
  // Tags and UTM templates are the link owner's: a member editing a team owner's link uses the owner's.
  const owner = shared ? original.owner_id : null;
  const ready = !loading && (mode === "create" || !!original);
  const back = shared && original?.owner_id ? `/app/shared/${encodeURIComponent(original.owner_id)}` : "/app";
  const { domains, error: domainsError } = useDomains(can(plan, "custom_domains"));
  const tags = useOwnerList(linkApi.tags, owner, ready);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);

  function set<K extends keyof FormValues>(key: K, value: FormValues[K]) {
    setValues((v) => ({ ...v, [key]: value }));
    setSaved(false);
  }

  function showErrors(fe: Record<string, string>) {
    setFieldErrors(fe);
    // The form is long: bring the first field to fix into view.
    if (Object.keys(fe).length)
      requestAnimationFrame(() => document.querySelector<HTMLElement>(".field-invalid input, .field-invalid textarea, .lf-tags-invalid input")?.focus());
  }

  async function save(values: FormValues): Promise<void> {
    if (mode === "create") {
      // The new link's own page: a reload keeps it in view.
      const link = await linkApi.create(createBody(values, allowed));
      navigate(`/app/links/${encodeURIComponent(link.id)}?created=1`);
    } else if (original) {
      const body = patchBody(values, original, allowed);
      if (Object.keys(body).length > 0) {
        const link = await linksApi.updateLink(original.id, body);
        setOriginal(link);
        setValues(fromLink(link));
      }
      setSaved(true);
    }
  }

  const { busy, error, setError, run } = useSubmit(save, (err) => {
    if (!(err instanceof ApiError)) return String(err);
    const { fields, general } = err.forFields(LINK_FIELDS);
    showErrors(fields);
    return general && err.code === "plan_required" && err.requiredPlan
      ? `${general}: ask the operator of this service for the ${planName(err.requiredPlan)} plan`
      : general;
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    // example.com/page is taken as https://example.com/page, and the field says so.
    const url = withScheme(values.url);
    if (url !== values.url) setValues((v) => ({ ...v, url }));
    const checked = { ...values, url };
    const fe = checkValues(checked, original);
    showErrors(fe);
    if (Object.keys(fe).length === 0) void run(checked);
  }

  if (loading) return <Spinner label="Loading the link…" />;
  if (loadError)
    return (
      <div className="narrow">
        <Alert testId="link-load-error">
          Could not load {fromId ? "the link to copy" : "this link"}: {loadError}
        </Alert>
        <A to="/app" className="btn btn-secondary">
          Back to your links
        </A>
      </div>
    );

  const host = values.domain || window.location.host;
  const shortUrl =
    original && values.alias.trim() === original.alias && values.domain === (original.domain ?? "")
      ? original.short_url
      : `${window.location.protocol}//${host}/${values.alias.trim() || "…"}`;
  return (
    <div className="narrow">
      <p className="breadcrumb">
        <A to={back}>{shared ? "← Shared links" : "← Your links"}</A>
      </p>
      <PageHead mode={mode} original={original} copiedFrom={copiedFrom} userId={user?.id} />
      <FormPlanNote missing={missingOf(allowed)} />
      {mode === "create" ? <SharedCreateNote /> : null}
      {original ? <ModerationNotice link={original} /> : null}
      <form className="card form-card" onSubmit={submit} noValidate data-testid="link-form">
        <Field id="link-url" label="Destination URL" error={fieldErrors.url}>
          <input
            id="link-url"
            data-testid="link-url"
            type="text"
            inputMode="url"
            autoComplete="url"
            spellCheck={false}
            required
            placeholder="https://example.com/page"
            value={values.url}
            onChange={(e) => set("url", e.target.value)}
            onBlur={() => values.url && set("url", withScheme(values.url))}
          />
        </Field>
        <UtmBuilder url={values.url} onUrl={(url) => set("url", url)} owner={owner} ready={ready} canDelete={!shared} />
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
        <Field
          id="link-alias"
          label="Alias (optional)"
          error={fieldErrors.alias}
          hint={mode === "create" ? "Leave empty to get a random short address." : "Changing the alias changes the short address; the old one stops working."}
        >
          <input
            id="link-alias"
            data-testid="link-alias"
            type="text"
            autoCapitalize="off"
            autoCorrect="off"
            spellCheck={false}
            placeholder="my-campaign"
            value={values.alias}
            onChange={(e) => set("alias", e.target.value)}
          />
        </Field>
        <DetailFields values={values} errors={fieldErrors} set={set} knownTags={withLinkTags(tags.list, original)} tagsError={tags.error} />

        <LimitOptions values={values} errors={fieldErrors} set={set} allowed={allowed} />
        <DeliveryOptions values={values} errors={fieldErrors} set={set} allowed={shared || can(plan, "link_start")} />
        <ProtectionOptions values={values} errors={fieldErrors} set={set} original={original} copiedFrom={copiedFrom} />
        <DeviceOptions values={values} errors={fieldErrors} set={set} />
        <PreviewOptions values={values} errors={fieldErrors} set={set} allowed={allowed.preview} host={host} shortUrl={shortUrl} />
        <RulesSection rules={values.rules} errors={fieldErrors} allowed={allowed.targeting} onChange={(r) => set("rules", r)} />
        <SplitSection split={values.split} url={values.url} errors={fieldErrors} allowed={allowed.targeting} onChange={(s) => set("split", s)} />
        {original && allowed.targeting ? <TestVisit link={original} /> : null}

        {error ? <Alert testId="link-form-error">{error}</Alert> : null}
        {saved ? (
          <Alert kind="success" testId="link-saved">
            Changes saved.
          </Alert>
        ) : null}
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
