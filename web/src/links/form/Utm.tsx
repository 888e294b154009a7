// The link builder's UTM option: five fields that edit the destination URL's utm_* parameters (and follow the
// URL as it is edited), the owner's saved templates to fill them from, and "Save as template".
import { useState } from "react";
import type { UtmTemplate } from "@contract/utm";
import { UTM_PARAMS, type UtmParam } from "../../../../src/contract/form-rules";
import { ApiError } from "../../shared/api";
import { Alert, Field, errorMessage } from "../../shared/ui";
import { useSubmit } from "../../shared/submit";
import { formApi } from "./form-api";
import { readUtm, writeAllUtm, writeUtm } from "./utm";
import { useOwnerList } from "./use-form-source";

const LABELS: Record<UtmParam, [string, string]> = {
  utm_source: ["Source", "newsletter"],
  utm_medium: ["Medium", "email"],
  utm_campaign: ["Campaign", "spring-sale"],
  utm_term: ["Term", "running shoes"],
  utm_content: ["Content", "header-button"],
};

/** "Save as template": a name, sent with the five values; a taken name is said at the name. */
function SaveTemplate(props: { url: string; owner: string | null; onSaved: (t: UtmTemplate) => void; onCancel: () => void }) {
  const [name, setName] = useState("");
  const {
    busy,
    error,
    onSubmit: save,
  } = useSubmit(
    async () => props.onSaved(await formApi.saveUtmTemplate({ name, ...readUtm(props.url) }, props.owner)),
    // A taken or wrong name is said at the name; a value the server refuses, with the parameter's name.
    (err) => (err instanceof ApiError ? (err.details.find((d) => d.field === "name")?.message ?? err.message) : String(err)),
  );
  return (
    <div className="lf-utm-save" data-testid="utm-save-form">
      <Field id="utm-template-name" label="Template name" error={error ?? undefined}>
        <input
          id="utm-template-name"
          data-testid="utm-template-name"
          type="text"
          autoFocus
          placeholder="Newsletter"
          value={name}
          onChange={(e) => setName(e.target.value)}
          // Enter saves the template, not the link (this sits inside the link's form).
          onKeyDown={(e) => e.key === "Enter" && void save(e)}
        />
      </Field>
      <div className="row gap-sm lf-utm-save-actions">
        <button type="button" className="btn btn-primary btn-sm" disabled={busy || !name.trim()} onClick={save} data-testid="utm-template-submit">
          {busy ? "Saving…" : "Save template"}
        </button>
        <button type="button" className="btn btn-secondary btn-sm" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

// eslint-disable-next-line max-lines-per-function -- the UTM fields, the templates and the built URL share one state.
export function UtmBuilder(props: { url: string; onUrl: (url: string) => void; owner: string | null; ready: boolean; canDelete: boolean }) {
  const { url, onUrl } = props;
  const values = readUtm(url);
  const count = UTM_PARAMS.filter((p) => values[p] !== "").length;
  const { list: templates, setList: setTemplates, error } = useOwnerList(formApi.utmTemplates, props.owner, props.ready);
  const [chosen, setChosen] = useState("");
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const noUrl = url.trim() === "";
  function apply(id: string) {
    setChosen(id);
    setNotice(null);
    const t = templates?.find((x) => x.id === id);
    if (t) onUrl(writeAllUtm(url, t));
  }
  // Not useSubmit: a failure is said in the notice beside the templates, where a deletion's success is said.
  async function remove() {
    const t = templates?.find((x) => x.id === chosen);
    if (!t) return;
    try {
      await formApi.deleteUtmTemplate(t.id);
      setTemplates((list) => (list ?? []).filter((x) => x.id !== t.id));
      setChosen("");
      setNotice(`Template “${t.name}” deleted.`);
    } catch (e) {
      setNotice(`The template could not be deleted: ${errorMessage(e)}`);
    }
  }

  return (
    <div className="lf-utm" data-testid="utm-builder">
      <p className="field-hint lf-section-hint">Campaign tags for analytics tools, kept in the destination URL above: edit either.</p>
      <div className="lf-utm-templates">
        <select
          aria-label="Fill from a template"
          data-testid="utm-template"
          value={chosen}
          disabled={!templates?.length || noUrl}
          onChange={(e) => apply(e.target.value)}
        >
          <option value="">
            {templates === null && !error ? "Loading templates…" : templates?.length ? "Fill from a template…" : "No templates saved yet"}
          </option>
          {(templates ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
        {chosen && props.canDelete ? (
          <button type="button" className="btn btn-danger-ghost btn-sm" onClick={remove} data-testid="utm-template-delete">
            Delete template
          </button>
        ) : null}
      </div>
      {error ? <p className="field-hint">Your templates could not be loaded: {error}</p> : null}
      <div className="grid-2 lf-utm-fields">
        {UTM_PARAMS.map((p) => (
          <Field key={p} id={`link-${p}`} label={`${LABELS[p][0]} (${p})`}>
            <input
              id={`link-${p}`}
              data-testid={`link-${p}`}
              type="text"
              autoCapitalize="off"
              spellCheck={false}
              disabled={noUrl}
              placeholder={noUrl ? "Enter the destination first" : LABELS[p][1]}
              value={values[p]}
              onChange={(e) => {
                setChosen("");
                onUrl(writeUtm(url, p, e.target.value));
              }}
            />
          </Field>
        ))}
      </div>
      {notice ? (
        <Alert kind="success" testId="utm-notice">
          {notice}
        </Alert>
      ) : null}
      {saving ? (
        <SaveTemplate
          url={url}
          owner={props.owner}
          onCancel={() => setSaving(false)}
          onSaved={(t) => {
            setTemplates((list) => [...(list ?? []), t].sort((a, b) => a.name.localeCompare(b.name, "en", { sensitivity: "base", numeric: true })));
            setChosen(t.id);
            setSaving(false);
            setNotice(`Saved as template “${t.name}”.`);
          }}
        />
      ) : (
        <button
          type="button"
          className="btn btn-secondary btn-sm lf-utm-save-open"
          disabled={count === 0}
          onClick={() => setSaving(true)}
          data-testid="utm-save-template"
        >
          Save as template
        </button>
      )}
    </div>
  );
}
