// The contract's tables and limits without a schema around them: what the schema files build their schemas
// from, and what the dashboard imports at run time (this file imports nothing, so no schema code is bundled).

/** Links changed, deleted or read (sparklines) in one request. */
export const MAX_BULK_EDIT = 100;
/** `tag` filters in one list request (a link carries at most 10 tags, so more could never all match). */
export const MAX_TAG_FILTERS = 10;
/** The list's `state` filter: disabled (by an operator), else expired, else limit_reached, else active; archived apart. */
export const LINK_LIST_STATES = ["active", "expired", "limit_reached", "disabled", "archived"] as const;
export const LINK_LIST_SORTS = ["created", "clicks", "last_click"] as const;
/** A link's `health` (docs/health.md): its worst checked destination; null (not here) while none was checked or checks are off. */
export const LINK_HEALTH = ["ok", "failing", "broken"] as const;
/** The list's `health` filter: a link's `health`, or `unchecked` (health null). */
export const LINK_HEALTH_FILTERS = ["broken", "failing", "ok", "unchecked"] as const;
/** A link's states in the order visitors meet them (resolve-link.ts): each state excludes the ones before it. */
export const LINK_STATES = ["disabled", "blocked", "expired", "limit_reached", "active"] as const;
export const REPORT_STATES = ["open", "dismissed", "link_disabled", "owner_banned"] as const;

/** The named ranges (clicks/period.ts). */
export const RANGE_NAMES = ["24h", "7d", "30d", "90d", "mtd", "lastmonth", "12mo", "all"] as const;

export const MAX_RULES = 20;
export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 4;
export const DEVICES = ["ios", "android", "mobile", "tablet", "desktop", "bot"] as const;

export const IMPORT_SOURCE_NAMES = ["bitly", "shlink", "yourls", "kutt", "dub", "csv", "firebase"] as const;
/** The sources read from an uploaded file (`file`) rather than an API (`base_url`, `token`). */
export const FILE_IMPORT_SOURCES = ["csv", "firebase"] as const satisfies readonly (typeof IMPORT_SOURCE_NAMES)[number][];
/** The source reads an uploaded file (a CSV or snip's JSON export, Firebase's Dynamic Links CSV), not an API. */
export function isFileSource(source: string): source is (typeof FILE_IMPORT_SOURCES)[number] {
  return (FILE_IMPORT_SOURCES as readonly string[]).includes(source);
}
export const IMPORT_STATES = ["queued", "running", "done", "failed", "cancelled"] as const;
/** A job that has not ended yet. */
export const ACTIVE_IMPORT_STATES = ["queued", "running"] as const satisfies readonly (typeof IMPORT_STATES)[number][];
/** The largest file an import reads (the request's body limit is set from it). */
export const MAX_IMPORT_FILE_BYTES = 20 * 1024 * 1024;

/** Members and pending invitations of one team together. */
export const MAX_COLLABORATORS = 2;
/** Webhooks of one account. */
export const MAX_WEBHOOKS = 5;
/** The largest profile picture. */
export const MAX_PICTURE_BYTES = 2 * 1024 * 1024;

