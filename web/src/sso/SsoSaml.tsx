// The SAML tab of the single sign-on page: snip's side to give the identity provider (entity id, ACS URL, metadata
// address, start address, signing certificate, each with a copy button), and the provider's metadata, pasted or
// given by its https:// address, with what snip read from it.
import { useState } from "react";
import type { SamlSettings, SsoConnection } from "@contract/sso";
import { ApiError } from "../shared/api";
import { Alert, CopyButton, Field } from "../shared/ui";
import { useSubmit } from "../shared/submit";
import { ssoApi } from "./sso-api";

function SpValue({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="saml-value">
      <div className="muted small">{label}</div>
      <div className="row gap saml-value-row">
        <code data-testid={testId}>{value}</code>
        <CopyButton text={value} testId={`${testId}-copy`} />
      </div>
    </div>
  );
}

function SpSide({ saml }: { saml: SamlSettings }) {
  return (
    <section className="card stack" aria-labelledby="saml-sp-title">
      <h2 id="saml-sp-title">Give these to your identity provider</h2>
      <SpValue label="Entity ID (Audience URI, Identifier)" value={saml.entity_id} testId="saml-entity-id" />
      <SpValue label="Assertion Consumer Service URL (Single sign-on URL, Reply URL; HTTP-POST)" value={saml.acs_url} testId="saml-acs-url" />
      <SpValue label="Metadata URL (imports all of this at once)" value={saml.metadata_url} testId="saml-metadata-url" />
      <SpValue label="Sign-in start URL (an app tile's initiate-login URL)" value={saml.start_url} testId="saml-start-url" />
      <div className="saml-value">
        <div className="row gap saml-value-row">
          <span className="muted small">Signing certificate (snip signs its requests with this key)</span>
          <CopyButton text={saml.certificate} testId="saml-certificate-copy" />
        </div>
        <pre className="saml-cert" data-testid="saml-certificate">
          {saml.certificate}
        </pre>
      </div>
    </section>
  );
}

function IdpSummary({ idp }: { idp: SamlSettings["idp"] }) {
  return idp ? (
    <dl className="saml-idp" data-testid="saml-idp">
      <dt>Entity ID</dt>
      <dd data-testid="saml-idp-entity">{idp.entity_id}</dd>
      <dt>Sign-in URL</dt>
      <dd>
        {idp.sso_url} ({idp.binding === "post" ? "HTTP-POST" : "HTTP-Redirect"})
      </dd>
      <dt>Certificates</dt>
      {idp.certificates.map((c) => (
        <dd key={c.sha256}>
          {c.subject}, valid until {c.not_after.slice(0, 10)}
        </dd>
      ))}
    </dl>
  ) : (
    <p className="muted">Not given yet: nobody signs in with SAML until it is.</p>
  );
}

/** A choice of a few options as chips (the protocol, how the metadata is given). */
export function ChipChoice<T extends string>(props: {
  label: string;
  options: readonly (readonly [T, string])[];
  value: T;
  onChange: (v: T) => void;
  testId: string;
}) {
  return (
    <div className="presets" role="group" aria-label={props.label}>
      {props.options.map(([value, label]) => (
        <button
          key={value}
          type="button"
          className={`chip${props.value === value ? " chip-active" : ""}`}
          aria-pressed={props.value === value}
          onClick={() => props.onChange(value)}
          data-testid={`${props.testId}-${value}`}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

const SOURCES = [
  ["xml", "Paste XML"],
  ["url", "Metadata URL"],
] as const;

export function SsoSaml({ saml, onSaved }: { saml: SamlSettings; onSaved: (c: SsoConnection) => void }) {
  const [source, setSource] = useState<"xml" | "url">(saml.idp?.metadata_url ? "url" : "xml");
  const [xml, setXml] = useState("");
  const [url, setUrl] = useState(saml.idp?.metadata_url ?? "");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const saving = useSubmit(
    async () => {
      setErrors({});
      setSaved(false);
      onSaved(await ssoApi.putSaml(source === "xml" ? { metadata_xml: xml } : { metadata_url: url.trim() }));
      setXml("");
      setSaved(true);
    },
    (err) => {
      if (!(err instanceof ApiError)) return String(err);
      const f = err.forFields(["metadata_xml", "metadata_url"]);
      setErrors(f.fields);
      return f.general;
    },
  );
  return (
    <div className="stack saml" data-testid="sso-saml">
      <SpSide saml={saml} />
      <form className="card stack" onSubmit={saving.onSubmit} noValidate data-testid="saml-idp-form">
        <h2>Your identity provider&apos;s metadata</h2>
        <IdpSummary idp={saml.idp} />
        <ChipChoice label="How to give the metadata" options={SOURCES} value={source} onChange={setSource} testId="saml-source" />
        {source === "xml" ? (
          <Field id="saml-metadata-xml" label="Metadata XML" error={errors.metadata_xml} hint="The identity provider's metadata document (EntityDescriptor).">
            <textarea id="saml-metadata-xml" data-testid="saml-metadata-xml" rows={6} spellCheck={false} value={xml} onChange={(e) => setXml(e.target.value)} />
          </Field>
        ) : (
          <Field
            id="saml-metadata-url-input"
            label="Metadata URL"
            error={errors.metadata_url}
            hint="Fetched once when you save; save again after the provider rotates its certificate."
          >
            <input
              id="saml-metadata-url-input"
              data-testid="saml-metadata-url-input"
              type="url"
              spellCheck={false}
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder="https://idp.example.com/metadata.xml"
            />
          </Field>
        )}
        {saving.error ? <Alert testId="saml-error">{saving.error}</Alert> : null}
        {saved ? (
          <Alert kind="success" testId="saml-saved">
            Identity provider saved.
          </Alert>
        ) : null}
        <div className="row gap">
          <button type="submit" className="btn btn-primary" disabled={saving.busy || (source === "xml" ? !xml.trim() : !url.trim())} data-testid="saml-save">
            {saving.busy ? "Saving…" : "Save identity provider"}
          </button>
        </div>
      </form>
    </div>
  );
}
