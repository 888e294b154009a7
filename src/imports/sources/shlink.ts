// Shlink, REST API v3 (X-Api-Key): GET /rest/v3/short-urls?page=&itemsPerPage= answers
// {shortUrls: {data: [...], pagination: {currentPage, pagesCount, itemsPerPage, itemsInCurrentPage, totalItems}}};
// each short URL's visits come from GET /rest/v3/short-urls/{shortCode}/visits?domain=&page=&itemsPerPage=
// as {visits: {data: [{date, referer, userAgent, potentialBot, visitLocation}], pagination}}, newest first.
// Cursor: {"p": the next page number}.
import type { SourceFetch, SourceLink, SourcePage, SourceSettings, SourceVisit, ImportSource, SourceFactory } from "../source.js";
import { type Json, LinkReader, baseUrl, endpoint, isCount, isObject, readCursor, shapeError, token } from "./common.js";

export const SHLINK_LINKS_PER_PAGE = 100;
export const SHLINK_VISITS_PER_PAGE = 500;

interface Pagination {
  currentPage: number;
  pagesCount: number;
  totalItems: number | null;
}

/** The `data` array and the pagination of a Shlink list answer under `key`, or a SourceError. */
function listOf(body: unknown, key: "shortUrls" | "visits"): { data: unknown[]; pagination: Pagination } {
  const list = isObject(body) ? body[key] : undefined;
  if (!isObject(list)) throw shapeError("shlink", `no "${key}" object in the answer`);
  if (!Array.isArray(list.data)) throw shapeError("shlink", `"${key}.data" is not a list`);
  const p = list.pagination;
  if (!isObject(p) || !isCount(p.currentPage) || !isCount(p.pagesCount)) {
    throw shapeError("shlink", `"${key}.pagination" lacks currentPage or pagesCount`);
  }
  return { data: list.data, pagination: { currentPage: p.currentPage, pagesCount: p.pagesCount, totalItems: isCount(p.totalItems) ? p.totalItems : null } };
}

function isShlinkCursor(v: unknown): v is { p: number } {
  return isObject(v) && isCount(v.p) && v.p >= 1;
}

export const shlinkSource: SourceFactory = (settings: SourceSettings, http: SourceFetch): ImportSource => {
  const base = baseUrl("shlink", settings);
  const key = token("shlink", settings);
  const headers = { "x-api-key": key };

  async function* visits(shortCode: string, domain: string | null): AsyncIterable<SourceVisit[]> {
    const path = `/rest/v3/short-urls/${encodeURIComponent(shortCode)}/visits`;
    for (let page = 1; ; page++) {
      const body = await http.json(endpoint(base, path, { domain, page, itemsPerPage: SHLINK_VISITS_PER_PAGE }), { headers });
      const { data, pagination } = listOf(body, "visits");
      yield data.map((v, i) => readVisit(v, `visit ${i + 1} of page ${page} of ${domain ?? ""}/${shortCode}`));
      if (pagination.currentPage >= pagination.pagesCount || data.length === 0) return;
    }
  }

  return {
    name: "shlink",
    async page(cursor: string | null): Promise<SourcePage> {
      const p = readCursor("shlink", cursor, isShlinkCursor)?.p ?? 1;
      const body = await http.json(endpoint(base, "/rest/v3/short-urls", { page: p, itemsPerPage: SHLINK_LINKS_PER_PAGE }), { headers });
      const { data, pagination } = listOf(body, "shortUrls");
      const links = data.map((raw, i) => readShortUrl(raw, `#page-${p}-item-${i + 1}`, visits));
      const last = pagination.currentPage >= pagination.pagesCount || data.length === 0;
      return { links, next: last ? null : JSON.stringify({ p: p + 1 }), total: pagination.totalItems };
    },
  };
};

type VisitsOf = (shortCode: string, domain: string | null) => AsyncIterable<SourceVisit[]>;

/** One short URL as a SourceLink; its visits read on demand (none asked for when the summary says 0). */
export function readShortUrl(raw: unknown, standIn: string, visitsOf: VisitsOf): SourceLink {
  if (!isObject(raw)) return { source_id: standIn, url: "", notes: ["the source's entry is not an object"] };
  const r = new LinkReader(raw);
  const shortCode = r.str("shortCode");
  const domain = r.str("domain");
  if (shortCode === null) r.notes.push("the source gave no shortCode; a re-run cannot recognise this link");
  const link: SourceLink = {
    source_id: shortCode === null ? standIn : `${domain ?? ""}/${shortCode}`,
    url: r.url("longUrl"),
    alias: shortCode,
    domain,
    title: r.str("title"),
    tags: r.strings("tags") ?? [],
    created_at: r.time("dateCreated"),
    crawlable: r.bool("crawlable"),
  };
  readMeta(raw.meta, link, r.notes);
  readDevices(raw.deviceLongUrls, link, r.notes);
  const count = visitCount(raw);
  if (shortCode !== null && count !== 0) link.visits = () => visitsOf(shortCode, domain);
  if (r.notes.length > 0) link.notes = r.notes;
  return link;
}

function readMeta(meta: unknown, link: SourceLink, notes: string[]): void {
  if (meta === undefined || meta === null) return;
  if (!isObject(meta)) {
    notes.push("the source's meta is not an object; valid since/until and max visits were dropped");
    return;
  }
  const m = new LinkReader(meta);
  link.valid_since = m.time("validSince");
  link.expires_at = m.time("validUntil");
  link.max_clicks = m.count("maxVisits");
  notes.push(...m.notes.map((n) => n.replace("the source's ", "the source's meta.")));
}

function readDevices(devices: unknown, link: SourceLink, notes: string[]): void {
  if (devices === undefined || devices === null) return;
  if (!isObject(devices)) {
    notes.push("the source's deviceLongUrls is not an object; it was dropped");
    return;
  }
  const d = new LinkReader(devices);
  link.android_url = d.str("android");
  link.ios_url = d.str("ios");
  if (d.str("desktop") !== null) notes.push("the desktop URL (deviceLongUrls.desktop) is not carried");
  notes.push(...d.notes.map((n) => n.replace("the source's ", "the source's deviceLongUrls.")));
}

/** visitsSummary.total (v3), else visitsCount (older servers), else unknown. */
function visitCount(raw: Json): number | null {
  const summary = raw.visitsSummary;
  if (isObject(summary) && isCount(summary.total)) return summary.total;
  return isCount(raw.visitsCount) ? raw.visitsCount : null;
}

function readVisit(raw: unknown, where: string): SourceVisit {
  if (!isObject(raw)) throw shapeError("shlink", `${where} is not an object`);
  const r = new LinkReader(raw);
  const at = r.time("date");
  if (at === null) throw shapeError("shlink", `${where} has no readable date`);
  const visit: SourceVisit = { at, referrer: r.str("referer"), user_agent: r.str("userAgent"), bot: raw.potentialBot === true };
  const loc = raw.visitLocation;
  if (isObject(loc)) {
    const l = new LinkReader(loc);
    const country = l.str("countryCode");
    visit.country = country && /^[a-z]{2}$/i.test(country) ? country.toUpperCase() : null;
    visit.region = l.str("regionName");
    visit.city = l.str("cityName");
  }
  return visit;
}
