// The short URL's own UTM values (docs/api.md Statistics): a visit to `/alias?utm_source=news&...` keeps
// them with its click as one normalised string, broken down at roll-up into the utm_* dimensions.

/** The UTM parameters kept, in the order of the normalised string. */
export const UTM_KEYS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;
export type UtmKey = (typeof UTM_KEYS)[number];

/** Longest value kept, in characters (after decoding). */
export const UTM_VALUE_MAX = 100;
/** The shortest query that can hold one: "utm_term=x". */
const SHORTEST = "utm_term=x".length;

/** A decoded value as stored: no control characters, trimmed, at most UTM_VALUE_MAX characters ("" when nothing is left). */
function cleanValue(raw: string): string {
  let v: string;
  try {
    v = decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    v = raw;
  }
  // A cut (or a malformed input) can leave half a surrogate pair, which encodeURIComponent refuses.
  return v
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, UTM_VALUE_MAX)
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "");
}

/**
 * The UTM values of a visit's query string (without "?" and the QR marker) as the normalised string
 * "utm_source=news&utm_campaign=spring" (UTM_KEYS' order, first occurrence of each, values
 * percent-encoded), or null when it has none. A visit without a query pays one length check.
 */
export function utmOf(query: string): string | null {
  if (query.length < SHORTEST || !query.includes("utm_")) return null;
  const found = new Map<UtmKey, string>();
  for (const part of query.split("&")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    // Parameter names are matched as written, as analytics tools read them: UTM_Source is not utm_source.
    const key = part.slice(0, eq) as UtmKey;
    if (!UTM_KEYS.includes(key) || found.has(key)) continue;
    const value = cleanValue(part.slice(eq + 1));
    if (value !== "") found.set(key, value);
  }
  if (found.size === 0) return null;
  return UTM_KEYS.filter((k) => found.has(k))
    .map((k) => `${k}=${encodeURIComponent(found.get(k) as string)}`)
    .join("&");
}

/** The values of a normalised string (utmOf's), by key; keys it does not hold are absent. */
export function utmValues(utm: string): Partial<Record<UtmKey, string>> {
  const out: Partial<Record<UtmKey, string>> = {};
  for (const part of utm.split("&")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq) as UtmKey;
    if (eq > 0 && UTM_KEYS.includes(key)) {
      try {
        out[key] = decodeURIComponent(part.slice(eq + 1));
      } catch {
        // not a string utmOf made (a hand-edited row): the key is left out
      }
    }
  }
  return out;
}
