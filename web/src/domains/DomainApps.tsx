// A custom domain's apps (docs/deep-links.md): the iOS apps and Android packages that open its short links, and the
// two files iOS and Android read from the domain, as they read them. Read when opened.
import { useEffect, useState } from "react";
import type { AppsReply } from "@contract/deeplinks";
import { domainsApi } from "./domains-api";
import { Alert, CopyButton, Field, Spinner } from "../shared/ui";
import { fieldsOrMessage, useSubmit } from "../shared/submit";

interface IosRow {
  app_id: string;
  paths: string;
  webcredentials: boolean;
}
interface AndroidRow {
  package: string;
  fingerprints: string;
}

const lines = (text: string) =>
  text
    .split(/\s+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** The form's rows from the stored apps (paths and fingerprints one per line). */
function rowsOf(apps: AppsReply["apps"]): { ios: IosRow[]; android: AndroidRow[] } {
  return {
    ios: apps.ios.map((a) => ({ app_id: a.app_id, paths: a.paths.join("\n"), webcredentials: a.webcredentials })),
    android: apps.android.map((a) => ({ package: a.package, fingerprints: a.sha256_cert_fingerprints.join("\n") })),
  };
}

function AppFiles({ host, files }: { host: string; files: AppsReply["files"] }) {
  const shown: Array<[string, string, unknown]> = [
    ["apple", "/.well-known/apple-app-site-association", files.apple_app_site_association],
    ["android", "/.well-known/assetlinks.json", files.assetlinks],
  ];
  return (
    <div className="app-files" data-testid="app-files">
      {shown.map(([key, path, json]) => (
        <div key={key} className="app-file">
          <p className="small">
            <code>
              https://{host}
              {path}
            </code>{" "}
            {json === null ? (
              <span className="muted">not served (no app)</span>
            ) : (
              <CopyButton text={JSON.stringify(json, null, 2)} label="Copy" testId={`copy-${key}-file`} />
            )}
          </p>
          {json === null ? null : (
            <pre className="app-file-json" data-testid={`${key}-file`} tabIndex={0}>
              {JSON.stringify(json, null, 2)}
            </pre>
          )}
        </div>
      ))}
    </div>
  );
}

interface RowProps<R> {
  id: string;
  row: R;
  error: (field: string) => string | undefined;
  set: (patch: Partial<R>) => void;
  remove: () => void;
}

function IosAppFields({ id, row: r, error, set, remove }: RowProps<IosRow>) {
  return (
    <fieldset className="app-row" data-testid="ios-app">
      <legend className="visually-hidden">iOS app</legend>
      <Field id={`${id}-app`} label="App ID (TEAMID.bundle.id)" error={error("app_id")}>
        <input id={`${id}-app`} type="text" value={r.app_id} onChange={(e) => set({ app_id: e.target.value })} placeholder="ABCDE12345.com.example.shop" />
      </Field>
      <Field id={`${id}-paths`} label="Paths it opens, one per line" hint="Empty: every short link" error={error("paths")}>
        <textarea id={`${id}-paths`} rows={2} value={r.paths} onChange={(e) => set({ paths: e.target.value })} placeholder="/promo/*" />
      </Field>
      <label className="checkbox">
        <input type="checkbox" checked={r.webcredentials} onChange={(e) => set({ webcredentials: e.target.checked })} /> Shared passwords and passkeys
        (webcredentials)
      </label>
      <button type="button" className="btn btn-ghost btn-sm" onClick={remove}>
        Remove this app
      </button>
    </fieldset>
  );
}

function AndroidAppFields({ id, row: r, error, set, remove }: RowProps<AndroidRow>) {
  return (
    <fieldset className="app-row" data-testid="android-app">
      <legend className="visually-hidden">Android app</legend>
      <Field id={`${id}-package`} label="Package name" error={error("package")}>
        <input id={`${id}-package`} type="text" value={r.package} onChange={(e) => set({ package: e.target.value })} placeholder="com.example.shop" />
      </Field>
      <Field
        id={`${id}-prints`}
        label="SHA-256 certificate fingerprints, one per line"
        hint="keytool -list -v prints them; Play's app signing key is on the Play Console's App integrity page"
        error={error("sha256_cert_fingerprints")}
      >
        <textarea id={`${id}-prints`} rows={2} value={r.fingerprints} onChange={(e) => set({ fingerprints: e.target.value })} />
      </Field>
      <button type="button" className="btn btn-ghost btn-sm" onClick={remove}>
        Remove this app
      </button>
    </fieldset>
  );
}

function AppsForm({ id, loaded, onSaved }: { id: string; loaded: AppsReply; onSaved: (r: AppsReply) => void }) {
  const [rows, setRows] = useState(() => rowsOf(loaded.apps));
  const [fields, setFields] = useState<Record<string, string>>({});
  const known = rows.ios
    .flatMap((_, i) => [`ios.${i}.app_id`, `ios.${i}.paths`])
    .concat(rows.android.flatMap((_, i) => [`android.${i}.package`, `android.${i}.sha256_cert_fingerprints`]));
  const fieldError = (prefix: string) => Object.entries(fields).find(([k]) => k === prefix || k.startsWith(`${prefix}.`))?.[1];
  const save = useSubmit(
    async () => {
      setFields({});
      const body = {
        ios: rows.ios.map((r) => ({ app_id: r.app_id.trim(), paths: lines(r.paths), webcredentials: r.webcredentials })),
        android: rows.android.map((r) => ({ package: r.package.trim(), sha256_cert_fingerprints: lines(r.fingerprints) })),
      };
      const saved = await domainsApi.setApps(id, body);
      setRows(rowsOf(saved.apps));
      onSaved(saved);
    },
    fieldsOrMessage(known, (f) => setFields(Object.fromEntries(Object.entries(f)))),
  );
  const setIos = (i: number, patch: Partial<IosRow>) => setRows((r) => ({ ...r, ios: r.ios.map((x, j) => (j === i ? { ...x, ...patch } : x)) }));
  const setAndroid = (i: number, patch: Partial<AndroidRow>) =>
    setRows((r) => ({ ...r, android: r.android.map((x, j) => (j === i ? { ...x, ...patch } : x)) }));

  return (
    <form className="apps-form" onSubmit={save.onSubmit} data-testid="apps-form">
      <h3 className="apps-heading">iOS</h3>
      {rows.ios.map((r, i) => (
        <IosAppFields
          key={i}
          id={`ios-${id}-${i}`}
          row={r}
          error={(f) => fieldError(`ios.${i}.${f}`)}
          set={(patch) => setIos(i, patch)}
          remove={() => setRows((x) => ({ ...x, ios: x.ios.filter((_, j) => j !== i) }))}
        />
      ))}
      <button
        type="button"
        className="btn btn-sm"
        onClick={() => setRows((x) => ({ ...x, ios: [...x.ios, { app_id: "", paths: "", webcredentials: false }] }))}
        data-testid="add-ios-app"
      >
        Add an iOS app
      </button>

      <h3 className="apps-heading">Android</h3>
      {rows.android.map((r, i) => (
        <AndroidAppFields
          key={i}
          id={`android-${id}-${i}`}
          row={r}
          error={(f) => fieldError(`android.${i}.${f}`)}
          set={(patch) => setAndroid(i, patch)}
          remove={() => setRows((x) => ({ ...x, android: x.android.filter((_, j) => j !== i) }))}
        />
      ))}
      <button
        type="button"
        className="btn btn-sm"
        onClick={() => setRows((x) => ({ ...x, android: [...x.android, { package: "", fingerprints: "" }] }))}
        data-testid="add-android-app"
      >
        Add an Android app
      </button>

      {save.error ? <Alert testId="apps-error">{save.error}</Alert> : null}
      <div className="row gap">
        <button type="submit" className="btn btn-primary btn-sm" disabled={save.busy} data-testid="apps-save">
          {save.busy ? "Saving…" : "Save apps"}
        </button>
      </div>
    </form>
  );
}

/** The section of a domain's card: closed until asked for. */
export function DomainApps({ id }: { id: string }) {
  const [open, setOpen] = useState(false);
  const [loaded, setLoaded] = useState<AppsReply | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!open || loaded) return;
    domainsApi.apps(id).then(setLoaded, (e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, [open, loaded, id]);
  return (
    <details className="domain-apps" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-testid="domain-apps">
      <summary>Apps that open these links (iOS and Android)</summary>
      {error ? <Alert testId="apps-load-error">{error}</Alert> : null}
      {open && !loaded && !error ? <Spinner label="Loading the apps…" /> : null}
      {loaded ? (
        <>
          <AppsForm key={loaded.apps.updated_at ?? "none"} id={id} loaded={loaded} onSaved={setLoaded} />
          <AppFiles host={loaded.host} files={loaded.files} />
        </>
      ) : null}
    </details>
  );
}
