// The single sign-on page's calls (Enterprise owners' connection: OpenID Connect or SAML).
import { call, snip } from "../shared/api";
import type { SamlPutBody, SsoPutBody } from "@contract/sso";

export const ssoApi = {
  get: () => call(snip.GET("/api/sso")).then((r) => r.connection),
  put: (body: SsoPutBody) => call(snip.PUT("/api/sso", { body })).then((r) => r.connection),
  putSaml: (body: SamlPutBody) => call(snip.PUT("/api/sso/saml", { body })).then((r) => r.connection),
  remove: () => call(snip.DELETE("/api/sso")),
  verify: (domain: string) => call(snip.POST("/api/sso/domains/{domain}/verify", { params: { path: { domain } } })).then((r) => r.domain),
};

export const scimApi = {
  state: () => call(snip.GET("/api/sso/scim-token")).then((r) => r.scim),
  issue: () => call(snip.POST("/api/sso/scim-token")),
  revoke: () => call(snip.DELETE("/api/sso/scim-token")),
};
