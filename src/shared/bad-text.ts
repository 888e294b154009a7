// Text no field of snip holds: control characters, unpaired surrogates (PostgreSQL cannot store NUL, JSON
// cannot carry a lone surrogate), and nesting deeper than any input needs. The HTTP input guard applies it
// to every request; the file import to every row it reads (JSON escapes get past the request's check).

/**
 * Refused in every string (values and keys): C0 controls but TAB, LF and CR, DEL, C1 controls, and
 * surrogates without their pair. TAB, LF and CR are text (multi-line bodies such as the bulk URL list).
 */
export const BAD_IN_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Path segments and query parameters are single-line: no control character at all. */
export const BAD_IN_URL = /[\u0000-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Nesting deeper than any body of the API, refused before the schema walks it. */
export const MAX_DEPTH = 32;

/** The first string in `value` (keys included) that `bad` matches, as a dotted field path; iterative, so depth cannot overflow the stack. */
export function findBadString(value: unknown, bad: RegExp, root: string, maxDepth = MAX_DEPTH): string | null {
  const stack: Array<[unknown, string, number]> = [[value, root, 0]];
  while (stack.length > 0) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === "string") {
      if (bad.test(v)) return path;
      continue;
    }
    if (v === null || typeof v !== "object" || Buffer.isBuffer(v)) continue;
    if (depth >= maxDepth) return `${root} (nested deeper than ${maxDepth} levels)`;
    for (const [k, child] of Object.entries(v)) {
      if (bad.test(k)) return `${path}.${k.replace(bad, "?")}`;
      stack.push([child, `${path}.${k}`, depth + 1]);
    }
  }
  return null;
}

/** `text` with every character BAD_IN_TEXT refuses replaced by U+FFFD: what a report line may store of a source's text. */
export function storable(text: string): string {
  return BAD_IN_TEXT.test(text) ? text.replace(new RegExp(BAD_IN_TEXT.source, "g"), "\uFFFD") : text;
}
