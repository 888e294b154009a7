// The custom domains page's calls.
import { call, ownerQuery, snip } from "../shared/api";
import { asDomain } from "../shared/link-api";
import type { AppsBody } from "@contract/deeplinks";

const byId = (id: string) => ({ params: { path: { id } } });

export const domainsApi = {
  /** `owner`: a team owner's domains (an admin's, docs/roles.md); the routes by id need nothing more. */
  listDomains: (owner: string | null) => call(snip.GET("/api/domains", ownerQuery(owner))).then((r) => r.domains.map(asDomain)),
  addDomain: (hostname: string, owner: string | null) =>
    call(snip.POST("/api/domains", { ...ownerQuery(owner), body: { hostname } })).then((r) => asDomain(r.domain)),
  verifyDomain: (id: string) => call(snip.POST("/api/domains/{id}/verify", byId(id))).then((r) => asDomain(r.domain)),
  orphanVisits: (id: string) => call(snip.GET("/api/domains/{id}/orphan-visits", byId(id))).then((r) => r.orphans),
  deleteDomain: (id: string) => call(snip.DELETE("/api/domains/{id}", byId(id))),
  apps: (id: string) => call(snip.GET("/api/domains/{id}/apps", byId(id))),
  setApps: (id: string, body: AppsBody) => call(snip.PUT("/api/domains/{id}/apps", { ...byId(id), body })),
  deepLinkSettings: () => call(snip.GET("/api/deeplinks/settings")).then((r) => r.settings),
  setDeepLinkSettings: (body: { open_outside: boolean }) => call(snip.PATCH("/api/deeplinks/settings", { body })).then((r) => r.settings),
};
