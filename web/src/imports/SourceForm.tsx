// The import's source and settings: a picker of the six sources, then the chosen one's fields (base address,
// token, Bitly's group, or a file read here as text), and what to do when an alias is taken.
import { useState, type ChangeEvent } from "react";
import { Field } from "../shared/ui";
import type { OnTaken, SourceName } from "./imports-api";
import { SOURCES, formatBytes } from "./sources";
import { IMPORT_SOURCE_NAMES, MAX_IMPORT_FILE_BYTES, isFileSource } from "@contract/tables";

export interface PickedFile {
  name: string;
  size: number;
  text: string;
}

export interface FormValues {
  source: SourceName;
  base_url: string;
  token: string;
  group: string;
  file: PickedFile | null;
  on_taken: OnTaken;
}

export function initialValues(source: SourceName = "bitly"): FormValues {
  return { source, base_url: SOURCES[source].defaultBase, token: "", group: "", file: null, on_taken: "skip" };
}

interface Props {
  values: FormValues;
  onChange: (v: FormValues) => void;
  errors: Record<string, string>;
  disabled: boolean;
}

export function SourceForm({ values, onChange, errors, disabled }: Props) {
  const info = SOURCES[values.source];
  const set = (patch: Partial<FormValues>) => onChange({ ...values, ...patch });
  return (
    <fieldset className="import-fields" disabled={disabled}>
      <SourcePicker value={values.source} onPick={(source) => onChange({ ...initialValues(source), on_taken: values.on_taken })} />
      <p className="muted small import-carries" data-testid="import-carries">
        {info.carries}
      </p>
      {isFileSource(values.source) ? (
        <FilePicker firebase={values.source === "firebase"} file={values.file} error={errors.file} onPick={(file) => set({ file })} />
      ) : (
        <>
          <div className="grid-2 import-grid">
            <Field
              id="import-base"
              label={info.baseRequired ? "Base address" : "Base address (optional)"}
              error={errors.base_url}
              hint={
                info.baseRequired ? `Where your ${info.label} answers (its API lives under this address).` : `The API's address; change it only for a proxy.`
              }
            >
              <input
                id="import-base"
                type="url"
                inputMode="url"
                autoComplete="off"
                required={info.baseRequired}
                placeholder={info.basePlaceholder}
                value={values.base_url}
                onChange={(e) => set({ base_url: e.target.value })}
                data-testid="import-base"
              />
            </Field>
            <Field
              id="import-token"
              label={info.tokenLabel ?? "Token"}
              error={errors.token}
              hint={`${info.tokenHint} Used for this import only; kept sealed until it ends.`}
            >
              <input
                id="import-token"
                type="password"
                autoComplete="off"
                required
                value={values.token}
                onChange={(e) => set({ token: e.target.value })}
                data-testid="import-token"
              />
            </Field>
          </div>
          {values.source === "bitly" ? (
            <Field id="import-group" label="Group (optional)" error={errors.group} hint="A Bitly group's id (such as Bk1a2b3c4d); empty imports every group.">
              <input
                id="import-group"
                type="text"
                autoComplete="off"
                value={values.group}
                onChange={(e) => set({ group: e.target.value })}
                data-testid="import-group"
              />
            </Field>
          ) : null}
        </>
      )}
      <TakenChoice value={values.on_taken} onChange={(on_taken) => set({ on_taken })} error={errors.on_taken} />
    </fieldset>
  );
}

function SourcePicker({ value, onPick }: { value: SourceName; onPick: (s: SourceName) => void }) {
  return (
    <div className="source-picker" role="radiogroup" aria-label="Import from" data-testid="import-source-picker">
      {IMPORT_SOURCE_NAMES.map((name) => (
        <label key={name} className={`source-option${name === value ? " source-option-on" : ""}`}>
          <input type="radio" name="import-source" value={name} checked={name === value} onChange={() => onPick(name)} data-testid={`import-source-${name}`} />
          {SOURCES[name].label}
        </label>
      ))}
    </div>
  );
}

function FilePicker({ firebase, file, error, onPick }: { firebase: boolean; file: PickedFile | null; error?: string; onPick: (f: PickedFile | null) => void }) {
  const [reading, setReading] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  async function pick(e: ChangeEvent<HTMLInputElement>) {
    const f = e.target.files?.[0];
    setProblem(null);
    if (!f) return onPick(null);
    if (f.size > MAX_IMPORT_FILE_BYTES) {
      setProblem(
        `${f.name} is ${formatBytes(f.size)}: files up to ${formatBytes(MAX_IMPORT_FILE_BYTES)} can be imported here (split it, or use snip import on the server).`,
      );
      e.target.value = "";
      return onPick(null);
    }
    setReading(true);
    try {
      onPick({ name: f.name, size: f.size, text: await f.text() });
    } catch {
      setProblem(`${f.name} could not be read.`);
      onPick(null);
    } finally {
      setReading(false);
    }
  }

  const hint = reading
    ? "Reading the file…"
    : file
      ? `${file.name}, ${formatBytes(file.size)}.`
      : firebase
        ? `CSV with a header row naming a "Short link" and a "Long link" column (a "Link name" is kept as the title); up to ${formatBytes(MAX_IMPORT_FILE_BYTES)}.`
        : `CSV with a header row, or a snip JSON export; up to ${formatBytes(MAX_IMPORT_FILE_BYTES)}.`;
  return (
    <Field id="import-file" label="File" error={problem ?? error} hint={<span data-testid="import-file-info">{hint}</span>}>
      <input
        id="import-file"
        type="file"
        accept=".csv,.json,.txt,text/csv,application/json,text/plain"
        onChange={(e) => void pick(e)}
        data-testid="import-file"
      />
    </Field>
  );
}

function TakenChoice({ value, onChange, error }: { value: OnTaken; onChange: (v: OnTaken) => void; error?: string }) {
  return (
    <fieldset className="options import-taken" data-testid="import-on-taken">
      <legend>When an alias is taken</legend>
      <label className="checkbox">
        <input
          type="radio"
          name="import-on-taken"
          value="skip"
          checked={value === "skip"}
          onChange={() => onChange("skip")}
          data-testid="import-on-taken-skip"
        />
        Skip the line (reported)
      </label>
      <label className="checkbox">
        <input
          type="radio"
          name="import-on-taken"
          value="generate"
          checked={value === "generate"}
          onChange={() => onChange("generate")}
          data-testid="import-on-taken-generate"
        />
        Give it a generated alias
      </label>
      {error ? <p className="field-error">{error}</p> : null}
    </fieldset>
  );
}

/** The request body of the form's values (empty fields left out). */
export function fieldsOf(v: FormValues) {
  const trim = (s: string) => s.trim() || undefined;
  if (isFileSource(v.source)) return { source: v.source, file: v.file?.text ?? "", on_taken: v.on_taken };
  return {
    source: v.source,
    base_url: trim(v.base_url),
    token: v.token.trim() || undefined,
    group: v.source === "bitly" ? trim(v.group) : undefined,
    on_taken: v.on_taken,
  };
}
