// Single sign-on for Enterprise owners: the protocol (OpenID Connect or SAML), the OpenID provider (issuer, client
// id, a write-only secret) or the SAML tab (SsoSaml.tsx), the email domains with their TXT records and verify
// buttons, "require SSO", SCIM provisioning's token (SsoScim.tsx), and removal.
import { useCallback, useEffect, useState } from "react";
import type { SsoConnection, SsoDomain } from "@contract/sso";
import { ApiError } from "../shared/api";
import { useSession } from "../shared/session";
import { Alert, ConfirmDialog, CopyButton, Field, Spinner, errorMessage, useConfirmedDelete, useTitle } from "../shared/ui";
import { PlanGate, can } from "../shared/plan-gate";
import { useSubmit } from "../shared/submit";
import { ssoApi } from "./sso-api";
import { SsoDomains } from "./SsoDomains";
import { ChipChoice, SsoSaml } from "./SsoSaml";
import { SsoScim } from "./SsoScim";

const FIELDS = ["issuer", "client_id", "client_secret", "domains"] as const;
const PROTOCOLS = [
  ["oidc", "OpenID Connect"],
  ["saml", "SAML 2.0"],
] as const;

// eslint-disable-next-line max-lines-per-function -- the form, the domains and the removal share the page's state.
export function SsoPage() {
  useTitle("Single sign-on");
  const { user } = useSession();
  const allowed = can(user?.plan ?? "free", "sso");
  const [conn, setConn] = useState<SsoConnection | null>(null);
  const [loading, setLoading] = useState(true);
  const [issuer, setIssuer] = useState("");
  const [clientId, setClientId] = useState("");
  const [secret, setSecret] = useState("");
  const [domains, setDomains] = useState("");
  const [requireSso, setRequireSso] = useState(false);
  const [protocol, setProtocol] = useState<SsoConnection["protocol"]>("oidc");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string | null>(null);

  const show = useCallback((c: SsoConnection | null) => {
    setConn(c);
    setIssuer(c?.issuer ?? "");
    setClientId(c?.client_id ?? "");
    setDomains(c?.domains.map((d) => d.domain).join(", ") ?? "");
    setRequireSso(c?.require_sso ?? false);
    setProtocol(c?.protocol ?? "oidc");
    setSecret("");
  }, []);

  const saving = useSubmit(
    async () => {
      setErrors({});
      setNotice(null);
      const list = domains.split(/[\s,]+/).filter(Boolean);
      const saml = protocol === "saml";
      show(
        await ssoApi.put({
          protocol,
          // Under SAML the OpenID fields are kept as stored (sent only when filled in).
          ...(!saml || issuer.trim() ? { issuer: issuer.trim() } : {}),
          ...(!saml || clientId.trim() ? { client_id: clientId.trim() } : {}),
          domains: list,
          require_sso: requireSso,
          ...(secret ? { client_secret: secret } : {}),
        }),
      );
      setNotice(
        saml ? "Saved. Give your identity provider snip's details below, then its metadata." : "Saved. Create each domain's TXT record, then verify it.",
      );
    },
    (err) => {
      if (!(err instanceof ApiError)) return String(err);
      const f = err.forFields([...FIELDS, ...domains.split(/[\s,]+/).map((_, i) => `domains[${i}]`)]);
      setErrors(Object.fromEntries(Object.entries(f.fields).map(([k, v]) => [k.startsWith("domains") ? "domains" : k, v])));
      return f.general;
    },
  );
  const { busy, error: general, setError: setGeneral } = saving;

  useEffect(() => {
    ssoApi
      .get()
      .then(show, (e) => setGeneral(errorMessage(e)))
      .finally(() => setLoading(false));
  }, [show, setGeneral]);

  const del = useConfirmedDelete(async () => {
    await ssoApi.remove();
    show(null);
    setNotice("Single sign-on removed. Members keep their accounts and sign in with a password (or a reset link).");
  });
  const replaceDomain = (d: SsoDomain) => setConn((c) => (c ? { ...c, domains: c.domains.map((x) => (x.domain === d.domain ? d : x)) } : c));

  if (loading) return <Spinner label="Loading single sign-on…" />;
  return (
    <div className="domains-page sso-page">
      <div className="page-head">
        <div>
          <h1>Single sign-on</h1>
          <p className="muted">People with an address on your verified domains sign in through your identity provider and join your team.</p>
        </div>
      </div>
      {!allowed && !conn ? (
        <div className="card" data-testid="sso-gated">
          <PlanGate feature="Single sign-on" capability="sso" />
        </div>
      ) : (
        <form className="card stack" onSubmit={saving.onSubmit} noValidate data-testid="sso-form">
          <ChipChoice label="Protocol" options={PROTOCOLS} value={protocol} onChange={setProtocol} testId="sso-protocol" />
          {protocol === "oidc" ? (
            <>
              <Field
                id="sso-issuer"
                label="Issuer URL"
                error={errors.issuer}
                hint="Your identity provider's issuer, e.g. https://login.example.com/realms/acme."
              >
                <input
                  id="sso-issuer"
                  data-testid="sso-issuer"
                  type="url"
                  spellCheck={false}
                  value={issuer}
                  onChange={(e) => setIssuer(e.target.value)}
                  placeholder="https://login.example.com/realms/acme"
                />
              </Field>
              <Field id="sso-client-id" label="Client ID" error={errors.client_id}>
                <input
                  id="sso-client-id"
                  data-testid="sso-client-id"
                  type="text"
                  spellCheck={false}
                  value={clientId}
                  onChange={(e) => setClientId(e.target.value)}
                />
              </Field>
              <Field
                id="sso-secret"
                label="Client secret"
                error={errors.client_secret}
                hint={conn?.client_secret_set ? "Stored (sealed; never shown). Leave empty to keep it." : "Stored sealed; it is never shown again."}
              >
                <input
                  id="sso-secret"
                  data-testid="sso-secret"
                  type="password"
                  autoComplete="new-password"
                  value={secret}
                  onChange={(e) => setSecret(e.target.value)}
                  placeholder={conn?.client_secret_set ? "••••••••" : ""}
                />
              </Field>
            </>
          ) : (
            <p className="muted small" data-testid="sso-saml-hint">
              People sign in through your SAML identity provider (Okta, Entra ID, ADFS…). Save to get snip&apos;s details for it.
            </p>
          )}
          <Field id="sso-domains" label="Email domains" error={errors.domains} hint="Separated by commas, e.g. acme.com, acme.co.uk.">
            <input
              id="sso-domains"
              data-testid="sso-domains-input"
              type="text"
              spellCheck={false}
              value={domains}
              onChange={(e) => setDomains(e.target.value)}
            />
          </Field>
          <label className="checkbox">
            <input type="checkbox" data-testid="sso-require" checked={requireSso} onChange={(e) => setRequireSso(e.target.checked)} /> Require single sign-on:
            password sign-in is refused for these addresses (yours excepted)
          </label>
          {protocol === "oidc" ? (
            <div className="redirect-uri muted small">
              Redirect URI to register at the provider:{" "}
              <code data-testid="sso-redirect-uri">{conn?.redirect_uri ?? `${location.origin}/api/auth/sso/callback`}</code>{" "}
              <CopyButton text={conn?.redirect_uri ?? `${location.origin}/api/auth/sso/callback`} testId="sso-copy-redirect" />
            </div>
          ) : null}
          {general ? <Alert testId="sso-error">{general}</Alert> : null}
          <div className="row gap">
            <button type="submit" className="btn btn-primary" disabled={busy} data-testid="sso-save">
              {busy
                ? "Saving…"
                : conn
                  ? conn.protocol !== protocol
                    ? `Switch to ${protocol === "saml" ? "SAML" : "OpenID Connect"}`
                    : "Save changes"
                  : "Set up single sign-on"}
            </button>
            {conn ? (
              <button type="button" className="btn btn-danger-ghost" onClick={() => del.ask(conn)} data-testid="sso-remove">
                Remove
              </button>
            ) : null}
          </div>
        </form>
      )}
      {notice ? (
        <Alert kind="success" testId="sso-notice">
          {notice}
        </Alert>
      ) : null}
      {conn?.protocol === "saml" && protocol === "saml" && conn.saml ? <SsoSaml saml={conn.saml} onSaved={show} /> : null}
      {conn && conn.domains.length ? <SsoDomains domains={conn.domains} onChange={replaceDomain} /> : null}
      {conn ? <SsoScim /> : null}
      <ConfirmDialog {...del.dialog} title="Remove single sign-on?" confirmLabel="Remove" danger>
        <p>Nobody can sign in through your identity provider any more; members stay on your team and sign in with a password.</p>
      </ConfirmDialog>
    </div>
  );
}
