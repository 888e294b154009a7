// Tables of account security: two-factor sign-in (migration 025, docs/security.md) and single sign-on
// (migration 027, docs/sso.md). Secrets are sealed (shared/secret-box.ts), codes and tokens hashed.
import type { Generated, Selectable } from "kysely";

/** An account's TOTP factor: secrets sealed (shared/secret-box.ts), never in clear. */
export interface TotpFactorsTable {
  user_id: string;
  secret_enc: string | null;
  pending_enc: string | null;
  pending_at: number | null;
  enabled_at: number | null;
  last_step: number | null;
  updated_at: number;
}

export interface RecoveryCodesTable {
  code_hash: string;
  user_id: string;
  created_at: number;
  used_at: number | null;
}

/** A sign-in whose password was right, waiting for its second step; the cookie's SHA-256 only. */
export interface PendingSignInsTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
}

/** One entry of an account's security activity (GET /api/auth/activity): no address is kept. */
export interface SecurityEventsTable {
  id: string;
  user_id: string;
  at: number;
  kind: string;
  way: string | null;
  outcome: "success" | "refused";
  browser: string | null;
  os: string | null;
  country: string | null;
  detail: string | null;
}

export interface KnownBrowsersTable {
  user_id: string;
  family: string;
  first_seen_at: number;
}

/** An Enterprise owner's OpenID Connect connection (docs/sso.md); the client secret sealed, bound to the row id. */
export interface SsoConnectionsTable {
  id: string;
  owner_id: string;
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  require_sso: number;
  /** Which protocol signs in (migration 051): "oidc", or "saml" (then issuer, client id and secret may be empty). */
  protocol: Generated<"oidc" | "saml">;
  created_at: number;
  updated_at: number;
}

/** An email domain claimed by a connection, proved by a TXT record: several connections may claim it, one holds it verified. */
export interface SsoDomainsTable {
  domain: string;
  connection_id: string;
  txt_token: string;
  status: "pending" | "verified";
  next_action: string | null;
  last_checked_at: number | null;
  verified_at: number | null;
  created_at: number;
  /** A verified domain's next re-check (null: due now). */
  next_check_at: number | null;
  /** When a re-check first found the verified domain's TXT record gone (null: in place); 72 hours later it is pending. */
  failing_since: number | null;
}

/** A sign-in under way: SHA-256 of its state; nonce and PKCE verifier sealed; connection null for OIDC_ISSUER. */
export interface SsoLoginsTable {
  state_hash: string;
  connection_id: string | null;
  checks_sealed: string;
  expires_at: number;
}

/** A connection's SAML settings (docs/sso.md, SAML): the identity provider's, and snip's key pair (private key sealed, bound to the connection id). */
export interface SsoSamlTable {
  connection_id: string;
  /** The identity provider's settings: null until its metadata is given. */
  idp_entity_id: string | null;
  idp_sso_url: string | null;
  idp_sso_binding: "redirect" | "post" | null;
  /** JSON array of PEM certificates. */
  idp_certs: string | null;
  idp_metadata_url: string | null;
  sp_cert: string;
  sp_key_sealed: string;
  created_at: number;
  updated_at: number;
}

/** A SAML sign-in under way: SHA-256 of the browser's cookie value, and the AuthnRequest id its answer must name. */
export interface SsoSamlRequestsTable {
  state_hash: string;
  connection_id: string;
  request_id: string;
  expires_at: number;
}

/** An assertion id already used on a connection, kept until the assertion expires. */
export interface SsoSamlAssertionsTable {
  connection_id: string;
  assertion_id: string;
  expires_at: number;
}

/** Operators' accounts created on the command line that keep password sign-in under OIDC_ONLY. */
export interface SsoBreakGlassTable {
  user_id: string;
  created_at: number;
}

/** A provider identity (issuer + subject) bound to the account it signed in first. */
export interface SsoIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
}

export interface SecurityTables {
  totp_factors: TotpFactorsTable;
  recovery_codes: RecoveryCodesTable;
  pending_sign_ins: PendingSignInsTable;
  known_browsers: KnownBrowsersTable;
  security_events: SecurityEventsTable;
  sso_connections: SsoConnectionsTable;
  sso_domains: SsoDomainsTable;
  sso_logins: SsoLoginsTable;
  sso_break_glass: SsoBreakGlassTable;
  sso_identities: SsoIdentitiesTable;
  sso_saml: SsoSamlTable;
  sso_saml_requests: SsoSamlRequestsTable;
  sso_saml_assertions: SsoSamlAssertionsTable;
}

export type SsoConnectionRow = Selectable<SsoConnectionsTable>;
export type SsoDomainRow = Selectable<SsoDomainsTable>;
export type SsoSamlRow = Selectable<SsoSamlTable>;