/** Every scope an API key can carry, in the order the dashboard and the answers list them (api-keys.ts). */
export const API_KEY_SCOPES = [
  "links:create",
  "links:read",
  "links:write",
  "stats:read",
  "export",
  "conversions:write",
  "deeplinks:open",
  "shares:read",
  "shares:write",
  "bio_pages:read",
  "bio_pages:write",
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
/** A key created without `scopes`, and every key made before scopes existed (migration 026): the spec's creation API. */
export const DEFAULT_KEY_SCOPES: readonly ApiKeyScope[] = ["links:create"];
/** What each scope allows, for the dashboard's form and the docs. */
export const SCOPE_LABELS: Readonly<Record<ApiKeyScope, string>> = {
  "links:create": "Create links (POST /api/external-create.php)",
  "links:read": "List and read links",
  "links:write": "Create, edit and delete links",
  "stats:read": "Read link statistics",
  export: "Export every link (CSV or JSON)",
  "conversions:write": "Record leads, sales and refunds; read and erase customers",
  "deeplinks:open": "Ask which link opened the app (POST /api/deeplinks/open); alone, a publishable key safe to ship in an app",
  "shares:read": "List the shared statistics pages",
  "shares:write": "Share statistics and stop sharing them",
  "bio_pages:read": "List and read bio pages with their views and clicks",
  "bio_pages:write": "Create, edit and delete bio pages",
};

/** The events a webhook can take, in the registry's order (contract/webhooks.ts WEBHOOK_EVENTS; test/unit/webhook-event-messages.test.ts keeps them alike), with the dashboard's words. */
export const WEBHOOK_EVENT_LABELS = [
  { event: "link_click", label: "Clicks", hint: "Every click on the account's links" },
  { event: "lead.created", label: "Leads", hint: "A sign-up or other lead recorded for a click" },
  { event: "sale.created", label: "Sales", hint: "A sale recorded for a customer" },
  { event: "link.split_decided", label: "A/B split decided", hint: "A split test found its winner" },
  { event: "app.install", label: "App installs", hint: "An app's first open after a store visit" },
  { event: "app.open", label: "App opens", hint: "An app opened through a short link" },
  { event: "link.broken", label: "Broken links", hint: "A destination failed three checks in a row" },
  { event: "link.recovered", label: "Recovered links", hint: "A broken destination answers again" },
] as const;

/** Who made an audit entry (docs/operator.md, Audit log): an operator in the console, an account holder on their own account, or the system. */
export const AUDIT_ACTOR_ROLES = ["operator", "account_holder", "system"] as const;
export type AuditActorRole = (typeof AUDIT_ACTOR_ROLES)[number];
/** How the audit log names each role. */
export const AUDIT_ACTOR_LABELS: Readonly<Record<AuditActorRole, string>> = {
  operator: "Operator",
  account_holder: "Account holder",
  system: "System",
};

/** What a split that picks its winner compares (docs/conversions.md, Splits that pick their winner). */
export const SPLIT_GOALS = ["clicks", "leads", "sales", "revenue"] as const;
/** The most visits per variant a split may wait for. */
export const MAX_SPLIT_MIN_VISITS = 100_000_000;

// Team roles (docs/roles.md): the table the server enforces and the dashboard reads.
export * from "./roles.js";
/** A folder's name, in characters (docs/folders.md). */
export const MAX_FOLDER_NAME = 60;
/** Folders one account may hold. */
export const MAX_FOLDERS_PER_OWNER = 200;

/** Shared statistics pages one account may hold (docs/sharing.md). */
export const MAX_SHARES_PER_OWNER = 100;
/** The panels a shared statistics page can show, in the page's order (docs/sharing.md). */
export const SHARE_PANELS = ["clicks", "visitors", "countries", "devices", "referrers", "conversions"] as const;
/** Bio pages one account may hold, and blocks one page may carry (docs/bio-pages.md). */
export const MAX_BIO_PAGES_PER_OWNER = 20;
export const MAX_BIO_BLOCKS = 50;
/** A bio page's title, description and a block's text, in characters. */
export const MAX_BIO_TITLE = 100;
export const MAX_BIO_DESCRIPTION = 500;
export const MAX_BIO_TEXT = 500;
/** A bio page's themes: the visitor's light or dark setting (auto), always light, always dark, or the owner's colours. */
export const BIO_THEMES = ["auto", "light", "dark", "custom"] as const;
/** The kinds of block a bio page is made of, top to bottom. */
export const BIO_BLOCK_TYPES = ["link", "heading", "text", "social"] as const;
/** The networks a social block may name, with the label its icon shows. */
export const BIO_SOCIAL_NETWORKS = [
  "instagram",
  "x",
  "facebook",
  "linkedin",
  "youtube",
  "tiktok",
  "github",
  "mastodon",
  "bluesky",
  "threads",
  "pinterest",
  "twitch",
  "email",
  "website",
] as const;
export const BIO_SOCIAL_LABELS: Readonly<Record<(typeof BIO_SOCIAL_NETWORKS)[number], string>> = {
  instagram: "Instagram",
  x: "X",
  facebook: "Facebook",
  linkedin: "LinkedIn",
  youtube: "YouTube",
  tiktok: "TikTok",
  github: "GitHub",
  mastodon: "Mastodon",
  bluesky: "Bluesky",
  threads: "Threads",
  pinterest: "Pinterest",
  twitch: "Twitch",
  email: "Email",
  website: "Website",
};
/** `folder_id=none`: the links in no folder (the list, analytics and the export). */
export const NO_FOLDER = "none";
/** Folders one API key may be limited to. */
export const MAX_KEY_FOLDERS = 50;

/**
 * One case for every label of a statistics page (the dashboard's and the shared one): "mobile", "unknown" and "bot"
 * read as "Mobile", "Unknown", "Bot", like "Chrome".
 */
const KNOWN_CASE: Readonly<Record<string, string>> = { ios: "iOS", macos: "macOS", ipados: "iPadOS", chromeos: "ChromeOS" };

export function labelCase(label: string): string {
  // Names that carry their own capitals (iOS, macOS) keep them.
  if (/[A-Z]/.test(label)) return label;
  const known = KNOWN_CASE[label];
  return known ?? label.charAt(0).toUpperCase() + label.slice(1);
}
