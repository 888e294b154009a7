// One owner's links (the caller's, or a team owner's), newest first: search on alias and url, opaque
// cursor (created_at + id) pagination.
import { sql } from "kysely";
import { invalid } from "../shared/errors.js";
import { containsPattern } from "../shared/like.js";
import type { LinkRow } from "../storage/schema.js";
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

export function encodeCursor(link: Pick<LinkRow, "created_at" | "id">): string {
  return Buffer.from(`${Number(link.created_at)}:${link.id}`).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const m = /^(\d{1,16}):([A-Za-z0-9]{1,64})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!m) throw invalid("cursor", "is not a cursor from a previous page");
  return { createdAt: Number(m[1]), id: m[2] as string };
}

/** LIKE pattern matching `text` literally anywhere (\ escapes %, _ and itself). */
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
    const c = decodeCursor(query.cursor);
    qb = qb.where((eb) =>
      eb.or([eb("links.created_at", "<", c.createdAt), eb.and([eb("links.created_at", "=", c.createdAt), eb("links.id", "<", c.id)])]),
    );
  }
  const rows = await qb.orderBy("links.created_at", "desc").orderBy("links.id", "desc").limit(limit + 1).execute();
  const links = rows.slice(0, limit);
  const last = links[links.length - 1];
  return { links, next_cursor: rows.length > limit && last ? encodeCursor(last) : null };
}
