// What each import source asks for: its name, the API's base address (a default for the hosted services,
// required for self-hosted ones), how it calls its token, and what comes along.
import type { ImportJob, ImportState } from "@contract/imports";
import type { PreviewAction, SourceName } from "./imports-api";

export interface SourceInfo {
  label: string;
  /** The base address prefilled (hosted services); empty when the user must give one. */
  defaultBase: string;
  baseRequired: boolean;
  basePlaceholder: string;
  /** The token field's label; null for a file source. */
  tokenLabel: string | null;
  tokenHint: string;
  /** What the import carries, said under the picker. */
  carries: string;
  /** The source gives each visit (imported as clicks, the job's `visits`); the others give click totals only. */
  keepsVisits: boolean;
}

export const SOURCES: Record<SourceName, SourceInfo> = {
  bitly: {
    label: "Bitly",
    defaultBase: "https://api-ssl.bitly.com",
    baseRequired: false,
    basePlaceholder: "https://api-ssl.bitly.com",
    tokenLabel: "Access token",
    tokenHint: "Bitly → Settings → API → Generate token.",
    carries: "Bitlinks with their custom back-halves, titles, tags and click totals.",
    keepsVisits: false,
  },
  shlink: {
    label: "Shlink",
    defaultBase: "",
    baseRequired: true,
    basePlaceholder: "https://s.example.com",
    tokenLabel: "API key",
    tokenHint: "Create one on your Shlink server: shlink api-key:generate.",
    carries: "Short URLs with domain, tags, title, validity and visit limits, and every visit (date, country, city, referrer, browser).",
    keepsVisits: true,
  },
  yourls: {
    label: "YOURLS",
    defaultBase: "",
    baseRequired: true,
    basePlaceholder: "https://yourls.example.com",
    tokenLabel: "Signature token",
    tokenHint: "YOURLS admin → Tools → Secure passwordless API call.",
    carries: "Keywords, URLs, titles and click counts.",
    keepsVisits: false,
  },
  kutt: {
    label: "Kutt",
    defaultBase: "",
    baseRequired: true,
    basePlaceholder: "https://kutt.example.com",
    tokenLabel: "API key",
    tokenHint: "Kutt → Settings → API.",
    carries: "Links with their custom addresses, descriptions, expiry and visit counts.",
    keepsVisits: false,
  },
  dub: {
    label: "Dub",
    defaultBase: "https://api.dub.co",
    baseRequired: false,
    basePlaceholder: "https://api.dub.co",
    tokenLabel: "API key",
    tokenHint: "Dub → Workspace settings → API keys (read access to links).",
    carries: "Links with their keys, domains, tags and click totals.",
    keepsVisits: false,
  },
  csv: {
    label: "CSV or snip export",
    defaultBase: "",
    baseRequired: false,
    basePlaceholder: "",
    tokenLabel: null,
    tokenHint: "",
    carries: "A header row naming snip's link fields (url, alias, title, note, tags, expires_at, max_clicks, …), or a snip JSON export.",
    keepsVisits: false,
  },
  firebase: {
    label: "Firebase Dynamic Links",
    defaultBase: "",
    baseRequired: false,
    basePlaceholder: "",
    tokenLabel: null,
    tokenHint: "",
    carries:
      "A CSV with a short link and a long link column: the short path is kept on your domain; the long link's destination, app store ids, in-app path, fallbacks and social preview become the link's.",
    keepsVisits: false,
  },
};

export const ACTION_LABELS: Record<PreviewAction, { label: string; badge: string }> = {
  create: { label: "Create", badge: "badge-ok" },
  generate: { label: "New alias", badge: "badge-warn" },
  skip: { label: "Skip", badge: "badge-muted" },
  fail: { label: "Fail", badge: "badge-fail" },
};

/** Why a line is skipped or fails, said in words (the code itself when unknown here). */
const CODE_REASONS: Record<string, string> = {
  alias_taken: "The alias is taken on this host.",
  already_imported: "Imported by an earlier run.",
  invalid_request: "Not a link snip can create.",
  invalid_url: "The destination is not a valid address.",
  destination_blocked: "The destination is on the blocklist.",
  plan_required: "Your plan does not allow this link.",
  limit_reached: "Your plan's number of links is reached.",
  internal: "An internal error on this line (the others go on).",
};

export function codeReason(code: string | null): string | null {
  if (code === null) return null;
  return CODE_REASONS[code] ?? `Refused (${code}).`;
}

export const STATE_LABELS: Record<ImportState, { label: string; badge: string }> = {
  queued: { label: "Queued", badge: "badge-muted" },
  running: { label: "Running", badge: "badge-plan" },
  done: { label: "Done", badge: "badge-ok" },
  failed: { label: "Failed", badge: "badge-fail" },
  cancelled: { label: "Cancelled", badge: "badge-warn" },
};

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** "about 3 min", "12 s": the time left of a job. */
export function formatEta(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return "unknown";
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `about ${Math.round(s / 60)} min`;
  const h = Math.floor(s / 3600);
  return `about ${h} h ${Math.round((s % 3600) / 60)} min`;
}

/** How long a finished job ran ("—" when it never started). */
export function formatDuration(job: Pick<ImportJob, "started_at" | "finished_at">): string {
  if (!job.started_at || !job.finished_at) return "—";
  const s = (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000;
  if (!Number.isFinite(s)) return "—";
  return s < 60 ? `${Math.max(0, Math.round(s))} s` : formatEta(s).replace(/^about /, "");
}

/** The share done, 0..1, or null when the source did not say how many links it has. */
export function jobFraction(job: Pick<ImportJob, "state" | "total" | "counts">): number | null {
  if (job.state === "done") return 1;
  if (job.total === null || job.total <= 0) return null;
  return Math.min(1, job.counts.read / job.total);
}

export function sourceLabel(name: string): string {
  return SOURCES[name as SourceName]?.label ?? name;
}
