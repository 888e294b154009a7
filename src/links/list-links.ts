// One owner's links (the caller's, or a team owner's), newest first: search on alias and url, opaque
// cursor (created_at + id) pagination.
import { sql } from "kysely";
import { invalid } from "../shared/errors.js";
import { containsPattern } from "../shared/like.js";
import { decodeKeyset, encodeKeyset } from "../shared/keyset.js";
import type { LinkDeps } from "./deps.js";
import { type LinkView, selectLinkViews } from "./link-access.js";

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;

export interface ListQuery {
  q?: string;
  cursor?: string;
  limit?: number;
  /** Another account's links, listed for an active member of its team. */
  owner?: string;
}

export interface LinkPage {
  links: LinkView[];
  next_cursor: string | null;
}

export async function listLinks(deps: LinkDeps, ownerId: string, query: ListQuery): Promise<LinkPage> {
  const limit = query.limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw invalid("limit", `must be from 1 to ${MAX_PAGE}`);
  let qb = selectLinkViews(deps.db).where("links.owner_id", "=", ownerId);
  const q = query.q?.trim();
  if (q) {
    const pattern = containsPattern(q);
    qb = qb.where(sql<boolean>`(lower(links.alias) like ${pattern} escape '\\' or lower(links.url) like ${pattern} escape '\\')`);
  }
  if (query.cursor) {
    const c = decodeKeyset(query.cursor);
    qb = qb.where((eb) =>
      eb.or([eb("links.created_at", "<", c.createdAt), eb.and([eb("links.created_at", "=", c.createdAt), eb("links.id", "<", c.id)])]),
    );
  }
  const rows = await qb.orderBy("links.created_at", "desc").orderBy("links.id", "desc").limit(limit + 1).execute();
  const links = rows.slice(0, limit);
  const last = links[links.length - 1];
  return { links, next_cursor: rows.length > limit && last ? encodeKeyset(last) : null };
}
