// A bio page's blocks and colours: checked as given (lengths, addresses, the theme's colours) and read back from
// their stored JSON. Text is kept as given and escaped where it is shown (src/http/bio-page.ts, the dashboard).
import {
  type BioBlockInput,
  type BioColors,
  type BioSocialNetwork,
  BIO_SOCIAL_NETWORKS,
  MAX_BIO_LABEL,
  MAX_BIO_TEXT,
  MAX_BIO_URL,
} from "../contract/bio-pages.js";
import type { FieldError } from "../shared/errors.js";

export type StoredBlock =
  | { type: "link"; link_id: string; label: string }
  | { type: "heading"; text: string }
  | { type: "text"; text: string }
  | { type: "social"; network: BioSocialNetwork; url: string };

/** C0 controls other than tab and newline, DEL, and the C1 controls: never in a page's text. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Checks one-line or multi-line text: trimmed, 1..max characters, no control characters (newlines only where `lines`). */
export function checkText(value: string, max: number, lines: boolean): string {
  const t = value.trim();
  const n = [...t].length;
  if (n === 0) return "must not be empty";
  if (n > max) return `at most ${max} characters`;
  if (CONTROLS.test(t) || (!lines && /[\n\t]/.test(t))) return "must not hold control characters";
  return "";
}

/** An http(s) address (or mailto: where allowed), at most MAX_BIO_URL characters; the problem in words, or "". */
export function urlProblem(value: string, mailto = false): string {
  if (value.length > MAX_BIO_URL) return `at most ${MAX_BIO_URL} characters`;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return "must be a complete address (https://...)";
  }
  if (u.protocol === "http:" || u.protocol === "https:") return u.hostname === "" ? "must name a host" : "";
  if (mailto && u.protocol === "mailto:" && /^[^@\s]+@[^@\s]+$/.test(decodeURIComponent(u.pathname))) return "";
  return mailto ? "must start with https://, http:// or mailto:" : "must start with https:// or http://";
}

/** The blocks as stored (trimmed), or the problems of each, by field (`blocks[2].label`). Link ids are checked by the caller. */
export function checkBlocks(blocks: BioBlockInput[]): { blocks: StoredBlock[]; problems: FieldError[] } {
  const problems: FieldError[] = [];
  const out: StoredBlock[] = [];
  blocks.forEach((b, i) => {
    const field = (name: string) => `blocks[${i}].${name}`;
    const text = (name: string, value: string, max: number, lines: boolean) => {
      const p = checkText(value, max, lines);
      if (p) problems.push({ field: field(name), message: p });
      return value.trim();
    };
    switch (b.type) {
      case "link":
        out.push({ type: "link", link_id: b.link_id, label: text("label", b.label, MAX_BIO_LABEL, false) });
        break;
      case "heading":
        out.push({ type: "heading", text: text("text", b.text, MAX_BIO_LABEL, false) });
        break;
      case "text":
        out.push({ type: "text", text: text("text", b.text, MAX_BIO_TEXT, true) });
        break;
      case "social": {
        const url = b.url.trim();
        const p = urlProblem(url, b.network === "email");
        if (p) problems.push({ field: field("url"), message: p });
        out.push({ type: "social", network: b.network, url });
        break;
      }
    }
  });
  return { blocks: out, problems };
}

export function blocksOf(text: string): StoredBlock[] {
  try {
    const v: unknown = JSON.parse(text);
    if (!Array.isArray(v)) return [];
    return v.filter((b): b is StoredBlock => {
      if (typeof b !== "object" || b === null) return false;
      const t = (b as { type?: unknown }).type;
      if (t === "social") return (BIO_SOCIAL_NETWORKS as readonly unknown[]).includes((b as { network?: unknown }).network);
      return t === "link" || t === "heading" || t === "text";
    });
  } catch {
    return [];
  }
}

export function colorsOf(text: string | null): BioColors | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as BioColors;
  } catch {
    return null;
  }
}
