// The single sign-on page's calls (Enterprise owners' OpenID Connect connection).
import { call, snip } from "../shared/api";
import type { SsoPutBody } from "@contract/sso";

export const ssoApi = {
  get: () => call(snip.GET("/api/sso")).then((r) => r.connection),
  put: (body: SsoPutBody) => call(snip.PUT("/api/sso", { body })).then((r) => r.connection),
  remove: () => call(snip.DELETE("/api/sso")),
  verify: (domain: string) => call(snip.POST("/api/sso/domains/{domain}/verify", { params: { path: { domain } } })).then((r) => r.domain),
};
