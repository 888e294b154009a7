// Single sign-on through OpenID Connect (docs/sso.md): an Enterprise owner's connection with its email
// domains, the sign-in options the sign-in page reads, and the operators' view of every connection.
import { Type, type Static } from "typebox";
import { Body, Nullable } from "./common.js";

export const SsoDomainSchema = Type.Object({
  domain: Type.String(),
  status: Type.Union([Type.Literal("pending"), Type.Literal("verified")]),
  record: Type.Object({ type: Type.Literal("TXT"), name: Type.String(), value: Type.String() }, { description: "the TXT record that proves the domain" }),
  next_action: Nullable(Type.String()),
  last_checked_at: Nullable(Type.String()),
  verified_at: Nullable(Type.String()),
});
export type SsoDomain = Static<typeof SsoDomainSchema>;

export const SsoProtocol = Type.Union([Type.Literal("oidc"), Type.Literal("saml")], {
  description: "how the connection signs people in: OpenID Connect (issuer, client id, secret) or SAML 2.0 (the identity provider's metadata)",
});

const SamlCertSchema = Type.Object({
  subject: Type.String(),
  not_after: Type.String(),
  sha256: Type.String({ description: "the certificate's SHA-256 fingerprint" }),
});

export const SamlSettingsSchema = Type.Object(
  {
    entity_id: Type.String({ description: "snip's entity id (Audience / SP Entity ID / Identifier at the identity provider)" }),
    acs_url: Type.String({ description: "the Assertion Consumer Service URL (HTTP-POST; Single sign-on URL / Reply URL)" }),
    metadata_url: Type.String({ description: "snip's service-provider metadata (XML) for this connection" }),
    start_url: Type.String({ description: "starts a sign-in through this connection (an app tile's initiate-login URL)" }),
    certificate: Type.String({ description: "snip's signing certificate (PEM): AuthnRequests are signed with its key" }),
    idp: Nullable(
      Type.Object({
        entity_id: Type.String(),
        sso_url: Type.String(),
        binding: Type.Union([Type.Literal("redirect"), Type.Literal("post")]),
        metadata_url: Nullable(Type.String({ description: "where the metadata was fetched from; null: pasted" })),
        certificates: Type.Array(SamlCertSchema),
        updated_at: Type.String(),
      }),
    ),
  },
  { description: "the connection's SAML settings: snip's side (given to the identity provider) and the provider's" },
);
export type SamlSettings = Static<typeof SamlSettingsSchema>;

export const SsoConnectionSchema = Type.Object({
  id: Type.String(),
  protocol: SsoProtocol,
  issuer: Type.String(),
  client_id: Type.String(),
  client_secret_set: Type.Boolean({ description: "a client secret is stored (sealed; it is never returned)" }),
  require_sso: Type.Boolean({ description: "password sign-in is refused for addresses on the verified domains" }),
  domains: Type.Array(SsoDomainSchema),
  redirect_uri: Type.String({ description: "register this at the identity provider" }),
  saml: Nullable(SamlSettingsSchema),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type SsoConnection = Static<typeof SsoConnectionSchema>;

export const SsoReply = Type.Object({ status: Type.Literal("success"), connection: Nullable(SsoConnectionSchema) });
export type SsoReply = Static<typeof SsoReply>;
export const SsoSetReply = Type.Object({ status: Type.Literal("success"), connection: SsoConnectionSchema });
export type SsoSetReply = Static<typeof SsoSetReply>;

export const SsoPutBody = Body({
  protocol: Type.Optional(SsoProtocol),
  issuer: Type.Optional(Type.String({ maxLength: 500, description: "required with protocol oidc (the default)" })),
  client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "required with protocol oidc (the default)" })),
  client_secret: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1000, description: "required when none is stored yet; omitted: the stored one is kept" }),
  ),
  domains: Type.Array(Type.String({ maxLength: 300 }), { minItems: 1, maxItems: 20 }),
  require_sso: Type.Optional(Type.Boolean()),
});
export type SsoPutBody = Static<typeof SsoPutBody>;

export const SamlPutBody = Body({
  metadata_xml: Type.Optional(Type.String({ minLength: 1, maxLength: 262_144, description: "the identity provider's metadata (XML), pasted" })),
  metadata_url: Type.Optional(
    Type.String({ minLength: 1, maxLength: 2000, description: "or the https:// address of its metadata, fetched once now through the address guard" }),
  ),
});
export type SamlPutBody = Static<typeof SamlPutBody>;

export const SamlConnectionParams = Type.Object({ connection: Type.String({ maxLength: 64 }) });
/** What the HTTP-POST binding posts (SAML bindings, 3.5.4): the Response and the RelayState, nothing else. */
export const SamlAcsBody = Body({
  SAMLResponse: Type.String({ minLength: 1, maxLength: 262_144, description: "the identity provider's Response, base64" }),
  RelayState: Type.Optional(Type.String({ maxLength: 1000 })),
});
export const SamlStartQuery = Type.Object({
  return_to: Type.Optional(Type.String({ maxLength: 500, description: "a dashboard path (/app/...) to land on after signing in" })),
});

export const SsoDomainParams = Type.Object({ domain: Type.String({ maxLength: 300 }) });
export const SsoDomainReply = Type.Object({ status: Type.Literal("success"), domain: SsoDomainSchema });

export const SsoStartQuery = Type.Object({
  email: Type.Optional(Type.String({ maxLength: 254, description: "an address on an Enterprise connection's verified domain" })),
  instance: Type.Optional(Type.Literal("1", { description: "sign in through the instance-wide provider (OIDC_ISSUER)" })),
  return_to: Type.Optional(
    Type.String({
      maxLength: 500,
      description: "a dashboard path (/app/...) to land on after signing in, e.g. where a change asked to confirm it is you; anything else lands on /app",
    }),
  ),
});
export const SsoCallbackQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ maxLength: 200 })),
    code: Type.Optional(Type.String({ maxLength: 4000 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 1000 })),
    iss: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: true },
);

export const SsoOptionsReply = Type.Object({
  status: Type.Literal("success"),
  instance: Nullable(Type.Object({ name: Type.String({ description: 'OIDC_NAME: the button reads "Sign in with …"' }) })),
  password_sign_in: Type.Boolean({ description: "false with OIDC_ONLY (operators' break-glass accounts still may)" }),
  password_sign_up: Type.Boolean(),
  email_sso: Type.Boolean({
    description:
      'true when an organisation\'s connection has a verified email domain: the sign-in page offers "Continue with single sign-on" (GET /api/auth/sso/start?email=)',
  }),
});
export type SsoOptionsReply = Static<typeof SsoOptionsReply>;

export const AdminSsoConnectionSchema = Type.Object({
  id: Type.String(),
  owner_id: Type.String(),
  owner_email: Type.String(),
  issuer: Type.String(),
  client_id: Type.String(),
  require_sso: Type.Boolean(),
  domains: Type.Array(Type.Object({ domain: Type.String(), status: Type.Union([Type.Literal("pending"), Type.Literal("verified")]) })),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type AdminSsoConnection = Static<typeof AdminSsoConnectionSchema>;
export const AdminSsoListReply = Type.Object({ status: Type.Literal("success"), connections: Type.Array(AdminSsoConnectionSchema) });
