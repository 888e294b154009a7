// The list page's calls: the filtered, sorted page of links with its total, sparklines, tags, and the bulk actions.
import { request } from "../../api";
import type { BulkDeleteReply, BulkEditFields, BulkEditReply, LinkPageReply, SparklineReply } from "@contract/links";
import type { TagListReply } from "@contract/tags";
import { type ListFilters, toApiQuery } from "./filters";

/** The bulk routes and the sparkline read take at most this many ids at once. */
export const MAX_IDS = 100;

function chunks<T>(items: T[], size = MAX_IDS): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export const linksApi = {
  list(filters: ListFilters, cursor: string | null, limit: number, owner?: string) {
    const p = toApiQuery(filters);
    p.set("limit", String(limit));
    if (owner) p.set("owner", owner);
    if (cursor) p.set("cursor", cursor);
    return request<LinkPageReply>("GET", `/api/links?${p}`);
  },

  /** Daily clicks of the last 7 days by link id, a hundred ids per request. */
  async sparklines(ids: string[]): Promise<Record<string, number[]>> {
    const parts = await Promise.all(
      chunks(ids).map((part) => request<SparklineReply>("GET", `/api/links/sparklines?ids=${part.map(encodeURIComponent).join(",")}`)),
    );
    return Object.assign({}, ...parts.map((r) => r.sparklines)) as Record<string, number[]>;
  },

  tags: (owner?: string) => request<TagListReply>("GET", `/api/tags${owner ? `?owner=${encodeURIComponent(owner)}` : ""}`).then((r) => r.tags),

  /** Archives, restores, tags or untags the links, a hundred at a time; how many were changed. */
  async bulkEdit(ids: string[], change: Omit<BulkEditFields, "ids">): Promise<number> {
    let done = 0;
    for (const part of chunks(ids)) done += (await request<BulkEditReply>("PATCH", "/api/links/bulk", { body: { ids: part, ...change } })).links.length;
    return done;
  },

  async bulkDelete(ids: string[]): Promise<number> {
    let done = 0;
    for (const part of chunks(ids)) done += (await request<BulkDeleteReply>("POST", "/api/links/bulk/delete", { body: { ids: part } })).deleted;
    return done;
  },
};
