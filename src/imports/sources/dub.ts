// Dub (Authorization: Bearer): GET /links?page=&pageSize= answers a list of links {id, domain, key, url, title,
// description, image, proxy, expiresAt, expiredUrl, password, tags: [{name}], clicks, createdAt, ios, android,
// archived, folderId (GET /folders gives the names: [{id, name}]), comments, leads, sales, saleAmount (cents of USD, the currency Dub reports revenue in)}; the last page is one shorter than pageSize (or empty). GET /links/count gives the
// total, asked once on the first page and kept in the cursor: {"page": next page, "total": count or null}.
import type { ImportSource, SourceFactory, SourceFetch, SourceLink, SourcePage, SourceSettings } from "../source.js";
import { LinkReader, baseUrl, endpoint, isCount, isObject, readCursor, shapeError, token } from "./common.js";
import { SourceError } from "../source.js";

export const DUB_DEFAULT_BASE = "https://api.dub.co";
export const DUB_LINKS_PER_PAGE = 100;

interface DubCursor {
  page: number;
  total: number | null;
}

function isDubCursor(v: unknown): v is DubCursor {
  return isObject(v) && isCount(v.page) && v.page >= 1 && (v.total === null || isCount(v.total));
}

export const dubSource: SourceFactory = (settings: SourceSettings, http: SourceFetch): ImportSource => {
  const base = baseUrl("dub", settings, DUB_DEFAULT_BASE);
  const headers = { authorization: `Bearer ${token("dub", settings)}` };

  /** The workspace's link count, or null when Dub does not say (a count is for progress only). */
  async function count(): Promise<number | null> {
    try {
      const n = await http.json(endpoint(base, "/links/count"), { headers });
      return isCount(n) ? n : null;
    } catch (e) {
      if (e instanceof SourceError && !e.transient && !/refused the token/.test(e.message)) return null;
      throw e;
    }
  }

  /** The workspace's folders by id (GET /folders), read once per run; none when Dub does not give them (a plan without folders). */
  let folders: Promise<Map<string, string>> | null = null;
  async function readFolders(): Promise<Map<string, string>> {
    try {
      const body = await http.json(endpoint(base, "/folders"), { headers });
      const list = Array.isArray(body) ? body : [];
      return new Map(list.flatMap((f) => (isObject(f) && typeof f.id === "string" && typeof f.name === "string" ? [[f.id, f.name] as const] : [])));
    } catch (e) {
      if (e instanceof SourceError && !e.transient && !/refused the token/.test(e.message)) return new Map();
      throw e;
    }
  }

  return {
    name: "dub",
    async page(cursor: string | null): Promise<SourcePage> {
      const at = readCursor("dub", cursor, isDubCursor) ?? { page: 1, total: await count() };
      const body = await http.json(endpoint(base, "/links", { page: at.page, pageSize: DUB_LINKS_PER_PAGE }), { headers });
      if (!Array.isArray(body)) throw shapeError("dub", "the answer is not a list of links");
      const names = body.some((raw) => isObject(raw) && typeof raw.folderId === "string") ? await (folders ??= readFolders()) : new Map<string, string>();
      const links = body.map((raw, i) => readDubLink(raw, `#page-${at.page}-item-${i + 1}`, names));
      const next = body.length >= DUB_LINKS_PER_PAGE ? JSON.stringify({ page: at.page + 1, total: at.total }) : null;
      return { links, next, total: at.total };
    },
  };
};

function tagNames(raw: unknown, notes: string[]): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    notes.push("the source's tags is not a list; it was dropped");
    return [];
  }
  const names: string[] = [];
  for (const t of raw) {
    if (isObject(t) && typeof t.name === "string" && t.name !== "") names.push(t.name);
    else notes.push("a tag without a name was dropped");
  }
  return names;
}

export function readDubLink(raw: unknown, standIn: string, folders: ReadonlyMap<string, string> = new Map()): SourceLink {
  if (!isObject(raw)) return { source_id: standIn, url: "", notes: ["the source's entry is not an object"] };
  const r = new LinkReader(raw);
  const link: SourceLink = {
    source_id: r.id("id", standIn),
    url: r.url("url"),
    alias: r.str("key"),
    domain: r.str("domain"),
    title: r.str("title"),
    note: r.str("comments"),
    tags: tagNames(raw.tags, r.notes),
    expires_at: r.time("expiresAt"),
    expired_url: r.str("expiredUrl"),
    ios_url: r.str("ios"),
    android_url: r.str("android"),
    created_at: r.time("createdAt"),
    clicks_total: r.count("clicks"),
    archived: r.bool("archived") ?? false,
  };
  const leads = r.count("leads") ?? 0;
  const sales = r.count("sales") ?? 0;
  const amount = r.count("saleAmount") ?? 0;
  if (leads + sales + amount > 0) link.conversions_total = { leads, sales, revenue: amount > 0 ? { USD: amount } : {} };
  const description = r.str("description");
  if (raw.proxy === true) link.preview = { title: link.title ?? null, description, image: r.str("image") };
  else if (description !== null) r.notes.push("the description (a social preview field, preview off at the source) is not carried");
  if (raw.password !== undefined && raw.password !== null && raw.password !== "") link.password_protected = true;
  if (typeof raw.folderId === "string" && raw.folderId !== "") {
    const folder = folders.get(raw.folderId);
    if (folder) link.folder = folder;
    else r.notes.push("its Dub folder could not be read (GET /folders); the link is in no folder");
  }
  if (r.notes.length > 0) link.notes = r.notes;
  return link;
}
