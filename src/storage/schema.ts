// Row types of every table, combined into the one Database type Kysely checks queries against.
// Times are epoch milliseconds (bigint); flags are 0/1 integers, identical on SQLite and PostgreSQL.
import type { Generated, Insertable, Selectable, Updateable } from "kysely";
import type {
  ClickBreakdownMonthTable,
  ClickBreakdownTable,
  ClickDailyTable,
  ClickHourlyTable,
  ClickJournalTable,
  ClickRollupStateTable,
  ClickVisitorsTable,
  ClicksTable,
  OwnerBreakdownMonthTable,
  OwnerBreakdownTable,
  OwnerDailyTable,
  OwnerHourlyTable,
  VisitorSaltsTable,
} from "./click-tables.js";

export type * from "./click-tables.js";
import type { AdminTables } from "./admin-tables.js";
import type { ConversionTables } from "./conversion-tables.js";
import type { StripeTables } from "./stripe-tables.js";
export type * from "./stripe-tables.js";
import type { DeeplinkTables } from "./deeplink-tables.js";
export type * from "./deeplink-tables.js";
export type * from "./admin-tables.js";
import type { ImportTables } from "./import-tables.js";
export type * from "./import-tables.js";
import type { PasskeyTables } from "./passkey-tables.js";
export type * from "./passkey-tables.js";
import type { SecurityTables } from "./security-tables.js";
import type { StreamTables } from "./stream-tables.js";
import type { FolderTables } from "./folder-tables.js";
import type { ScimTables } from "./scim-tables.js";
import type { ShareTables } from "./share-tables.js";
import type { HealthTables } from "./health-tables.js";
import type { BioTables } from "./bio-tables.js";
import type { TeamInvitationsTable, TeamTables } from "./team-tables.js";
export type * from "./folder-tables.js";
export type * from "./scim-tables.js";
export type * from "./share-tables.js";
export type * from "./bio-tables.js";
export type * from "./stream-tables.js";
export type * from "./security-tables.js";

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  name: string;
  email_verified_at: number | null;
  plan: string;
  status: string;
  picture_updated_at: number | null;
  created_at: number;
  updated_at: number;
  /** 1 for an operator (the console under /app/admin and /api/admin/). */
  is_admin: Generated<number>;
  last_sign_in_at: number | null;
  /** Enterprise: 1 when the owner requires two-factor sign-in of team members (migration 025). */
  team_require_2fa: Generated<number>;
  /** 1: the account's links track conversions unless their domain or the link says otherwise (migration 042). */
  track_conversions: Generated<number>;
  /** 1: in-app browsers get a way out of the account's links that say nothing (migration 046). */
  open_outside: Generated<number>;
  /** The query parameter the click id is sent in (default snip_id). */
  conversion_param: Generated<string>;
  /** Days a click may lead to a conversion (default 90). */
  attribution_days: Generated<number>;
}

export interface UserPicturesTable {
  user_id: string;
  mime: string;
  data: Buffer;
  updated_at: number;
}

export interface SessionsTable {
  id_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
  /** What GET /api/auth/sessions names the session by: random, never the cookie or its hash (migration 025). */
  public_id: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
  /** The way in that made the session (src/auth/ways.ts; migration 039); null for older sessions. */
  way: string | null;
  /** When the owner last proved who they are in this session (sign-in or POST /api/auth/reauth): sudo mode. */
  reauth_at: number | null;
}

