// Firebase Dynamic Links as an import source (docs/import.md, docs/deep-links.md: moving off Firebase): a CSV of
// short links and their long Dynamic Link addresses, as Firebase's console and its REST API gave them. The long
// link's documented parameters become the link's destination, app destinations, fallbacks and social preview; every
// other parameter is reported on the link's line. The short link's path is kept as the alias, on the host it was
// on when that host is a verified custom domain of the account (the import's usual rule, mapping.ts).
import { BAD_IN_TEXT } from "../../shared/bad-text.js";
import { type ImportSource, type SourceLink, SourceError, type SourceSettings } from "../source.js";
import { splitShortUrl } from "./common.js";
import { readCsv } from "./file-read.js";

/** Records per page. */
const PAGE = 500;

/** A long Dynamic Link longer than this is refused (Firebase's own limit was 7,000 characters of the short link's target). */
export const MAX_LONG_LINK = 8192;

/** Header names as Firebase's exports and people wrote them, normalised (lower case, spaces and dashes as "_"). */
const COLUMNS: Record<string, "short" | "long" | "name"> = {
  short_link: "short",
  shortlink: "short",
  short_dynamic_link: "short",
  short_url: "short",
  dynamic_link: "short",
  long_link: "long",
  longdynamiclink: "long",
  long_dynamic_link: "long",
  long_url: "long",
  link_name: "name",
  name: "name",
  title: "name",
};

/** What the long link's parameters become: the link's fields, and the notes of what is not carried. */
export interface DynamicLinkFields {
  url: string;
  ios_url: string | null;
  android_url: string | null;
  app_ios_store_id: string | null;
  app_android_package: string | null;
  app_path: string | null;
  preview: { title: string | null; description: string | null; image: string | null } | null;
  notes: string[];
}

/** Parameters that are not carried, and why (Firebase's "Manually constructing a Dynamic Link URL" names each). */
const NOT_CARRIED: Record<string, string> = {
  amv: "the minimum Android version code is not carried: snip opens whatever version is installed",
  imv: "the minimum iOS app version is not carried: snip opens whatever version is installed",
  ibi: "the iOS bundle id belongs in the domain's app association (Domains, Apps: TEAMID.bundle.id), not on the link",
  ius: "the iOS custom URL scheme is not carried: snip opens apps through universal links",
  ipbi: "the iPad bundle id is not carried: iPads follow the link's iOS fields",
  ipfl: "the iPad fallback link is not carried: iPads follow the link's iOS fields",
  efr: "skipping the app preview page needs nothing: snip shows no app preview page",
  d: "the debug flag is ignored",
  at: "the App Store affiliate token is not carried",
  ct: "the App Store campaign token is not carried",
  mt: "the App Store media type is not carried",
  pt: "the App Store provider token is not carried",
  gclid: "gclid is not carried",
};

const UTM = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"];

function httpUrl(v: string | null): URL | null {
  if (v === null) return null;
  try {
    const u = new URL(v);
    return u.protocol === "https:" || u.protocol === "http:" ? u : null;
  } catch {
    return null;
  }
}

/**
 * The fields of one long Dynamic Link (`https://example.page.link/?link=...&apn=...`); a string when it cannot be a
 * link (not an address, no `link=` parameter), naming why.
 */
