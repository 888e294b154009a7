// Link calls more than one feature makes: creating a link (the dashboard's form and the public home page),
// reading one (its form, its statistics, the analytics filter), the owner's tags and the custom domains.
import { call, ownerQuery, snip } from "./api";
import type { CreateLinkFields } from "@contract/links";
import type { Domain } from "@contract/domains";

/**
 * The contract's Domain: openapi-fetch reads every array of an answer as a plain array (its Readable<> type),
 * which loses `records`' pair (CNAME, TXT) that the generated types and the server keep.
 */
export const asDomain = (d: Omit<Domain, "records"> & { records: Domain["records"][number][] }) => d as Domain;

export const linkApi = {
  /** `owner`: created in that team owner's account (links.create: docs/roles.md). */
  create: (body: CreateLinkFields, quiet401 = false, owner?: string | null) =>
    call(snip.POST("/api/links", { body, ...ownerQuery(owner) }), quiet401).then((r) => r.link),
  get: (id: string) => call(snip.GET("/api/links/{id}", { params: { path: { id } } })).then((r) => r.link),
  /** The first links whose alias, destination, title, note or tags contain `q` (a picker's choices). */
  search: (q: string, owner?: string) => call(snip.GET("/api/links", { params: { query: { limit: 20, ...(q ? { q } : {}), ...(owner ? { owner } : {}) } } })),
  /** The custom domains links can be on (a team owner's with `owner`). */
  domains: (owner?: string | null) => call(snip.GET("/api/domains", ownerQuery(owner))).then((r) => r.domains.map(asDomain)),
  /** The tags of the caller, or of a team owner with `owner`. */
  tags: (owner?: string | null) => call(snip.GET("/api/tags", ownerQuery(owner))).then((r) => r.tags),
};
