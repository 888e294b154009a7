// The list page's and the link form's calls: the filtered, sorted page of links with its total, sparklines, a
// link's edit and deletion, bulk creation and the bulk actions, and where a visit would go.
import { call, snip } from "../shared/api";
import type { Query } from "@snip/client";
import type { BulkEditFields, BulkRowFields, UpdateLinkFields } from "@contract/links";
import type { ResolveParams } from "@contract/targeting";
import { MAX_BULK_EDIT } from "@contract/tables";

export type LinkPageQuery = Query<"/api/links", "get">;

/** The bulk routes and the sparkline read take at most this many ids at once. */
function chunks<T>(items: T[], size = MAX_BULK_EDIT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const byId = (id: string) => ({ params: { path: { id } } });

export const linksApi = {
  list: (query: LinkPageQuery) => call(snip.GET("/api/links", { params: { query } })),

  /** Daily clicks of the last 7 days by link id, a hundred ids per request. */
  async sparklines(ids: string[]): Promise<Record<string, number[]>> {
    const parts = await Promise.all(chunks(ids).map((part) => call(snip.GET("/api/links/sparklines", { params: { query: { ids: part.join(",") } } }))));
    return Object.assign({}, ...parts.map((r) => r.sparklines)) as Record<string, number[]>;
  },

  /** Archives, restores, tags or untags the links, a hundred at a time; how many were changed. */
  async bulkEdit(ids: string[], change: Omit<BulkEditFields, "ids">): Promise<number> {
    let done = 0;
    for (const part of chunks(ids)) done += (await call(snip.PATCH("/api/links/bulk", { body: { ids: part, ...change } }))).links.length;
    return done;
  },

  async bulkDelete(ids: string[]): Promise<number> {
    let done = 0;
    for (const part of chunks(ids)) done += (await call(snip.POST("/api/links/bulk/delete", { body: { ids: part } }))).deleted;
    return done;
  },

  updateLink: (id: string, body: UpdateLinkFields) => call(snip.PATCH("/api/links/{id}", { ...byId(id), body })).then((r) => r.link),
  deleteLink: (id: string) => call(snip.DELETE("/api/links/{id}", byId(id))),
  bulkCreate: (links: BulkRowFields[]) => call(snip.POST("/api/links/bulk", { body: { links } })).then((r) => r.results),
  /** Where a visit with these traits would go, by the link's saved rules and split. */
  resolveLink: (id: string, visit: ResolveParams) => call(snip.GET("/api/links/{id}/resolve", { params: { path: { id }, query: visit } })),
};
