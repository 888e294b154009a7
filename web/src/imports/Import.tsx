// Import links from Bitly, Shlink, YOURLS, Kutt, Dub or a CSV / snip JSON file: the source's form, a preview of
// the first rows and what would happen to each, then the job with its progress, report and resume; the
// account's past imports; and the export of every link.
import { useRef, useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { ApiError } from "../shared/api";
import { A, Alert, errorMessage, useTitle } from "../shared/ui";
import { usePagedList } from "../shared/lists";
import { importsApi } from "./imports-api";
import type { ImportFields, ImportJob, PreviewReply } from "@contract/imports";
import { isFileSource } from "@contract/tables";
import { SourceForm, fieldsOf, initialValues, type FormValues } from "./SourceForm";
import { PreviewTable } from "./PreviewTable";
import { JobProgress } from "./JobProgress";
import { PastImports } from "./PastImports";
import { ExportCard } from "../shared/ExportLinks";
import { SOURCES } from "./sources";
import "./imports.css";

const FIELD_NAMES = ["base_url", "token", "group", "file", "on_taken"];

/** What must be filled before the server is asked; the server checks the rest. */
function missing(v: FormValues): Record<string, string> {
  const info = SOURCES[v.source];
  const out: Record<string, string> = {};
  if (isFileSource(v.source)) {
    if (!v.file) out.file = "Choose a file to import.";
    return out;
  }
  if (info.baseRequired && !v.base_url.trim()) out.base_url = `Enter the address of your ${info.label}.`;
  // "Access token" reads "access token" mid-sentence; "API key" stays as it is.
  const token = (info.tokenLabel ?? "token").replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase());
  if (!v.token.trim()) out.token = `Enter your ${info.label} ${token}.`;
  return out;
}

// eslint-disable-next-line max-lines-per-function -- the source form, the preview and the started job share the page's state.
export function ImportPage() {
  useTitle("Import links");
  const [params, setParams] = useSearchParams();
  const openId = params.get("job");
  const [values, setValues] = useState<FormValues>(() => initialValues());
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [preview, setPreview] = useState<{ fields: string; reply: PreviewReply } | null>(null);
  // Not useSubmit: busy names which of the two calls runs (each button says so), and both share one error.
  const [busy, setBusy] = useState<"preview" | "start" | null>(null);
  const [started, setStarted] = useState<ImportJob | null>(null);
  const [formVersion, setFormVersion] = useState(0);
  const jobRef = useRef<HTMLDivElement>(null);
  const list = usePagedList(() => importsApi.list().then((items) => ({ items, next: null })), "imports");

  const fields: ImportFields = fieldsOf(values);
  const fieldsKey = JSON.stringify(fields);
  const shown = preview?.fields === fieldsKey ? preview.reply : null;

  async function call<T>(kind: "preview" | "start", fn: (f: ImportFields) => Promise<T>): Promise<T | null> {
    const local = missing(values);
    setErrors(local);
    setFormError(null);
    if (Object.keys(local).length) return null;
    setBusy(kind);
    try {
      return await fn(fields);
    } catch (e) {
      if (e instanceof ApiError) {
        const { fields: byField, general } = e.forFields(FIELD_NAMES);
        setErrors(byField);
        setFormError(general);
      } else setFormError(errorMessage(e));
      return null;
    } finally {
      setBusy(null);
    }
  }

  async function onPreview(e: FormEvent) {
    e.preventDefault();
    const reply = await call("preview", importsApi.preview);
    if (reply) setPreview({ fields: fieldsKey, reply });
  }

  async function onStart() {
    const job = await call("start", importsApi.start);
    if (!job) return;
    setStarted(job);
    setPreview(null);
    setValues((v) => ({ ...v, token: "", file: null }));
    setFormVersion((n) => n + 1);
    setParams({ job: job.id });
    list.reload();
    requestAnimationFrame(() => jobRef.current?.scrollIntoView({ behavior: "smooth", block: "start" }));
  }

  /** A field's message goes once the field is changed (a new source clears them all). */
  function change(next: FormValues) {
    const changed = (Object.keys(next) as (keyof FormValues)[]).filter((k) => next[k] !== values[k]);
    setErrors((prev) => (changed.includes("source") ? {} : Object.fromEntries(Object.entries(prev).filter(([k]) => !changed.includes(k as keyof FormValues)))));
    setValues(next);
  }

  function onJobState(job: ImportJob) {
    list.update((prev) => (prev.some((j) => j.id === job.id) ? prev.map((j) => (j.id === job.id ? job : j)) : [job, ...prev]));
  }

  return (
    <div className="import-page">
      <p className="breadcrumb">
        <A to="/app">← Your links</A>
      </p>
      <div className="page-head">
        <div>
          <h1>Import links</h1>
          <p className="muted">
            Bring your links from another shortener: aliases are kept where they are free, and a second run skips what was already imported.
          </p>
        </div>
      </div>

      <div ref={jobRef}>{openId ? <JobProgress key={openId} id={openId} initial={started} onState={onJobState} /> : null}</div>

      <form className="card form-card import-form" onSubmit={(e) => void onPreview(e)} noValidate data-testid="import-form">
        <h2>New import</h2>
        <SourceForm key={formVersion} values={values} onChange={change} errors={errors} disabled={busy !== null} />
        {formError ? <Alert testId="import-form-error">{formError}</Alert> : null}
        <div className="form-actions">
          <button type="submit" className={`btn ${shown ? "btn-secondary" : "btn-primary"}`} disabled={busy !== null} data-testid="import-preview-button">
            {busy === "preview" ? "Reading the source…" : shown ? "Preview again" : "Preview"}
          </button>
        </div>
        {shown ? (
          <div className="import-preview-block">
            <h3>Preview</h3>
            <PreviewTable preview={shown} />
            <div className="form-actions">
              <button
                type="button"
                className="btn btn-primary"
                disabled={busy !== null || shown.rows.length === 0}
                onClick={() => void onStart()}
                data-testid="import-start"
              >
                {busy === "start" ? "Starting…" : "Start import"}
              </button>
              <span className="muted small import-start-hint">Nothing is written until you start.</span>
            </div>
          </div>
        ) : null}
      </form>

      <PastImports jobs={list.items} error={list.error} onRetry={list.reload} openId={openId} onOpen={(id) => setParams({ job: id })} />
      <ExportCard />
    </div>
  );
}
