// The custom domains page's calls.
import { call, snip } from "../shared/api";
import { asDomain } from "../shared/link-api";
import type { AppsBody } from "@contract/deeplinks";

const byId = (id: string) => ({ params: { path: { id } } });

export const domainsApi = {
  listDomains: () => call(snip.GET("/api/domains")).then((r) => r.domains.map(asDomain)),
  addDomain: (hostname: string) => call(snip.POST("/api/domains", { body: { hostname } })).then((r) => asDomain(r.domain)),
  verifyDomain: (id: string) => call(snip.POST("/api/domains/{id}/verify", byId(id))).then((r) => asDomain(r.domain)),
  orphanVisits: (id: string) => call(snip.GET("/api/domains/{id}/orphan-visits", byId(id))).then((r) => r.orphans),
  deleteDomain: (id: string) => call(snip.DELETE("/api/domains/{id}", byId(id))),
  apps: (id: string) => call(snip.GET("/api/domains/{id}/apps", byId(id))),
  setApps: (id: string, body: AppsBody) => call(snip.PUT("/api/domains/{id}/apps", { ...byId(id), body })),
  deepLinkSettings: () => call(snip.GET("/api/deeplinks/settings")).then((r) => r.settings),
  setDeepLinkSettings: (body: { open_outside: boolean }) => call(snip.PATCH("/api/deeplinks/settings", { body })).then((r) => r.settings),
};
