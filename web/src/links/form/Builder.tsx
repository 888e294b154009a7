// The compact link builder: destination, domain and alias first with the short link and its QR code previewed
// as they are typed, then every option as a row that opens its fields in place, and one note for the options
// the plan lacks. The same component is the create and edit pages (LinkForm.tsx) and the list's dialog
// (BuilderDialog.tsx); the values, checks and request bodies are values.ts's.
import { linkApi } from "../../shared/link-api";
import { linksApi } from "../links-api";
import { useState, type FormEvent, type ReactNode } from "react";
import { ApiError } from "../../shared/api";
import type { Link } from "@contract/links";
import { useSession } from "../../shared/session";
import { A, Alert, ModerationNotice, Spinner } from "../../shared/ui";
import { withScheme } from "../../shared/with-scheme";
import { useSubmit } from "../../shared/submit";
import { FormPlanNote, can, planName, type Capability } from "../../shared/plan-gate";
import { SharedCreateNote, useCreateTeam } from "../../shared/team-view";
import { useTeamRole } from "../../shared/team-role";
import { BuilderOptions } from "./BuilderOptions";
import { BuilderTop, useDomains } from "./BuilderTop";
import { TestVisit } from "./TestVisit";
import { useFormSource, useOwnerList } from "./use-form-source";
import { reloadFolders } from "../../shared/folders";
import { useOpenOptions } from "./option-rows";
import { EMPTY, LINK_FIELDS, checkValues, createBody, patchBody, fromLink, type Allowed, type FormValues } from "./values";
import "./link-form.css";
import "./targeting.css";
import "./builder.css";

/** The form's features the plan lacks, for its one plan note. */
function missingOf(allowed: Allowed): Capability[] {
  const out: Capability[] = [];
  if (!allowed.limits) out.push("link_expiration", "link_start", "link_max_clicks");
  if (!allowed.fallback) out.push("link_fallback");
  if (!allowed.preview) out.push("link_preview");
  if (!allowed.targeting) out.push("link_targeting");
  if (!allowed.conversions) out.push("conversions");
  return out;
}

export interface BuilderProps {
  mode: "create" | "edit";
  /** The link to edit, or (create) the link to copy; null for a new one. */
  sourceId: string | null;
  initial?: FormValues;
  /** After a creation, with the new link. */
  onCreated: (link: Link) => void;
  /** Cancel, with the edited link (a team owner's goes back to that owner's list). */
  onCancel: (original: Link | null) => void;
  /** The page's head, once the link to edit or copy has loaded. */
  head?: (src: { original: Link | null; copiedFrom: Link | null }) => ReactNode;
  /** In the list's dialog: no page around it, the actions kept in view. */
  inDialog?: boolean;
}

/** What the user's plan (on a team owner's link, the owner's: an active team means Business or above) lets the form send. */
function allowedFor(plan: string, shared: boolean): Allowed {
  if (shared) return { limits: true, fallback: true, preview: true, targeting: true, conversions: true };
  return {
    limits: can(plan, "link_expiration"),
    fallback: can(plan, "link_fallback"),
    preview: can(plan, "link_preview"),
    targeting: can(plan, "link_targeting"),
    conversions: can(plan, "conversions"),
  };
}

/** The short link as it will be: the edited link's own while its address is unchanged; null while the alias is random. */
function previewUrl(values: FormValues, original: Link | null): string | null {
  const alias = values.alias.trim();
  if (original && alias === original.alias && values.domain === (original.domain ?? "")) return original.short_url;
  return alias ? `${window.location.protocol}//${values.domain || window.location.host}/${alias}` : null;
}