export function readDynamicLink(long: string): DynamicLinkFields | string {
  if (long.length > MAX_LONG_LINK) return `the long link is longer than ${MAX_LONG_LINK} characters`;
  const address = httpUrl(long);
  if (address === null) return "the long link is not an http or https address";
  const params = address.searchParams;
  const notes: string[] = [];
  const one = (name: string): string | null => {
    const all = params.getAll(name).map((v) => v.trim());
    if (all.length > 1) notes.push(`${name} was given ${all.length} times: the first is used`);
    return all[0] || null;
  };
  const deep = one("link");
  if (deep === null) return "the long link has no link= parameter (the deep link, which Firebase requires)";
  const deepUrl = httpUrl(deep);
  if (deepUrl === null) return "the long link's link= parameter is not an http or https address";

  // Desktops went to ofl when given, else to the deep link itself: so does snip's destination.
  const ofl = one("ofl");
  const destination = new URL(httpUrl(ofl)?.toString() ?? deepUrl.toString());
  if (ofl !== null && httpUrl(ofl) === null) notes.push("ofl is not an http or https address: the deep link is the destination");
  const utm: string[] = [];
  for (const name of UTM) {
    const v = one(name);
    if (v === null) continue;
    if (destination.searchParams.has(name)) notes.push(`${name} is already in the destination's query: the long link's value is not added`);
    else {
      destination.searchParams.set(name, v);
      utm.push(name);
    }
  }
  if (utm.length > 0) notes.push(`${utm.join(", ")} added to the destination's query`);

  const apn = one("apn");
  const isi = one("isi");
  if (isi !== null && !/^\d{1,20}$/.test(isi)) notes.push(`isi "${isi.slice(0, 40)}" is not an App Store id (digits): not carried`);
  const storeId = isi !== null && /^\d{1,20}$/.test(isi) ? isi : null;
  const fallback = (name: "afl" | "ifl"): string | null => {
    const v = one(name);
    if (v === null) return null;
    if (httpUrl(v) === null) {
      notes.push(`${name} is not an http or https address: not carried`);
      return null;
    }
    return v;
  };
  const afl = fallback("afl");
  const ifl = fallback("ifl");
  if (afl !== null && apn !== null)
    notes.push("afl and apn both given: Android phones without the app go to apn's Play Store listing, and afl is kept as the link's Android address");
  if (ifl !== null && storeId !== null)
    notes.push("ifl and isi both given: iPhones without the app go to isi's App Store listing, and ifl is kept as the link's iOS address");

  const st = one("st");
  const sd = one("sd");
  const si = one("si");
  const preview = st !== null || sd !== null || si !== null ? { title: st, description: sd, image: si } : null;

  for (const name of new Set(params.keys())) {
    if (["link", "ofl", "apn", "isi", "afl", "ifl", "st", "sd", "si", ...UTM].includes(name)) continue;
    const why = NOT_CARRIED[name];
    notes.push(why ? `${name}: ${why}` : `${name.replace(new RegExp(BAD_IN_TEXT.source, "g"), "?").slice(0, 40)} is not a Dynamic Link parameter: not carried`);
  }
  return {
    url: destination.toString(),
    ios_url: ifl,
    android_url: afl,
    app_ios_store_id: storeId,
    app_android_package: apn,
    // The app opens the deep link's own path (with its query and fragment) when either app is set.
    app_path: apn !== null || storeId !== null ? `${deepUrl.pathname}${deepUrl.search}${deepUrl.hash}` : null,
    preview,
    notes,
  };
}

const header = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");

/** A CSV of Firebase Dynamic Links; a line that cannot be read or mapped comes refused, with the reason, and the others go on. */
export function firebaseSource(settings: SourceSettings): ImportSource {
  let records: Array<{ line: number; short: string; long: string; name: string } | { line: number; error: string }> | null = null;
  const read = () => {
    if (records) return records;
    const raw = (settings.file ?? "").replace(/^\uFEFF/, "");
    if (raw.includes("\uFFFD")) throw new SourceError("the file is not UTF-8 text (save it as CSV UTF-8)", false);
    const [head, ...body] = readCsv(raw);
    if (!head || head.error !== undefined) throw new SourceError("the file needs a header row naming its columns (short link and long link)", false);
    const at = (role: "short" | "long" | "name") => head.cells.findIndex((c) => COLUMNS[header(c)] === role);
    const short = at("short");
    const long = at("long");
    if (short < 0 || long < 0)
      throw new SourceError('the header row needs a short link column ("Short link") and a long link column ("Long link", longDynamicLink)', false);
    const name = at("name");
    records = body.map((rec) =>
      rec.error !== undefined
        ? { line: rec.line, error: rec.error }
        : { line: rec.line, short: rec.cells[short]?.trim() ?? "", long: rec.cells[long]?.trim() ?? "", name: name < 0 ? "" : (rec.cells[name]?.trim() ?? "") },
    );
    return records;
  };
  return {
    name: "firebase",
    async page(cursor) {
      const all = read();
      const from = cursor === null ? 0 : Number(cursor);
      const links = all.slice(from, from + PAGE).map((rec): SourceLink => {
        const refused = (message: string, field?: string): SourceLink => ({
          source_id: "short" in rec && rec.short !== "" && rec.short.length <= 500 && !BAD_IN_TEXT.test(rec.short) ? rec.short : `line:${rec.line}`,
          url: "",
          refused: { code: "invalid_request", ...(field ? { field } : {}), message },
        });
        if ("error" in rec) return refused(rec.error);
        if (BAD_IN_TEXT.test(rec.short) || BAD_IN_TEXT.test(rec.long) || BAD_IN_TEXT.test(rec.name))
          return refused("contains a control character (NUL...) or an unpaired surrogate, which cannot be stored");
        if (rec.short === "") return refused("the short link is empty", "short_link");
        const fields = readDynamicLink(rec.long);
        if (typeof fields === "string") return refused(fields, "long_link");
        const { domain, alias } = splitShortUrl(rec.short);
        if (alias === null) return refused("the short link has no path to keep as the alias", "short_link");
        const { notes, ...link } = fields;
        return { source_id: rec.short, ...link, domain, alias, title: rec.name || null, notes };
      });
      return { links, next: from + PAGE < all.length ? String(from + PAGE) : null, total: all.length };
    },
  };
}
