// Kutt, API v2 (X-API-KEY): GET /api/v2/links?limit=&skip= answers {total, limit, skip, data: [{id, address,
// target, description, expire_in, password (true when set), visit_count, domain, link, created_at, banned}]}.
// Kutt caps limit at 50. Cursor: {"skip": links read so far}.
import type { ImportSource, SourceFactory, SourceFetch, SourceLink, SourcePage, SourceSettings } from "../source.js";
import { LinkReader, baseUrl, endpoint, isCount, isObject, readCursor, shapeError, splitShortUrl, token } from "./common.js";

export const KUTT_LINKS_PER_PAGE = 50;

function isKuttCursor(v: unknown): v is { skip: number } {
  return isObject(v) && isCount(v.skip);
}

export const kuttSource: SourceFactory = (settings: SourceSettings, http: SourceFetch): ImportSource => {
  const base = baseUrl("kutt", settings);
  const headers = { "x-api-key": token("kutt", settings) };
  return {
    name: "kutt",
    async page(cursor: string | null): Promise<SourcePage> {
      const skip = readCursor("kutt", cursor, isKuttCursor)?.skip ?? 0;
      const body = await http.json(endpoint(base, "/api/v2/links", { limit: KUTT_LINKS_PER_PAGE, skip }), { headers });
      if (!isObject(body)) throw shapeError("kutt", "the answer is not an object");
      if (!Array.isArray(body.data)) throw shapeError("kutt", `"data" is not a list`);
      if (!isCount(body.total)) throw shapeError("kutt", `"total" is not a count`);
      const links = body.data.map((raw, i) => readKuttLink(raw, `#skip-${skip + i}`));
      const read = skip + body.data.length;
      const next = body.data.length > 0 && read < body.total ? JSON.stringify({ skip: read }) : null;
      return { links, next, total: body.total };
    },
  };
};

export function readKuttLink(raw: unknown, standIn: string): SourceLink {
  if (!isObject(raw)) return { source_id: standIn, url: "", notes: ["the source's entry is not an object"] };
  const r = new LinkReader(raw);
  const source_id = r.id("id", standIn);
  const link: SourceLink = {
    source_id,
    url: r.url("target"),
    alias: r.str("address"),
    domain: r.str("domain") ?? splitShortUrl(r.str("link")).domain,
    title: r.str("description"),
    expires_at: r.time("expire_in"),
    created_at: r.time("created_at"),
    clicks_total: r.count("visit_count"),
  };
  if (r.bool("password") === true) link.password_protected = true;
  if (r.bool("banned") === true) r.notes.push("the link is banned at the source");
  if (r.notes.length > 0) link.notes = r.notes;
  return link;
}