export interface EmailTokensTable {
  token_hash: string;
  user_id: string;
  purpose: string;
  email: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

/**
 * PostgreSQL only (migration 061): each link's click count and last click (0: never) with its owner, copied
 * from links by triggers, for the list's sorts by clicks and last click (its indexes; links has none on them).
 */
export interface LinkClickOrderTable {
  link_id: string;
  owner_id: string | null;
  click_count: number;
  last_click_key: number;
  /** The link's clicks in the months before the last compacted one, or fewer (migration 065): what account analytics' short periods bound by. */
  base_count: Generated<number>;
}

export interface LinksTable {
  /** Assigned at insert, never reused: what raw clicks refer to their link by. */
  num: Generated<number>;
  id: string;
  /** Hostname of a custom domain, or "" for BASE_URL's host. */
  domain: string;
  alias: string;
  url: string;
  ios_url: string | null;
  android_url: string | null;
  expires_at: number | null;
  max_clicks: number | null;
  password_hash: string | null;
  click_count: Generated<number>;
  owner_id: string | null;
  created_at: number;
  updated_at: number;
  /** The account that last edited the link (its owner or a team member); null until edited. */
  updated_by: string | null;
  /** Set by an operator: visitors get disabled_status (410 or 451) and the owner sees disabled_reason. */
  disabled_at: number | null;
  disabled_status: number | null;
  disabled_reason: string | null;
  /** Shown in lists and search (migration 018). */
  title: string | null;
  /** Private to the owner and members. */
  note: string | null;
  /** Set while archived: still redirects, hidden from the list unless state=archived. */
  archived_at: number | null;
  /** Visitors of an expired or used-up link are sent here instead of the 410/403 page. */
  expired_url: string | null;
  /** The card link-preview crawlers get (Open Graph and Twitter tags). */
  preview_title: string | null;
  preview_description: string | null;
  preview_image: string | null;
  /** Latest click written with click_count (null: never clicked). */
  last_click_at: number | null;
  /** Redirect rules, JSON of contract/targeting.ts's Rule[] (migration 021); null when none. */
  rules: string | null;
  /** A weighted split, JSON of Variant[] (migration 021); null when none. */
  split: string | null;
  /** Clicks a source counted before the link was imported (migration 024), shown beside click_count. */
  imported_clicks: Generated<number>;
  /** Visitors before this moment get a "not open yet" page, no click (migration 032). */
  starts_at: number | null;
  /** 301, 302, 307 or 308; null: the instance's REDIRECT_STATUS. */
  redirect_status: number | null;
  /** 1: /robots.txt allows it and its redirects carry no X-Robots-Tag. */
  crawlable: Generated<number>;
  /** A split's goal: clicks, leads, sales or revenue; null: no end, no winner picked (migration 043). */
  split_goal: string | null;
  /** When the split ends (epoch ms), or null. */
  split_ends_at: number | null;
  /** The split ends once every variant has this many visits, or null. */
  split_min_visits: number | null;
  /** When the split or its goal was last set: its figures count from then. */
  split_started_at: number | null;
  /** JSON of the last decision (conversions/split-winner.ts), null while undecided. */
  split_decision: string | null;
  /** 1 or 0: tracks conversions (the click id to the destination); null: its domain's, else its account's default (migration 042). */
  track_conversions: number | null;
  /** The App Store id (digits) of the app its iPhone visitors are sent to the store of (migration 046). */
  app_ios_store_id: string | null;
  /** The Android package name of the app its Android visitors are sent to the Play Store of. */
  app_android_package: string | null;
  /** The in-app path the app opens (given to the app after the install). */
  app_path: string | null;
  /** 1 or 0: in-app browsers get a way out; null: the account's default. */
  open_outside: number | null;
  /** The owner's folder it is in (migration 050); null: in none. */
  folder_id: string | null;
}

/** Requests that matched no link, counted per day, host ("" the main host), path, referrer host, device class (migration 033). */
export interface OrphanVisitsTable {
  day: string;
  host: string;
  path: string;
  referrer_host: string;
  device: string;
  visits: number;
}

/** An alias a link gave up (deleted or renamed): only its last owner may claim it again (migration 008). */
export interface AliasReservationsTable {
  domain: string;
  alias: string;
  /** The last owner's id (kept after the account is deleted); null for a signed-out link: nobody's. */
  owner_id: string | null;
  released_at: number;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  /** JSON array of scopes (contract/api-keys.ts, API_KEY_SCOPES). */
  scopes: string;
  created_at: number;
  /** Refused from this time on; null: never. */
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  /** JSON array of folder ids the key is limited to (migration 050); null: every link of the account. */
  folder_ids: string | null;
}

export interface ApiCreationsTable {
  id: Generated<number>;
  key_id: string;
  at: number;
}

export interface RateEventsTable {
  id: Generated<number>;
  bucket: string;
  at: number;
}

export interface WebhooksTable {
  id: string;
  owner_id: string;
  name: string;
  url: string;
  /** "custom" | "slack" | "discord" | "teams" */
  kind: string;
  /** The whsec_ secret, AES-256-GCM encrypted (webhooks/secrets.ts); null for connector kinds. */
  secret_enc: string | null;
  active: number;
  /** Events dropped because the webhook's queue was full (all instances). */
  dropped: Generated<number>;
  created_at: number;
  updated_at: number;
  /** The event types it takes, comma-separated (webhooks/webhook-events.ts); link_click by default (migration 044). */
  events: Generated<string>;
}

export interface WebhookDeliveriesTable {
  /** The X-Snip-Delivery id. */
  id: string;
  webhook_id: string;
  /** "link_click" */
  event: string;
  at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** 1 for the dashboard's "Send test" event. */
  test: Generated<number>;
  /** The request body as sent (JSON); null for deliveries logged before it was kept. */
  payload: string | null;
}

export interface MailOutboxTable {
  id: string;
  /** Replaces a queued message with the same key ("verify:<user>", "reset:<user>", "invitation:<id>"). */
  key: string | null;
  /** The sealed message (shared/secret-box.ts). */
  message_enc: string;
  created_at: number;
  expires_at: number | null;
  attempts: number;
  /** Due time of the next attempt, or the end of the running attempt's claim. */
  next_attempt_at: number;
  last_error: string | null;
}

export interface DomainsTable {
  id: string;
  owner_id: string;
  /** Lowercase ASCII (punycode), no trailing dot. */
  hostname: string;
  status: "pending" | "verified";
  /** The value the TXT record must hold (random, new each time a hostname is added). */
  txt_token: string;
  next_action: string | null;
  last_checked_at: number | null;
  verified_at: number | null;
  lost_at: number | null;
  next_check_at: number | null;
  verify_requested_at: number | null;
  created_at: number;
  /** 1 or 0: the default of its links for conversion tracking; null: the account's (migration 042). */
  track_conversions: number | null;
}

/** An owner's label for links (migration 017). */
export interface TagsTable {
  id: string;
  owner_id: string;
  name: string;
  /** lower(name): unique per owner. */
  name_key: string;
  color: string;
  created_at: number;
}

export interface LinkTagsTable {
  link_id: string;
  tag_id: string;
}

/** An owner's saved UTM values for the link form (migration 019); null for a parameter the template leaves out. */
export interface UtmTemplatesTable {
  id: string;
  owner_id: string;
  name: string;
  /** lower(name): unique per owner. */
  name_key: string;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  created_at: number;
}

export interface Database
  extends
    AdminTables,
    ConversionTables,
    DeeplinkTables,
    FolderTables,
    HealthTables,
    ImportTables,
    PasskeyTables,
    ScimTables,
    SecurityTables,
    ShareTables,
    BioTables,
    StreamTables,
    StripeTables,
    TeamTables {
  users: UsersTable;
  user_pictures: UserPicturesTable;
  sessions: SessionsTable;
  email_tokens: EmailTokensTable;
  links: LinksTable;
  /** PostgreSQL only: the sorts by clicks and last click (migration 061). */
  link_click_order: LinkClickOrderTable;
  alias_reservations: AliasReservationsTable;
  clicks: ClicksTable;
  /** SQLite only: raw clicks not yet moved into clicks by a roll-up (migration 007). */
  click_staging: ClicksTable;
  click_daily: ClickDailyTable;
  click_breakdown: ClickBreakdownTable;
  click_breakdown_month: ClickBreakdownMonthTable;
  click_hourly: ClickHourlyTable;
  click_visitors: ClickVisitorsTable;
  visitor_salts: VisitorSaltsTable;
  owner_daily: OwnerDailyTable;
  owner_hourly: OwnerHourlyTable;
  owner_breakdown: OwnerBreakdownTable;
  owner_breakdown_month: OwnerBreakdownMonthTable;
  click_rollup_state: ClickRollupStateTable;
  click_journal: ClickJournalTable;
  api_keys: ApiKeysTable;
  api_creations: ApiCreationsTable;
  rate_events: RateEventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  domains: DomainsTable;
  mail_outbox: MailOutboxTable;
  tags: TagsTable;
  link_tags: LinkTagsTable;
  utm_templates: UtmTemplatesTable;
  orphan_visits: OrphanVisitsTable;
}

export type UserRow = Selectable<UsersTable>;
export type LinkRow = Selectable<LinksTable>;
export type NewLink = Insertable<LinksTable>;
export type LinkUpdate = Updateable<LinksTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type { MemberOrigin } from "./team-tables.js";
export type TeamInvitationRow = Selectable<TeamInvitationsTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type DomainRow = Selectable<DomainsTable>;
