// The link object and link inputs (docs/api.md, Links), shared by the dashboard and external routes.
import { Type, type Static } from "typebox";
import { Body, Nullable, StringEnum, TeamOwnerParam } from "./common.js";
import { TagSchema } from "./tags.js";
import { FolderIdField, FolderIdFilter } from "./folders.js";
import { LinkTargetingProperties, TargetingFields } from "./targeting.js";
import { LINK_HEALTH, LINK_HEALTH_FILTERS, LINK_LIST_SORTS, LINK_LIST_STATES, MAX_BULK_EDIT, MAX_TAG_FILTERS } from "./tables.js";

export { LINK_LIST_SORTS, LINK_LIST_STATES, MAX_BULK_EDIT, MAX_TAG_FILTERS };

/** The card link-preview crawlers get (Open Graph and Twitter tags); every part optional. */
export const LinkPreviewSchema = Type.Object({
  title: Nullable(Type.String()),
  description: Nullable(Type.String()),
  image: Nullable(Type.String({ description: "An https:// image address" })),
});
export type LinkPreview = Static<typeof LinkPreviewSchema>;

export const LinkSchema = Type.Object({
  id: Type.String(),
  short_url: Type.String(),
  alias: Type.String(),
  domain: Nullable(Type.String()),
  url: Type.String(),
  ios_url: Nullable(Type.String()),
  android_url: Nullable(Type.String()),
  expires_at: Nullable(Type.String()),
  max_clicks: Nullable(Type.Integer()),
  has_password: Type.Boolean(),
  click_count: Type.Integer(),
  imported_clicks: Type.Integer({ description: "Clicks the source counted before the link was imported (shown beside click_count)" }),
  owner_id: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  updated_by: Nullable(Type.String({ description: "Id of the account that last edited the link (its owner or a team member)" })),
  updated_by_email: Nullable(Type.String({ description: "Email of that account, when it still exists" })),
  disabled: Nullable(
    Type.Object(
      { reason: Type.String(), status: Type.Integer({ description: "410, or 451 for legal reasons" }), at: Type.String() },
      { description: "Set when an operator disabled the link: visitors get `status` and a page saying so" },
    ),
  ),
  destination_blocked: Type.Boolean({ description: "A destination's host is on the operator's blocklist: visitors get 410" }),
  health: Nullable(
    StringEnum(
      LINK_HEALTH,
      "Its destinations' checks (docs/health.md), the worst of them: broken (three failures in a row), failing (one or two), ok; null while none was checked, or when the instance checks no destination (LINK_CHECKS=off)",
    ),
  ),
  title: Nullable(Type.String()),
  note: Nullable(Type.String({ description: "Private to the owner and team members" })),
  tags: Type.Array(TagSchema, { description: "In name order; at most 10" }),
  folder_id: Nullable(Type.String({ description: "The owner's folder the link is in (docs/folders.md); null: in none" })),
  archived: Type.Boolean({ description: "Archived links keep redirecting and are left out of the list unless state=archived" }),
  expired_url: Nullable(Type.String({ description: "Where visitors go once the link expired or reached its click limit" })),
  preview: Nullable(LinkPreviewSchema),
  last_click_at: Nullable(Type.String({ description: "When the link was last clicked (kept with click_count, a moment behind)" })),
  starts_at: Nullable(Type.String({ description: "Before this moment visitors get 404 `not_started` with the date, and no click counts" })),
  redirect_status: Nullable(Type.Integer({ description: "301, 302, 307 or 308; null: the instance's default (REDIRECT_STATUS, 302 unless set)" })),
  crawlable: Type.Boolean({ description: "Search engines may follow it: /robots.txt allows it and its redirects carry no X-Robots-Tag" }),
  track_conversions: Nullable(
    Type.Boolean({
      description: "Its visitors reach the destination with the click id (snip_id) for conversion tracking; null: the domain's, else the account's default",
    }),
  ),
  app_ios_store_id: Nullable(
    Type.String({ description: "App Store id (digits): iPhone and iPad visitors go to apps.apple.com/app/id<this> (docs/deep-links.md)" }),
  ),
  app_android_package: Nullable(
    Type.String({ description: "Android application id: Android visitors go to its Play Store listing, the click id in the install referrer" }),
  ),
  app_path: Nullable(Type.String({ description: "The in-app path the app opens (handed to the app after the install)" })),
  open_outside: Nullable(
    Type.Boolean({
      description: "Visitors in an in-app browser (Instagram, Facebook, TikTok...) get a way out to the app or the system browser; null: the account's default",
    }),
  ),
  ...LinkTargetingProperties,
});
export type Link = Static<typeof LinkSchema>;

