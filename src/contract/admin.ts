// The operator console's shapes (docs/operator.md): accounts, links, the overview, the blocklist, the audit log.
import { Type, type Static } from "typebox";
import { AUDIT_ACTOR_ROLES, LINK_STATES } from "./tables.js";
import { Body, Nullable, PageQuery, StringEnum } from "./common.js";
import { LinkSchema } from "./links.js";
import { PLANS, type Plan } from "./plans.js";
import { LINK_HEALTH_FILTERS, LinkCheckFiguresSchema } from "./health.js";

/** Unsafe only gives the union built from PLANS its type (a mapped array is no tuple); the schema is the union itself. */
export const PlanSchema = Type.Unsafe<Plan>(Type.Union(PLANS.map((p) => Type.Literal(p))));
export const AccountStatusSchema = Type.Union([Type.Literal("active"), Type.Literal("suspended")]);
export type AccountStatus = Static<typeof AccountStatusSchema>;

export const AdminAccountSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  plan: Type.String(),
  status: Type.String(),
  is_admin: Type.Boolean(),
  email_verified: Type.Boolean(),
  created_at: Type.String(),
  last_sign_in_at: Nullable(Type.String()),
  links: Type.Integer({ description: "links the account owns" }),
  clicks: Type.Integer({ description: "their stored click counts summed" }),
});
export type AdminAccount = Static<typeof AdminAccountSchema>;
export const AccountReply = Type.Object({ status: Type.Literal("success"), account: AdminAccountSchema });
export type AccountReply = Static<typeof AccountReply>;
export const AccountPageReply = Type.Object({
  status: Type.Literal("success"),
  accounts: Type.Array(AdminAccountSchema),
  next_cursor: Nullable(Type.String()),
});
export type AccountPageReply = Static<typeof AccountPageReply>;

/** A link as the console lists it: the link object plus its owner's email. */
export const AdminLinkSchema = Type.Object({
  ...LinkSchema.properties,
  owner_email: Nullable(Type.String({ description: "The owner's email; null for a link created signed out" })),
});
export type AdminLink = Static<typeof AdminLinkSchema>;
export const AdminLinkReply = Type.Object({ status: Type.Literal("success"), link: AdminLinkSchema });
export type AdminLinkReply = Static<typeof AdminLinkReply>;
export const AdminLinkPageReply = Type.Object({ status: Type.Literal("success"), links: Type.Array(AdminLinkSchema), next_cursor: Nullable(Type.String()) });
export type AdminLinkPageReply = Static<typeof AdminLinkPageReply>;
/** How many links a bulk disabling disabled. */
export const DisabledCountReply = Type.Object({ status: Type.Literal("success"), disabled: Type.Integer() });
export type DisabledCountReply = Static<typeof DisabledCountReply>;
export { LINK_STATES };
export type LinkState = (typeof LINK_STATES)[number];
export const LinkStateSchema = Type.Unsafe<LinkState>(
  Type.Union(
    LINK_STATES.map((s) => Type.Literal(s)),
    { description: "disabled (by an operator), blocked (a destination on the blocklist), expired, limit_reached (max_clicks used up), active" },
  ),
);
export const DisabledStatusSchema = Type.Union([Type.Literal(410), Type.Literal(451)], {
  description: "What visitors get: 410 (default), or 451 unavailable for legal reasons",
});
/** What visitors of an operator-disabled link get: 410 Gone, or 451 Unavailable for legal reasons. */
export type DisableStatus = Static<typeof DisabledStatusSchema>;

const Count = Type.Integer({ minimum: 0 });
const OverviewProperties = {
  accounts: Type.Object({ total: Count, active: Count, suspended: Count, by_plan: Type.Object(Object.fromEntries(PLANS.map((p) => [p, Count]))) }),
  links: Type.Object({ total: Count, disabled: Count }),
  clicks: Type.Object(
    { today: Count, week: Count },
    { description: "From the daily roll-up, UTC days: today, and today with the six days before (on SQLite up to CLICK_ROLLUP_MS behind)" },
  ),
  top_links: Type.Array(
    Type.Object({
      id: Type.String(),
      alias: Type.String(),
      domain: Nullable(Type.String()),
      short_url: Type.String(),
      url: Type.String(),
      owner_email: Nullable(Type.String()),
      clicks: Count,
    }),
    { description: "This week's ten most clicked links" },
  ),
  reports_open: Count,
  health: Type.Object({
    database: Type.Union([Type.Literal("ok"), Type.Literal("error")]),
    click_writer: Type.Object(
      { pending: Count, oldest_ms: Count, journal_only: Count, journal_bytes: Count, dropped: Count },
      {
        description:
          "This instance: clicks answered and not yet written, and the age of the oldest (0 when none); of them, those held by the click journal alone (past CLICK_MEMORY_MAX) and the journal's bytes; clicks dropped since start (journal off or its disk full)",
      },
    ),
    webhook_queue: Type.Object(
      { queued: Count, dropped: Count },
      { description: "This instance: link_click events waiting or in flight, and events dropped (queue full) since it started" },
    ),
  }),
  blocklist: Type.Object({ console: Count, file: Count }, { description: "Hosts blocked in the console and from BLOCKLIST_FILE" }),
  link_checks: LinkCheckFiguresSchema,
};
export const OverviewSchema = Type.Object(OverviewProperties);
export type AdminOverview = Static<typeof OverviewSchema>;
export const OverviewReply = Type.Object({ status: Type.Literal("success"), ...OverviewProperties });
export type OverviewReply = Static<typeof OverviewReply>;