// eslint-disable-next-line max-lines-per-function -- the builder's parts share one set of values, gates and errors.
export function LinkBuilder({ mode, sourceId, initial = EMPTY, onCreated, onCancel, head, inDialog = false }: BuilderProps) {
  const { user } = useSession();
  const { original, setOriginal, copiedFrom, values, setValues, loading, loadError } = useFormSource(mode, sourceId, initial);
  // A new link while a team's links are shown is created in the owner's account when the role allows it (docs/roles.md).
  const createTeam = useCreateTeam();
  const teamOwner = createTeam.inTeam ? (createTeam.team?.owner_id ?? null) : null;
  const inTeam = mode === "create" && teamOwner !== null;
  const shared = inTeam || (!!original && !!user && original.owner_id !== user.id);
  const plan = user?.plan ?? "free";
  const allowed = allowedFor(plan, shared);
  // Tags and UTM templates are the link owner's: a member editing a team owner's link uses the owner's.
  const owner = inTeam ? teamOwner : shared && original ? original.owner_id : null;
  // Deleting the owner's UTM templates: labels.manage (the owner and admins; docs/roles.md).
  const access = useTeamRole(owner);
  const ready = !loading && (mode === "create" || !!original);
  const domains = useDomains(shared || can(plan, "custom_domains"), owner);
  const tags = useOwnerList(linkApi.tags, owner, ready);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  // A copied link's password cannot be copied: its option opens to say so.
  const options = useOpenOptions(
    values,
    `${loading}:${original?.id ?? copiedFrom?.id ?? ""}`,
    !!original?.has_password,
    copiedFrom?.has_password ? ["password"] : [],
  );

  function set<K extends keyof FormValues>(key: K, value: FormValues[K]) {
    setValues((v) => ({ ...v, [key]: value }));
    setSaved(false);
  }

  function showErrors(fe: Record<string, string>) {
    setFieldErrors(fe);
    // The option holding a refused field opens, and the first field to fix gets the focus.
    options.reveal(Object.keys(fe));
    if (Object.keys(fe).length)
      requestAnimationFrame(() => document.querySelector<HTMLElement>(".field-invalid input, .field-invalid textarea, .lf-tags-invalid input")?.focus());
  }

  async function save(values: FormValues): Promise<void> {
    if (mode === "create") {
      const created = await linkApi.create(createBody(values, allowed), false, owner);
      // The sidebar's folder counts follow a link created in a folder.
      if (created.folder_id) reloadFolders();
      return onCreated(created);
    }
    if (!original) return;
    const body = patchBody(values, original, allowed);
    if (Object.keys(body).length > 0) {
      const link = await linksApi.updateLink(original.id, body);
      if ("folder_id" in body) reloadFolders();
      setOriginal(link);
      setValues(fromLink(link));
    }
    setSaved(true);
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
  if (loadError) return <LoadError copy={mode === "create"} error={loadError} />;

  const shortUrl = previewUrl(values, original);
  const host = values.domain || window.location.host;
  return (
    <>
      {head?.({ original, copiedFrom })}
      {mode === "create" ? <SharedCreateNote /> : null}
      {original ? <ModerationNotice link={original} /> : null}
      <form className={`lf-builder${inDialog ? " lf-builder-dialog" : " card"}`} onSubmit={submit} noValidate data-testid="link-form">
        <BuilderTop mode={mode} values={values} errors={fieldErrors} set={set} original={original} domains={domains} shortUrl={shortUrl} host={host} />
        <BuilderOptions
          values={values}
          errors={fieldErrors}
          set={set}
          allowed={allowed}
          startAllowed={shared || can(plan, "link_start")}
          original={original}
          copiedFrom={copiedFrom}
          options={options}
          owner={owner}
          ready={ready}
          canDeleteTemplates={access.can("labels.manage")}
          tags={tags}
          host={host}
          shortUrl={shortUrl ?? `${window.location.protocol}//${host}/…`}
        />
        <FormPlanNote missing={missingOf(allowed)} />
        {original && allowed.targeting ? <TestVisit link={original} /> : null}
        {error ? <Alert testId="link-form-error">{error}</Alert> : null}
        {saved ? (
          <Alert kind="success" testId="link-saved">
            Changes saved.
          </Alert>
        ) : null}
        <div className="form-actions lf-actions">
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="link-submit">
            {busy ? "Saving…" : mode === "create" ? "Create link" : "Save changes"}
          </button>
          <button type="button" className="btn btn-secondary" onClick={() => onCancel(original)} data-testid="link-cancel">
            Cancel
          </button>
        </div>
      </form>
    </>
  );
}

function LoadError({ copy, error }: { copy: boolean; error: string }) {
  return (
    <>
      <Alert testId="link-load-error">
        Could not load {copy ? "the link to copy" : "this link"}: {error}
      </Alert>
      <A to="/app" className="btn btn-secondary">
        Back to your links
      </A>
    </>
  );
}
