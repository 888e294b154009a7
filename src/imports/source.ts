// What an import reads from a source (Bitly, Shlink, YOURLS, Kutt, Dub, a CSV or JSON file): pages of
// links, each link in one shape whatever the source, and for sources that keep them, each link's visits.
// A page carries the cursor that reads the next one: the job stores it after the page's links are in,
// so a job resumes after a restart (or a source error) from the last page it finished.

import type { IMPORT_SOURCE_NAMES } from "../contract/imports.js";

/** The sources an import reads (docs/import.md). */
export type ImportSourceName = (typeof IMPORT_SOURCE_NAMES)[number];

/** One visit as a source keeps it (Shlink). */
export interface SourceVisit {
  /** Epoch ms. */
  at: number;
  /** ISO 3166-1 alpha-2, upper case, when known. */
  country?: string | null;
  region?: string | null;
  city?: string | null;
  /** The referrer URL as the source stored it. */
  referrer?: string | null;
  user_agent?: string | null;
  /** The source flagged the visit as a bot's (snip also applies its own bot test to user_agent). */
  bot?: boolean;
}

/** One link as a source describes it; absent fields are not carried. */
export interface SourceLink {
  /** Stable within the source (Bitly's id, Shlink's domain/short code, ...): a re-run skips what it already imported. */
  source_id: string;
  url: string;
  /** The back-half / short code / keyword. */
  alias?: string | null;
  /** The host the link lived on at the source (kept when it is a verified custom domain of the owner). */
  domain?: string | null;
  title?: string | null;
  note?: string | null;
  tags?: string[];
  /** The name of the source's folder or group the link is in (Dub's folders, Bitly's groups): a folder of the owner's (docs/folders.md). */
  folder?: string | null;
  /** Epoch ms. */
  expires_at?: number | null;
  /** Not before (Shlink's validSince): carried into starts_at when still ahead (Pro and up). */
  valid_since?: number | null;
  /** Search engines may follow it (Shlink's crawlable). */
  crawlable?: boolean | null;
  /** snip's own export: 301, 302, 307 or 308 (another value is refused by the link's schema). */
  redirect_status?: number | null;
  max_clicks?: number | null;
  ios_url?: string | null;
  android_url?: string | null;
  /** Firebase Dynamic Links: the App Store id, the Android package and the in-app path (docs/deep-links.md). */
  app_ios_store_id?: string | null;
  app_android_package?: string | null;
  app_path?: string | null;
  /** Epoch ms. */
  created_at?: number | null;
  /** Clicks the source counted, for sources that give totals only. */
  clicks_total?: number | null;
  /** Leads, sales and revenue (currency -> minor units) the source counted, for sources that give totals (Dub). */
  conversions_total?: { leads: number; sales: number; revenue: Record<string, number> } | null;
  /** The source password-protects the link (its password cannot be read): reported as a note. */
  password_protected?: boolean;
  /** A CSV's plain password column: hashed as at creation. */
  password?: string | null;
  /** snip's own export carries the link password's hash, which is kept as is. */
  password_hash?: string | null;
  /** snip's own export: the archive mark, the fallback and the preview, targeting. */
  archived?: boolean;
  expired_url?: string | null;
  preview?: { title?: string | null; description?: string | null; image?: string | null } | null;
  rules?: unknown;
  split?: unknown;
  /** The line cannot become a link whatever the account (unreadable, wrong types, bad characters): it fails with this. */
  refused?: { code: "invalid_request"; field?: string; message: string };
  /** Notes from reading the source (a field not understood, a value dropped): shown on the link's report line. */
  notes?: string[];
  /** Set by sources that keep visits: reads this link's visits page by page. */
  visits?: () => AsyncIterable<SourceVisit[]>;
}

export interface SourcePage {
  links: SourceLink[];
  /** Reads the page after this one; null on the last page. */
  next: string | null;
  /** Links in the whole source, when the source says (progress and time left). */
  total?: number | null;
}

/** What the user gave for a source (stored with the job; the token sealed). */
export interface SourceSettings {
  /** The API's base address (Bitly and Dub have defaults; self-hosted Shlink, YOURLS and Kutt need one). */
  base_url?: string | null;
  /** API key, token or signature. */
  token?: string | null;
  /** Bitly: the group to read (default: every group). */
  group?: string | null;
  /** CSV/JSON: the file's text. */
  file?: string | null;
}

/** A failure reading the source: the job stops with this message and can be resumed. */
export class SourceError extends Error {
  override name = "SourceError";
  constructor(
    message: string,
    /** Retrying later may help (network, 5xx, rate limit beyond what is waited for). */
    readonly transient = true,
  ) {
    super(message);
  }
}

/** The HTTP side every API source uses (source-http.ts): address checks, time bounds, Retry-After. */
export interface SourceFetch {
  /** GET (or POST with a JSON body) and parse JSON; throws SourceError. */
  json(url: string, init?: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: unknown }): Promise<unknown>;
}

export interface ImportSource {
  readonly name: ImportSourceName;
  /** Reads one page: `cursor` null for the first. */
  page(cursor: string | null): Promise<SourcePage>;
}

export type SourceFactory = (settings: SourceSettings, http: SourceFetch) => ImportSource;