export const BlockedHostSchema = Type.Object({
  host: Type.String(),
  note: Type.String(),
  source: Type.Literal("console"),
  created_at: Type.String(),
  created_by_email: Type.Union([Type.String(), Type.Null()]),
});
export type BlockedHost = Static<typeof BlockedHostSchema>;

export const BlocklistFileSchema = Type.Object({
  path: Type.Union([Type.String(), Type.Null()]),
  hosts: Type.Integer(),
  skipped_lines: Type.Integer({ description: "Lines of the last good read that were neither an entry, blank nor a comment" }),
  loaded_at: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], { description: "Why the last read failed (the last good list is kept), or null" }),
});
export type BlocklistFile = Static<typeof BlocklistFileSchema>;

export const BlocklistReply = Type.Object({
  status: Type.Literal("success"),
  hosts: Type.Array(BlockedHostSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  file: BlocklistFileSchema,
});
export type BlocklistReply = Static<typeof BlocklistReply>;
// The threat feeds (THREAT_FEEDS): one entry per configured source, as this instance holds it.
export const ThreatFeedSchema = Type.Object({
  format: Type.Union([Type.Literal("urlhaus"), Type.Literal("phishtank")]),
  source: Type.String({ description: "The file's path, or the address without its query" }),
  rows: Type.Integer({ description: "Data rows of the last good read" }),
  hosts: Type.Integer({ description: "Sites listed whole (an address at a site's root): the host and its subdomains are refused" }),
  urls: Type.Integer({ description: "Exact addresses listed" }),
  skipped_rows: Type.Integer({ description: "Rows of the last good read with no usable http(s) address" }),
  loaded_at: Type.Union([Type.String(), Type.Null()], { description: "When the last good read ended, or null before the first" }),
  error: Type.Union([Type.String(), Type.Null()], { description: "Why the last read failed (the last good entries are kept), or null" }),
});
export type ThreatFeedStatus = Static<typeof ThreatFeedSchema>;
export const ThreatFeedsReply = Type.Object({ status: Type.Literal("success"), feeds: Type.Array(ThreatFeedSchema) });
export type ThreatFeedsReply = Static<typeof ThreatFeedsReply>;

export const BlockedHostReply = Type.Object({ status: Type.Literal("success"), host: BlockedHostSchema });
export type BlockedHostReply = Static<typeof BlockedHostReply>;

export const AuditEntrySchema = Type.Object({
  id: Type.String(),
  at: Type.String(),
  actor_id: Type.Union([Type.String(), Type.Null()]),
  actor_email: Type.String(),
  actor_role: StringEnum(
    AUDIT_ACTOR_ROLES,
    "operator: an operator's action in the console; account_holder: an account holder's change to their own account (two-factor sign-in, passkeys, team policy, single sign-on); system: the command line or an automatic check",
  ),
  action: Type.String(),
  target_type: Type.String(),
  target_id: Type.String(),
  summary: Type.String(),
  before: Type.Unknown(),
  after: Type.Unknown(),
});
export type AuditEntry = Static<typeof AuditEntrySchema>;
export const AuditPageReply = Type.Object({
  status: Type.Literal("success"),
  entries: Type.Array(AuditEntrySchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export type AuditPageReply = Static<typeof AuditPageReply>;

/** The longest reason an operator gives for disabling a link, and the longest note beside a blocked host. */
export const REASON_MAX = 500;
export const MAX_NOTE = 500;

export const AccountQuery = Type.Object(
  { q: Type.Optional(Type.String({ maxLength: 254 })), plan: Type.Optional(PlanSchema), status: Type.Optional(AccountStatusSchema), ...PageQuery },
  { additionalProperties: false },
);
export const UpdateAccountBody = Body({ plan: Type.Optional(PlanSchema), status: Type.Optional(AccountStatusSchema) });
export type UpdateAccountFields = Static<typeof UpdateAccountBody>;
export const ConfirmEmailBody = Body({ confirm_email: Type.String({ maxLength: 254 }) });

export const AdminLinkQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 2048 })),
    owner: Type.Optional(Type.String({ maxLength: 254 })),
    domain: Type.Optional(Type.String({ maxLength: 253 })),
    state: Type.Optional(LinkStateSchema),
    health: Type.Optional(
      StringEnum(LINK_HEALTH_FILTERS, "broken, failing or ok: links whose `health` is that; unchecked: links whose `health` is null (docs/health.md)"),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);
const Reason = Type.String({ minLength: 1, maxLength: REASON_MAX, description: "Shown to the link's owner" });
export const DisableBulkBody = Body({
  owner_id: Type.Optional(Type.String({ maxLength: 64 })),
  host: Type.Optional(Type.String({ maxLength: 2048 })),
  reason: Reason,
  status: Type.Optional(DisabledStatusSchema),
});
export const DisableLinkBody = Body({ reason: Reason, status: Type.Optional(DisabledStatusSchema) });

export const BlocklistQuery = Type.Object({ q: Type.Optional(Type.String({ maxLength: 300 })), ...PageQuery }, { additionalProperties: false });
export const BlockHostBody = Body({
  host: Type.String({ minLength: 1, maxLength: 2048 }),
  note: Type.Optional(Type.String({ maxLength: MAX_NOTE })),
});

export const AuditQuery = Type.Object(
  {
    action: Type.Optional(Type.String({ maxLength: 100 })),
    actor: Type.Optional(Type.String({ maxLength: 254 })),
    target: Type.Optional(Type.String({ maxLength: 300 })),
    ...PageQuery,
  },
  { additionalProperties: false },
);
