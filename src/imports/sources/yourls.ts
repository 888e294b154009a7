// YOURLS API with a signature token: GET /yourls-api.php?action=stats&filter=last&limit=&start=&format=json
// &signature= answers {links: {link_1: {shorturl, url, title, timestamp, ip, clicks}, ...}, stats: {total_links,
// total_clicks}} (numbers often as strings; an empty page as []). The keyword is the short URL's last path
// segment. Cursor: {"start": links read so far}.
import type { ImportSource, SourceFactory, SourceFetch, SourceLink, SourcePage, SourceSettings } from "../source.js";
import { LinkReader, baseUrl, endpoint, isCount, isObject, readCursor, shapeError, splitShortUrl, token } from "./common.js";

export const YOURLS_LINKS_PER_PAGE = 100;

function isYourlsCursor(v: unknown): v is { start: number } {
  return isObject(v) && isCount(v.start);
}

/** The API script's address: the base as given when it names the script, else base + /yourls-api.php. */
function apiAddress(base: string): string {
  return /\.php$/i.test(base) ? base : `${base}/yourls-api.php`;
}

/** link_1, link_2, ... in their order (or a list), or a SourceError. */
function entries(links: unknown): unknown[] {
  if (Array.isArray(links)) return links;
  if (!isObject(links)) throw shapeError("yourls", `"links" is missing or not an object`);
  const keyed = Object.entries(links).map(([k, v]) => ({ n: /^link_(\d+)$/.exec(k)?.[1], v }));
  if (keyed.some((e) => e.n === undefined)) throw shapeError("yourls", `"links" has a key other than link_N`);
  return keyed.sort((a, b) => Number(a.n) - Number(b.n)).map((e) => e.v);
}

function readTotal(stats: unknown): number | null {
  if (!isObject(stats)) return null;
  const t = stats.total_links;
  const n = typeof t === "string" && /^\d+$/.test(t) ? Number(t) : t;
  return isCount(n) ? n : null;
}

export const yourlsSource: SourceFactory = (settings: SourceSettings, http: SourceFetch): ImportSource => {
  const api = apiAddress(baseUrl("yourls", settings));
  const signature = token("yourls", settings);
  return {
    name: "yourls",
    async page(cursor: string | null): Promise<SourcePage> {
      const start = readCursor("yourls", cursor, isYourlsCursor)?.start ?? 0;
      const query = { action: "stats", filter: "last", limit: YOURLS_LINKS_PER_PAGE, start, format: "json", signature };
      const body = await http.json(endpoint(api, "", query));
      if (!isObject(body)) throw shapeError("yourls", "the answer is not an object");
      const list = entries(body.links);
      const total = readTotal(body.stats);
      const links = list.map((raw, i) => readYourlsLink(raw, `#start-${start + i}`));
      const read = start + list.length;
      const more = list.length > 0 && (total === null ? list.length >= YOURLS_LINKS_PER_PAGE : read < total);
      return { links, next: more ? JSON.stringify({ start: read }) : null, total };
    },
  };
};

export function readYourlsLink(raw: unknown, standIn: string): SourceLink {
  if (!isObject(raw)) return { source_id: standIn, url: "", notes: ["the source's entry is not an object"] };
  const r = new LinkReader(raw);
  const short = splitShortUrl(r.str("shorturl"));
  const keyword = short.alias?.split("/").pop() || null;
  if (keyword === null) r.notes.push("the source gave no short URL; a re-run cannot recognise this link");
  const link: SourceLink = {
    source_id: keyword ?? standIn,
    url: r.url("url"),
    alias: keyword,
    domain: short.domain,
    title: r.str("title"),
    created_at: r.time("timestamp"),
    clicks_total: r.count("clicks"),
  };
  if (r.notes.length > 0) link.notes = r.notes;
  return link;
}
