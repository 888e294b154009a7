// The state of a QR code's design in the dashboard: the values as typed, their problems (the server's
// rules from src/contract/form-rules.ts), the image address that asks for them, and a preview that
// follows them without asking for every step of a colour being dragged.
import { useEffect, useRef, useState } from "react";
import type { Link } from "@contract/links";
import type { FieldError } from "@contract/common";
import { parseQrColour, QR_DEFAULT_DESIGN, QR_LOGO_ECLS, QR_MARGIN_MAX, qrDesignProblems, type QrEcl } from "../../../../src/contract/form-rules";

/** QR image address for a link (public endpoint). */
function qrUrl(link: Pick<Link, "alias" | "domain">): string {
  const base = `/api/qr/${encodeURIComponent(link.alias)}`;
  return link.domain ? `${base}?${new URLSearchParams({ domain: link.domain })}` : base;
}

export interface QrDesignValues {
  /** As typed: `#1a2b3c`, `1a2b3c` or something still being typed. */
  fg: string;
  bg: string;
  margin: string;
  ecl: QrEcl;
  logo: boolean;
}

export const DEFAULT_QR_DESIGN: QrDesignValues = {
  fg: QR_DEFAULT_DESIGN.fg,
  bg: QR_DEFAULT_DESIGN.bg,
  margin: String(QR_DEFAULT_DESIGN.margin),
  ecl: QR_DEFAULT_DESIGN.ecl,
  logo: false,
};

export const MARGIN_MESSAGE = `Enter a whole number from 0 to ${QR_MARGIN_MAX}`;

/** A changed design; switching the logo on moves a level below Q up to H, as the server would draw it. */
export function withChange(d: QrDesignValues, change: Partial<QrDesignValues>): QrDesignValues {
  const next = { ...d, ...change };
  if (next.logo && !QR_LOGO_ECLS.includes(next.ecl)) next.ecl = "H";
  return next;
}

/** A colour as the query sends it: absent when it is the default (so a problem lands where the server puts it). */
function sent(typed: string, dflt: string): string | undefined {
  return parseQrColour(typed) === dflt ? undefined : typed;
}

/** Problems by field, as the server would report them for this design's query. */
export function designProblems(d: QrDesignValues): Record<string, string> {
  const out: Record<string, string> = {};
  const input = { fg: sent(d.fg, QR_DEFAULT_DESIGN.fg), bg: sent(d.bg, QR_DEFAULT_DESIGN.bg), ecl: d.ecl, logo: d.logo };
  for (const p of qrDesignProblems(input)) out[p.field] ??= p.message;
  const m = Number(d.margin);
  if (!/^\d{1,2}$/.test(d.margin.trim()) || m > QR_MARGIN_MAX) out.margin = MARGIN_MESSAGE;
  return out;
}

/** The query of a valid design: only what differs from the defaults, so a plain code keeps its plain address. */
export function designQuery(d: QrDesignValues): Record<string, string> {
  const q: Record<string, string> = {};
  const fg = parseQrColour(d.fg);
  const bg = parseQrColour(d.bg);
  if (fg && fg !== QR_DEFAULT_DESIGN.fg) q.fg = fg.slice(1);
  if (bg && bg !== QR_DEFAULT_DESIGN.bg) q.bg = bg.slice(1);
  if (Number(d.margin) !== QR_DEFAULT_DESIGN.margin) q.margin = String(Number(d.margin));
  if (d.ecl !== (d.logo ? "H" : QR_DEFAULT_DESIGN.ecl)) q.ecl = d.ecl;
  if (d.logo) q.logo = "1";
  return q;
}

export function withQuery(url: string, params: Record<string, string>): string {
  if (Object.keys(params).length === 0) return url;
  return `${url}${url.includes("?") ? "&" : "?"}${new URLSearchParams(params)}`;
}

/** The image address of a link's code in a design, with more parameters (format, size) after it. */
export function designedQrUrl(link: Pick<Link, "alias" | "domain">, d: QrDesignValues, extra: Record<string, string> = {}): string {
  return withQuery(qrUrl(link), { ...designQuery(d), ...extra });
}

/** `value`, but only once it has stayed the same for `ms` (the first value at once). */
export function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(t);
  }, [value, ms]);
  return settled;
}

export interface QrPreview {
  /** An object URL of the last SVG drawn (kept while the next one loads). */
  src: string | null;
  /** Modules across it, quiet zone included. */
  modules: number | null;
  /** The QR-Logo header: "drawn", "none", or null without logo=1. */
  logo: string | null;
  /** Field errors the server gave, by field. */
  problems: Record<string, string>;
  error: string | null;
}

const EMPTY: QrPreview = { src: null, modules: null, logo: null, problems: {}, error: null };

/** Fetches the SVG at `url` (none while null): one request serves both the picture and its module count. */
export function useQrPreview(url: string | null): QrPreview {
  const [preview, setPreview] = useState<QrPreview>(EMPTY);
  const current = useRef<string | null>(null);
  useEffect(() => {
    if (!url) return;
    let live = true;
    (async () => {
      // Revalidated every time (a 304 is cheap): a picture uploaded since shows at once.
      const r = await fetch(url, { credentials: "same-origin", cache: "no-cache" });
      if (!r.ok) {
        const body = (await r.json().catch(() => ({}))) as { message?: string; details?: FieldError[] };
        const problems = Object.fromEntries((body.details ?? []).map((d) => [d.field, d.message]));
        if (live)
          setPreview((p) => ({ ...p, problems, error: Object.keys(problems).length ? null : (body.message ?? `The image could not be drawn (${r.status})`) }));
        return;
      }
      const svg = await r.text();
      if (!live) return;
      const m = /viewBox="0 0 (\d+) (\d+)"/.exec(svg);
      const src = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
      if (current.current) URL.revokeObjectURL(current.current);
      current.current = src;
      setPreview({ src, modules: m ? Number(m[1]) : null, logo: r.headers.get("qr-logo"), problems: {}, error: null });
    })().catch(() => {
      if (live) setPreview((p) => ({ ...p, error: "The image could not be loaded; check your connection" }));
    });
    return () => {
      live = false;
    };
  }, [url]);
  useEffect(
    () => () => {
      if (current.current) URL.revokeObjectURL(current.current);
    },
    [],
  );
  return preview;
}