// Lengths here only stop absurd payloads early; the links feature owns the real rules and messages.
const Url = Type.String({ maxLength: 8192 });
const Alias = Type.String({ maxLength: 200 });

/** What describes a link (also accepted by bulk rows and the external API); `null` clears one on edit. */
const LinkDetails = {
  title: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  note: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  tags: Type.Optional(Type.Array(Type.String({ maxLength: 400 }), { maxItems: 100, description: "Tag names; unknown ones are created; at most 10" })),
  folder_id: Type.Optional(Nullable(FolderIdField)),
  expired_url: Type.Optional(Nullable(Url)),
  starts_at: Type.Optional(Nullable(Type.String({ maxLength: 100, description: "ISO 8601 date-time; Pro and up" }))),
  redirect_status: Type.Optional(Nullable(Type.Integer({ description: "301, 302, 307 or 308; null: the instance's default" }))),
  crawlable: Type.Optional(Type.Boolean({ description: "Let search engines follow it (default false)" })),
  track_conversions: Type.Optional(Nullable(Type.Boolean({ description: "Send the click id to the destination (Business and up); null: the default" }))),
  app_ios_store_id: Type.Optional(Nullable(Type.String({ maxLength: 100, description: "App Store id: digits (id123 taken too); null or empty clears" }))),
  app_android_package: Type.Optional(Nullable(Type.String({ maxLength: 300, description: "Android application id such as com.example.shop" }))),
  app_path: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: "In-app path starting with / (at most 1024 characters)" }))),
  open_outside: Type.Optional(Nullable(Type.Boolean({ description: "A way out of in-app browsers; null: the account's default" }))),
  preview: Type.Optional(
    Nullable(
      Body({
        title: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
        description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
        image: Type.Optional(Nullable(Url)),
      }),
    ),
  ),
};

/** The options a link has besides its address; `null` clears one on edit. */
const LinkOptions = {
  domain: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
  expires_at: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  max_clicks: Type.Optional(Nullable(Type.Integer())),
  password: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  ios_url: Type.Optional(Nullable(Url)),
  android_url: Type.Optional(Nullable(Url)),
  ...LinkDetails,
  ...TargetingFields,
  archived: Type.Optional(Type.Boolean({ description: "Archive (true) or restore (false)" })),
};

/** `POST /api/links` and `/api/links/bulk` with it: in a team owner's account (links.create, docs/roles.md). */
export const CreateLinkOwnerQuery = TeamOwnerParam(
  "the link is created in that owner's account, counted against the owner's plan (links.create: members and admins)",
);

export const CreateLinkBody = Body({ url: Url, alias: Type.Optional(Nullable(Alias)), ...LinkOptions });
export type CreateLinkFields = Static<typeof CreateLinkBody>;

export const UpdateLinkBody = Body({ url: Type.Optional(Url), alias: Type.Optional(Alias), ...LinkOptions });
export type UpdateLinkFields = Static<typeof UpdateLinkBody>;

/** The longest page of the link list. */
export const MAX_PAGE = 100;

export type LinkListState = (typeof LINK_LIST_STATES)[number];
export type LinkListSort = (typeof LINK_LIST_SORTS)[number];
export type LinkListOrder = "asc" | "desc";

export const LinkListQuery = Type.Object(
  {
    owner: Type.Optional(Type.String({ maxLength: 64, description: "A team owner's user id: that owner's links, for an active member (404 otherwise)" })),
    q: Type.Optional(Type.String({ maxLength: 500, description: "Searches alias, destination, title, note and tag names (case-insensitive, contains)" })),
    tag: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: MAX_TAG_FILTERS,
        description: "Repeatable (`tag=a&tag=b`): a tag name (ignoring case) or id; links carrying every one given",
      }),
    ),
    folder_id: Type.Optional(FolderIdFilter),
    domain: Type.Optional(
      Type.String({ maxLength: 300, description: "Links on this custom domain; empty (`domain=`) or the service's own host name: links on the main host" }),
    ),
    state: Type.Optional(
      StringEnum(LINK_LIST_STATES, "active, expired, limit_reached, disabled (by an operator) or archived; without it archived links are left out"),
    ),
    has_password: Type.Optional(Type.Boolean({ description: "true: password-protected links only; false: links without a password" })),
    health: Type.Optional(
      StringEnum(LINK_HEALTH_FILTERS, "broken, failing or ok: links whose `health` is that; unchecked: links whose `health` is null (docs/health.md)"),
    ),
    sort: Type.Optional(StringEnum(LINK_LIST_SORTS, "created (default), clicks (stored count), last_click (never-clicked links count as the oldest)")),
    order: Type.Optional(StringEnum<LinkListOrder>(["desc", "asc"], "desc (default) or asc")),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: "next_cursor of the previous page, with the same sort and order" })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })),
  },
  { additionalProperties: false },
);
export type LinkListParams = Static<typeof LinkListQuery>;

