// The UTM builder's two directions over the destination URL's text: the utm_* values it carries, and the
// URL with one of them set or removed. Only the query's utm_* pairs change: every other parameter, their
// order and spelling, the path and the fragment stay as typed.
import { UTM_PARAMS, type UtmParam } from "../../../../src/contract/form-rules.js";

export type UtmValues = Record<UtmParam, string>;

interface Parts {
  /** Everything before the "?" (or the "#" when there is no query). */
  head: string;
  /** The query's pairs as typed, without the "?". */
  pairs: string[];
  /** "#..." or "". */
  fragment: string;
}

function split(url: string): Parts {
  const hash = url.indexOf("#");
  const fragment = hash === -1 ? "" : url.slice(hash);
  const beforeHash = hash === -1 ? url : url.slice(0, hash);
  const q = beforeHash.indexOf("?");
  if (q === -1) return { head: beforeHash, pairs: [], fragment };
  const query = beforeHash.slice(q + 1);
  return { head: beforeHash.slice(0, q), pairs: query === "" ? [] : query.split("&"), fragment };
}

/** Form-encoded text as read by servers ("+" is a space); text that does not decode is kept as typed. */
function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}

function encode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    // A lone surrogate cannot be encoded; the server refuses it anyway.
    return encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, "\uFFFD"));
  }
}

const keyOf = (pair: string) => decode(pair.split("=", 1)[0] ?? "");

function isUtm(key: string): key is UtmParam {
  return (UTM_PARAMS as readonly string[]).includes(key);
}

/** The utm_* values the URL carries ("" for one it does not); the first of a repeated parameter counts. */
export function readUtm(url: string): UtmValues {
  const out: UtmValues = { utm_source: "", utm_medium: "", utm_campaign: "", utm_term: "", utm_content: "" };
  const seen = new Set<string>();
  for (const pair of split(url).pairs) {
    const key = keyOf(pair);
    if (!isUtm(key) || seen.has(key)) continue;
    seen.add(key);
    const eq = pair.indexOf("=");
    out[key] = eq === -1 ? "" : decode(pair.slice(eq + 1));
  }
  return out;
}

/**
 * The URL with `param` set to `value` (in place of its first occurrence, else added after the other
 * parameters), or removed when `value` is empty; repeats of the parameter go.
 */
export function writeUtm(url: string, param: UtmParam, value: string): string {
  const parts = split(url);
  const pairs: string[] = [];
  let placed = false;
  for (const pair of parts.pairs) {
    if (keyOf(pair) !== param) pairs.push(pair);
    else if (!placed && value !== "") {
      pairs.push(`${param}=${encode(value)}`);
      placed = true;
    } else placed = true;
  }
  if (!placed && value !== "") pairs.push(`${param}=${encode(value)}`);
  return `${parts.head}${pairs.length > 0 ? `?${pairs.join("&")}` : ""}${parts.fragment}`;
}

/** The URL with all five parameters set to `values` (empty ones removed), e.g. from a template. */
export function writeAllUtm(url: string, values: Partial<Record<UtmParam, string | null>>): string {
  return UTM_PARAMS.reduce((u, p) => writeUtm(u, p, values[p] ?? ""), url);
}
