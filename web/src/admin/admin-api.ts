// The operator console's calls (docs/operator.md): accounts, links, the blocklist, abuse reports, the audit log.
import { call, snip } from "../shared/api";
import type { Query, RequestBody } from "@snip/client";
import type { DisableStatus, UpdateAccountFields } from "@contract/admin";

/**
 * A list's query from the page's filters (strings from its address; the server checks their values): the
 * names are the route's own, filters left empty are dropped.
 */
function listQuery<Q>(filters: Filters<Q>): Q {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== "" && v !== null && v !== undefined)) as Q;
}
type Filters<Q> = { [K in keyof Q]?: string | number | null };
type AccountsQ = Query<"/api/admin/accounts", "get">;
type LinksQ = Query<"/api/admin/links", "get">;
type BlocklistQ = Query<"/api/admin/blocklist", "get">;
type ReportsQ = Query<"/api/admin/reports", "get">;
type AuditQ = Query<"/api/admin/audit", "get">;

const byId = (id: string) => ({ params: { path: { id } } });

export const adminApi = {
  overview: () => call(snip.GET("/api/admin/overview")),
  orphanVisits: () => call(snip.GET("/api/admin/orphan-visits")).then((r) => r.orphans),

  ssoConnections: () => call(snip.GET("/api/admin/sso")).then((r) => r.connections),
  removeSsoConnection: (id: string) => call(snip.DELETE("/api/admin/sso/{id}", byId(id))),

  accounts: (f: Filters<AccountsQ>) => call(snip.GET("/api/admin/accounts", { params: { query: listQuery<AccountsQ>(f) } })),
  account: (id: string) => call(snip.GET("/api/admin/accounts/{id}", byId(id))).then((r) => r.account),
  updateAccount: (id: string, body: UpdateAccountFields) => call(snip.PATCH("/api/admin/accounts/{id}", { ...byId(id), body })).then((r) => r.account),
  deleteAccount: (id: string, confirm_email: string) => call(snip.DELETE("/api/admin/accounts/{id}", { ...byId(id), body: { confirm_email } })),

  links: (f: Filters<LinksQ>) => call(snip.GET("/api/admin/links", { params: { query: listQuery<LinksQ>(f) } })),
  disableLink: (id: string, reason: string, status: DisableStatus) =>
    call(snip.POST("/api/admin/links/{id}/disable", { ...byId(id), body: { reason, status } })).then((r) => r.link),
  enableLink: (id: string) => call(snip.POST("/api/admin/links/{id}/enable", byId(id))).then((r) => r.link),
  disableBulk: (body: RequestBody<"/api/admin/links/disable-bulk", "post">) =>
    call(snip.POST("/api/admin/links/disable-bulk", { body })).then((r) => r.disabled),

  blocklist: (f: Filters<BlocklistQ>) => call(snip.GET("/api/admin/blocklist", { params: { query: listQuery<BlocklistQ>(f) } })),
  blockHost: (host: string, note: string) => call(snip.POST("/api/admin/blocklist", { body: note ? { host, note } : { host } })).then((r) => r.host),
  unblockHost: (host: string) => call(snip.DELETE("/api/admin/blocklist/{host}", { params: { path: { host } } })),
  threatFeeds: () => call(snip.GET("/api/admin/threat-feeds")).then((r) => r.feeds),
  reloadThreatFeeds: () => call(snip.POST("/api/admin/threat-feeds/reload")).then((r) => r.feeds),

  reports: (f: Filters<ReportsQ>) => call(snip.GET("/api/admin/reports", { params: { query: listQuery<ReportsQ>(f) } })),
  dismissReport: (id: string) => call(snip.POST("/api/admin/reports/{id}/dismiss", byId(id))).then((r) => r.report),
  reportDisableLink: (id: string, body: RequestBody<"/api/admin/reports/{id}/disable-link", "post">) =>
    call(snip.POST("/api/admin/reports/{id}/disable-link", { ...byId(id), body })).then((r) => r.report),
  reportBanOwner: (id: string, body: RequestBody<"/api/admin/reports/{id}/ban-owner", "post">) =>
    call(snip.POST("/api/admin/reports/{id}/ban-owner", { ...byId(id), body })).then((r) => r.report),

  audit: (f: Filters<AuditQ>) => call(snip.GET("/api/admin/audit", { params: { query: listQuery<AuditQ>(f) } })),
};
