// Bitly, API v4 (Authorization: Bearer): GET /v4/groups answers {groups: [{guid, ...}]}; GET
// /v4/groups/{guid}/bitlinks?size=100&archived=both answers {links: [{id ("bit.ly/abc"), link, long_url, title,
// tags, custom_bitlinks, created_at, archived}], pagination: {next (the next page's URL, "" on the last),
// search_after, total, size}}; GET /v4/bitlinks/{id}/clicks/summary?unit=day&units=-1 gives total_clicks.
// Cursor: {"groups": the group guids, "g": the group being read, "next": the next page's URL or null}.
import type { ImportSource, SourceFactory, SourceFetch, SourceLink, SourcePage, SourceSettings } from "../source.js";
import { SourceError } from "../source.js";
import { LinkReader, baseUrl, endpoint, isCount, isObject, mapLimit, readCursor, shapeError, splitShortUrl, token } from "./common.js";

export const BITLY_DEFAULT_BASE = "https://api-ssl.bitly.com";
export const BITLY_LINKS_PER_PAGE = 100;
/** Click summaries asked at once (one request per bitlink). */
const CLICK_REQUESTS = 4;

interface BitlyCursor {
  groups: string[];
  /** The groups' names, when every group is read (absent in a cursor saved before folders): each group's links go into a folder of its name. */
  names?: string[];
  g: number;
  next: string | null;
}

function isBitlyCursor(v: unknown): v is BitlyCursor {
  return (
    isObject(v) &&
    Array.isArray(v.groups) &&
    v.groups.every((g) => typeof g === "string") &&
    (v.names === undefined || (Array.isArray(v.names) && v.names.every((g) => typeof g === "string"))) &&
    isCount(v.g) &&
    (v.next === null || typeof v.next === "string")
  );
}

export const bitlySource: SourceFactory = (settings: SourceSettings, http: SourceFetch): ImportSource => {
  const base = baseUrl("bitly", settings, BITLY_DEFAULT_BASE);
  const origin = new URL(base).origin;
  const headers = { authorization: `Bearer ${token("bitly", settings)}` };
  const firstPage = (guid: string) => endpoint(base, `/v4/groups/${encodeURIComponent(guid)}/bitlinks`, { size: BITLY_LINKS_PER_PAGE, archived: "both" });

  /** The groups to read, and their names when there are several (one group chosen, or the only one: no folders). */
  async function groups(): Promise<Pick<BitlyCursor, "groups" | "names">> {
    if (settings.group?.trim()) return { groups: [settings.group.trim()] };
    const body = await http.json(endpoint(base, "/v4/groups"), { headers });
    if (!isObject(body) || !Array.isArray(body.groups)) throw shapeError("bitly", `"groups" is not a list`);
    const read = body.groups.map((g, i) => {
      if (!isObject(g) || typeof g.guid !== "string" || g.guid === "") throw shapeError("bitly", `group ${i + 1} has no guid`);
      return { guid: g.guid, name: typeof g.name === "string" ? g.name : "" };
    });
    return { groups: read.map((g) => g.guid), ...(read.length > 1 ? { names: read.map((g) => g.name) } : {}) };
  }

  /** The URL of the group's next page: Bitly's `next` when it stays on the API's origin, else built from search_after. */
  function nextPage(guid: string, pagination: Record<string, unknown>): string | null {
    const next = pagination.next;
    if (typeof next === "string" && next !== "") {
      try {
        if (new URL(next).origin === origin) return next;
      } catch {
        // Not a URL: fall back to search_after.
      }
    }
    const after = pagination.search_after;
    if (typeof after === "string" && after !== "") return `${firstPage(guid)}&search_after=${encodeURIComponent(after)}`;
    return null;
  }

  async function clicks(link: SourceLink): Promise<void> {
    if (link.source_id.startsWith("#")) return;
    const url = endpoint(base, `/v4/bitlinks/${encodeURI(link.source_id)}/clicks/summary`, { unit: "day", units: -1 });
    try {
      const body = await http.json(url, { headers });
      if (isObject(body) && isCount(body.total_clicks)) link.clicks_total = body.total_clicks;
      else (link.notes ??= []).push("Bitly's click summary had no total_clicks; the click total was not carried");
    } catch (e) {
      // A plan without click data, or a link Bitly cannot count (402/403/404),: noted on its line; anything else stops the read.
      if (!(e instanceof SourceError) || e.transient || e.message.includes("(401 ")) throw e;
      (link.notes ??= []).push(`Bitly gave no click total for this link: ${e.message}`);
    }
  }

  return {
    name: "bitly",
    async page(cursor: string | null): Promise<SourcePage> {
      const at = readCursor("bitly", cursor, isBitlyCursor) ?? { ...(await groups()), g: 0, next: null };
      const guid = at.groups[at.g];
      if (guid === undefined) return { links: [], next: null, total: at.groups.length === 0 ? 0 : null };
      if (at.next !== null && new URL(at.next).origin !== origin)
        throw new SourceError("Bitly: the saved position of the import is unreadable; start the import again", false);
      const body = await http.json(at.next ?? firstPage(guid), { headers });
      if (!isObject(body) || !Array.isArray(body.links)) throw shapeError("bitly", `"links" is not a list`);
      if (!isObject(body.pagination)) throw shapeError("bitly", `"pagination" is missing`);
      const folder = at.names?.[at.g]?.trim() || null;
      const links = body.links.map((raw, i) => ({ ...readBitlink(raw, `#${guid}-${at.g}-${i + 1}`), ...(folder ? { folder } : {}) }));
      await mapLimit(links, CLICK_REQUESTS, clicks);
      const more = body.links.length > 0 ? nextPage(guid, body.pagination) : null;
      const next: BitlyCursor | null = more ? { ...at, next: more } : at.g + 1 < at.groups.length ? { ...at, g: at.g + 1, next: null } : null;
      const total = at.groups.length === 1 && isCount(body.pagination.total) ? body.pagination.total : null;
      return { links, next: next ? JSON.stringify(next) : null, total };
    },
  };
};

/** One bitlink; a custom back-half (custom_bitlinks) is preferred to the generated one for alias and domain. */
export function readBitlink(raw: unknown, standIn: string): SourceLink {
  if (!isObject(raw)) return { source_id: standIn, url: "", notes: ["the source's entry is not an object"] };
  const r = new LinkReader(raw);
  const custom = r.strings("custom_bitlinks") ?? [];
  const short = splitShortUrl(custom[0] ?? r.str("link") ?? r.str("id"));
  if (custom.length > 1) r.notes.push(`other custom back-halves not carried: ${custom.slice(1).join(", ")}`);
  const link: SourceLink = {
    source_id: r.id("id", standIn),
    url: r.url("long_url"),
    alias: short.alias,
    domain: short.domain,
    title: r.str("title"),
    tags: r.strings("tags") ?? [],
    created_at: r.time("created_at"),
    archived: r.bool("archived") ?? false,
  };
  if (r.notes.length > 0) link.notes = r.notes;
  return link;
}