export const LinkReply = Type.Object({ status: Type.Literal("success"), link: LinkSchema });
export type LinkReply = Static<typeof LinkReply>;

export const LinkPageReply = Type.Object({
  status: Type.Literal("success"),
  links: Type.Array(LinkSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  total: Type.Integer({ description: "Links matching the filters, on every page (the cursor aside)" }),
});
export type LinkPageReply = Static<typeof LinkPageReply>;

const BulkAlias = Type.Optional(Type.String({ description: "The alias asked for on this row (rows of `links` only)" }));
export const BulkResultSchema = Type.Union([
  Type.Object({ line: Type.Integer(), url: Type.String(), alias: BulkAlias, status: Type.Literal("created"), link: LinkSchema }),
  Type.Object({
    line: Type.Integer(),
    url: Type.String(),
    alias: BulkAlias,
    status: Type.Literal("error"),
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  }),
]);
export type BulkResult = Static<typeof BulkResultSchema>;

/** One row of `links`: a URL and the alias asked for. */
const BulkRowBody = Body({ url: Type.String({ maxLength: 4096 }), alias: Type.Optional(Type.String({ maxLength: 200 })), ...LinkDetails, ...TargetingFields });
export type BulkRowFields = Static<typeof BulkRowBody>;
export const BulkBody = Type.Union([
  Body({ urls: Type.String({ maxLength: 1024 * 1024, description: "One complete URL per line" }) }),
  Body({
    links: Type.Array(BulkRowBody, {
      maxItems: 10_000,
      description: "Rows of a URL and an optional alias (what the dashboard sends for its `url,alias` CSV lines); `line` in the results is the row's position",
    }),
  }),
]);
export type BulkFields = Static<typeof BulkBody>;
export const BulkReply = Type.Object({ status: Type.Literal("success"), results: Type.Array(BulkResultSchema) });
export type BulkReply = Static<typeof BulkReply>;

/** The external creation API's body and answer (docs/api.md, External creation API). */
export const ExternalCreateBody = Body({
  url: Type.String({ maxLength: 4096, description: "Full destination address (http or https)" }),
  alias: Type.Optional(Type.String({ maxLength: 200, description: "Custom short path; generated when absent or empty" })),
  ...LinkDetails,
  ...TargetingFields,
});
export const ExternalCreateReply = Type.Object({ status: Type.Literal("success"), short_url: Type.String(), link: LinkSchema });
export type ExternalCreateReply = Static<typeof ExternalCreateReply>;

/** Changing many links at once (the list's multi-select): archive or restore, add or remove tags, move to a folder. */
const BulkIds = Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: MAX_BULK_EDIT, description: "Link ids (at most 100)" });
export const BulkEditBody = Body({
  ids: BulkIds,
  archived: Type.Optional(Type.Boolean()),
  add_tags: Type.Optional(Type.Array(Type.String({ maxLength: 400 }), { maxItems: 10, description: "Tag names to add (unknown ones are created)" })),
  remove_tags: Type.Optional(Type.Array(Type.String({ maxLength: 400 }), { maxItems: 100, description: "Tag names to remove" })),
  folder_id: Type.Optional(Nullable({ ...FolderIdField, description: "Move the links into this folder of their owner; null: into no folder" })),
});
export type BulkEditFields = Static<typeof BulkEditBody>;
export const BulkDeleteBody = Body({ ids: BulkIds });
export const BulkEditReply = Type.Object({ status: Type.Literal("success"), links: Type.Array(LinkSchema) });
export type BulkEditReply = Static<typeof BulkEditReply>;
export const BulkDeleteReply = Type.Object({ status: Type.Literal("success"), deleted: Type.Integer() });

/** `GET /api/links/sparklines?ids=`: the clicks per day of the last 7 days of up to 100 links (the list's sparklines). */
export const SparklineQuery = Type.Object(
  { ids: Type.String({ maxLength: 100 * 65, description: "Link ids separated by commas (at most 100)" }) },
  { additionalProperties: false },
);
export const SparklineReply = Type.Object({
  status: Type.Literal("success"),
  sparklines: Type.Record(Type.String(), Type.Array(Type.Integer(), { minItems: 7, maxItems: 7 }), {
    description:
      "By link id: 7 daily click counts (UTC days), oldest first, the last one today; ids the caller may not read are absent (a team's whose two-factor policy the caller has not met too: the others still answer)",
  }),
});
export type SparklineReply = Static<typeof SparklineReply>;
export type BulkDeleteReply = Static<typeof BulkDeleteReply>;
