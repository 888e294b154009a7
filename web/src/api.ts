// The dashboard's only door to the server: JSON calls to /api with the session cookie and CSRF token.
// Every request and answer shape is the server's own (src/contract/), imported as types only.
import type { FieldError } from "@contract/common";
import type { Plan } from "@contract/plans";
import type { EmailSentReply, SessionReply, SignUpFields, SignedInReply, SignedOutReply, SignedUpReply, User, UserReply } from "@contract/accounts";
import type { BulkReply, BulkRowFields, CreateLinkFields, Link, LinkPageReply, LinkReply, UpdateLinkFields } from "@contract/links";
import type { StatsReply } from "@contract/stats";
import type { ResolveParams, ResolveReply } from "@contract/targeting";
import type { InvitationPreviewReply, InvitationReply, MembershipReply, TeamReply } from "@contract/teams";
import type { DomainListReply, DomainReply } from "@contract/domains";
import type { CreatedKeyReply, KeyListReply } from "@contract/api-keys";
import type {
  CreateWebhookFields,
  DeliveryListReply,
  DeliveryReply,
  RotatedSecretReply,
  UpdateWebhookFields,
  WebhookListReply,
  WebhookReply,
  WithSecretReply,
} from "@contract/webhooks";
import type {
  AccountPageReply,
  AccountReply,
  AdminLinkPageReply,
  AdminLinkReply,
  LinkState,
  AuditPageReply,
  BlockedHostReply,
  BlocklistReply,
  DisableStatus,
  DisabledCountReply,
  OverviewReply,
  UpdateAccountFields,
} from "@contract/admin";
import type { ReportPageReply, ReportReply } from "@contract/reports";

/** An error answer from the API (or a network failure, code "network_error"). */
export class ApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
    readonly details: FieldError[] = [],
    readonly requiredPlan?: string,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** Messages keyed by field name, for showing beside form inputs. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const d of this.details) {
      // A schema's paths (rules/2/if/country) read as the server's own checks name fields (rules[2].if.country).
      const key = d.field
        .replace(/^\/?(body[./])?/, "")
        .replace(/^\//, "")
        .replace(/\/(\d+)(?=\/|$)/g, "[$1]")
        .replace(/\//g, ".");
      if (!(key in out)) out[key] = readableFieldMessage(key, d.message);
    }
    return out;
  }

  /** Field messages for the fields a form shows, plus a general message when something else failed. */
  forFields(known: readonly string[]): { fields: Record<string, string>; general: string | null } {
    const all = this.fieldErrors();
    const fields: Record<string, string> = {};
    const other: string[] = [];
    for (const [k, v] of Object.entries(all)) {
      if (known.includes(k)) fields[k] = v;
      else other.push(v);
    }
    if (this.code === "alias_taken" && known.includes("alias") && !fields.alias) fields.alias = this.message;
    const general = Object.keys(fields).length === 0 ? this.message : other.length ? other.join(" ") : null;
    return { fields, general };
  }
}

let csrfToken = "";
let unauthenticatedHandler: (() => void) | null = null;

export function setCsrfToken(token: string | undefined | null): void {
  if (token) csrfToken = token;
}

/** Called on any 401 `unauthenticated` answer (the app sends the user to the sign-in page). */
export function onUnauthenticated(handler: (() => void) | null): void {
  unauthenticatedHandler = handler;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

interface RequestOptions {
  body?: unknown;
  /** Raw body (e.g. a picture file) sent as is with its own content type. */
  raw?: Blob;
  /** Do not run the global 401 handler (pages that handle signed-out state themselves). */
  quiet401?: boolean;
}

export async function request<T>(method: Method, path: string, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  let body: BodyInit | undefined;
  if (opts.raw) {
    body = opts.raw;
    headers["Content-Type"] = opts.raw.type || "application/octet-stream";
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["Content-Type"] = "application/json";
  }
  if (method !== "GET") headers["X-CSRF-Token"] = csrfToken;

  let res: Response;
  try {
    res = await fetch(path, { method, headers, body, credentials: "same-origin" });
  } catch {
    throw new ApiError(0, "network_error", "The server could not be reached. Check your connection and try again.");
  }

  let data: unknown = null;
  const type = res.headers.get("content-type") ?? "";
  if (type.includes("application/json")) {
    try {
      data = await res.json();
    } catch {
      data = null;
    }
  }

  if (!res.ok || (isRecord(data) && data.status === "error")) throw errorOf(res.status, data, opts.quiet401 === true);
  return (data ?? {}) as T;
}

/** The ApiError of an error answer; a 401 unauthenticated runs the app's handler unless `quiet401`. */
function errorOf(status: number, data: unknown, quiet401: boolean): ApiError {
  const d = isRecord(data) ? data : {};
  const code = typeof d.code === "string" ? d.code : `http_${status}`;
  const message =
    typeof d.message === "string" && d.message
      ? d.message
      : status === 429
        ? "Too many attempts. Please wait a moment and try again."
        : `The request failed (HTTP ${status}).`;
  const details = Array.isArray(d.details)
    ? (d.details as unknown[]).filter(isRecord).map((x) => ({ field: String(x.field ?? ""), message: String(x.message ?? "") }))
    : [];
  const err = new ApiError(status, code, message, details, typeof d.required_plan === "string" ? d.required_plan : undefined);
  if (status === 401 && code === "unauthenticated" && !quiet401) unauthenticatedHandler?.();
  return err;
}

/** The live feed's address (GET /api/analytics/live), for an EventSource; `ownerId` a team owner's. */
export function liveFeedUrl(ownerId: string | null): string {
  return ownerId ? `/api/analytics/live?owner=${encodeURIComponent(ownerId)}` : "/api/analytics/live";
}

/**
 * Why the live feed refused (an EventSource is not told): its error, or null when it streams again (the
 * stream is then left at once). A 401 sends the user to the sign-in page like any call.
 */
export async function liveFeedRefusal(ownerId: string | null): Promise<ApiError | null> {
  const abort = new AbortController();
  try {
    const res = await fetch(liveFeedUrl(ownerId), { headers: { Accept: "application/json" }, credentials: "same-origin", signal: abort.signal });
    if (res.ok) {
      abort.abort();
      return null;
    }
    return errorOf(res.status, await res.json().catch(() => null), false);
  } catch {
    return new ApiError(0, "network_error", "The server could not be reached.");
  }
}

/** Server messages may be fragments ("must be 10 to 200 characters"): prefix the field's name then. */
function readableFieldMessage(field: string, message: string): string {
  const msg = message.trim() || "is invalid";
  if (!/^[a-z]/.test(msg)) return msg;
  const last = field.split(".").pop() ?? field;
  const label = last.replace(/_/g, " ").replace(/\burl\b/g, "URL").replace(/\bios\b/g, "iOS");
  return `${label.charAt(0).toUpperCase()}${label.slice(1)} ${msg}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// ---- typed calls -------------------------------------------------------------------------

export const api = {
  async session(): Promise<User | null> {
    const s = await request<SessionReply>("GET", "/api/auth/session");
    setCsrfToken(s.csrf_token);
    return s.user ?? null;
  },
  async signup(email: string, password: string, name?: string): Promise<User> {
    const body: SignUpFields = { email, password };
    if (name) body.name = name;
    const s = await request<SignedUpReply>("POST", "/api/auth/signup", { body, quiet401: true });
    setCsrfToken(s.csrf_token);
    return s.user;
  },
  async login(email: string, password: string): Promise<User> {
    const s = await request<SignedInReply>("POST", "/api/auth/login", { body: { email, password }, quiet401: true });
    setCsrfToken(s.csrf_token);
    return s.user;
  },
  async logout(): Promise<void> {
    try {
      const r = await request<SignedOutReply>("POST", "/api/auth/logout", { quiet401: true });
      setCsrfToken(r.csrf_token);
    } finally {
      await api.session().catch(() => null);
    }
  },
  verifyEmail: (token: string) => request("POST", "/api/auth/verify-email", { body: { token }, quiet401: true }),
  /** email_sent: false when the mail server did not take it now (the server retries it). */
  resendVerification: () => request<EmailSentReply>("POST", "/api/auth/verify-email/resend"),
  requestPasswordReset: (email: string) => request("POST", "/api/auth/password-reset", { body: { email }, quiet401: true }),
  confirmPasswordReset: (token: string, password: string) =>
    request("POST", "/api/auth/password-reset/confirm", { body: { token, password }, quiet401: true }),

  createLink: (body: CreateLinkFields, quiet401 = false) =>
    request<LinkReply>("POST", "/api/links", { body, quiet401 }).then((r) => r.link),
  listLinks: (q: string, cursor: string | null, limit = 20, owner?: string) => {
    const p = new URLSearchParams({ limit: String(limit) });
    if (owner) p.set("owner", owner);
    if (q) p.set("q", q);
    if (cursor) p.set("cursor", cursor);
    return request<LinkPageReply>("GET", `/api/links?${p}`);
  },
  getLink: (id: string) => request<LinkReply>("GET", `/api/links/${encodeURIComponent(id)}`).then((r) => r.link),
  updateLink: (id: string, body: UpdateLinkFields) =>
    request<LinkReply>("PATCH", `/api/links/${encodeURIComponent(id)}`, { body }).then((r) => r.link),
  deleteLink: (id: string) => request("DELETE", `/api/links/${encodeURIComponent(id)}`),
  bulkCreate: (links: BulkRowFields[]) => request<BulkReply>("POST", "/api/links/bulk", { body: { links } }).then((r) => r.results),
  /** Where a visit with these traits would go, by the link's saved rules and split. */
  resolveLink: (id: string, visit: ResolveParams) =>
    request<ResolveReply>("GET", `/api/links/${encodeURIComponent(id)}/resolve?${new URLSearchParams(visit as Record<string, string>)}`),
  /** A link's statistics over a period: `range` or `from`/`to`, and `tz` (stats/period.ts builds it). */
  stats: (id: string, period: URLSearchParams) => request<StatsReply>("GET", `/api/links/${encodeURIComponent(id)}/stats?${period}`),

  profile: () => request<UserReply>("GET", "/api/profile").then((r) => r.user),
  updateProfile: (name: string) =>
    request<UserReply>("PATCH", "/api/profile", { body: { name } }).then((r) => r.user),
  uploadPicture: (file: File) =>
    request<UserReply>("PUT", "/api/profile/picture", { raw: file }),
  changePassword: (current_password: string, new_password: string) =>
    request("POST", "/api/profile/password", { body: { current_password, new_password } }),
  cancelSubscription: () => request<UserReply>("POST", "/api/subscription/cancel"),
  async deleteAccount(password: string): Promise<void> {
    const r = await request<SignedOutReply>("DELETE", "/api/account", { body: { password }, quiet401: true });
    setCsrfToken(r.csrf_token);
  },

  team: () => request<TeamReply>("GET", "/api/team"),
  invite: (email: string) => request<InvitationReply>("POST", "/api/team/invitations", { body: { email } }).then((r) => r.invitation),
  resendInvitation: (id: string) =>
    request<InvitationReply>("POST", `/api/team/invitations/${encodeURIComponent(id)}/resend`).then((r) => r.invitation),
  cancelInvitation: (id: string) => request("DELETE", `/api/team/invitations/${encodeURIComponent(id)}`),
  removeMember: (userId: string) => request("DELETE", `/api/team/members/${encodeURIComponent(userId)}`),
  leaveTeam: (ownerId: string) => request("DELETE", `/api/memberships/${encodeURIComponent(ownerId)}`),
  previewInvitation: (token: string) =>
    request<InvitationPreviewReply>("POST", "/api/invitations/preview", { body: { token }, quiet401: true }).then((r) => r.invitation),
  acceptInvitation: (token: string) =>
    request<MembershipReply>("POST", "/api/invitations/accept", { body: { token }, quiet401: true }).then((r) => r.membership),
  listDomains: () => request<DomainListReply>("GET", "/api/domains").then((r) => r.domains),
  addDomain: (hostname: string) => request<DomainReply>("POST", "/api/domains", { body: { hostname } }).then((r) => r.domain),
  verifyDomain: (id: string) => request<DomainReply>("POST", `/api/domains/${encodeURIComponent(id)}/verify`).then((r) => r.domain),
  deleteDomain: (id: string) => request("DELETE", `/api/domains/${encodeURIComponent(id)}`),

  listKeys: () => request<KeyListReply>("GET", "/api/keys").then((r) => r.keys),
  createKey: (name: string) => request<CreatedKeyReply>("POST", "/api/keys", { body: { name } }),
  revokeKey: (id: string) => request("DELETE", `/api/keys/${encodeURIComponent(id)}`),

  /** The webhooks, and whether WEBHOOK_ALLOW_PRIVATE lets receivers be on loopback and private networks. */
  listWebhooks: () => request<WebhookListReply>("GET", "/api/webhooks"),
  createWebhook: (body: CreateWebhookFields) =>
    request<WithSecretReply>("POST", "/api/webhooks", { body }),
  updateWebhook: (id: string, body: UpdateWebhookFields) =>
    request<WebhookReply>("PATCH", `/api/webhooks/${encodeURIComponent(id)}`, { body }).then((r) => r.webhook),
  deleteWebhook: (id: string) => request("DELETE", `/api/webhooks/${encodeURIComponent(id)}`),
  rotateWebhookSecret: (id: string) => request<RotatedSecretReply>("POST", `/api/webhooks/${encodeURIComponent(id)}/secret`),
  testWebhook: (id: string) => request<DeliveryReply>("POST", `/api/webhooks/${encodeURIComponent(id)}/test`).then((r) => r.delivery),
  webhookDeliveries: (id: string) =>
    request<DeliveryListReply>("GET", `/api/webhooks/${encodeURIComponent(id)}/deliveries`).then((r) => r.deliveries),
};

// ---- helpers shared by pages -----------------------------------------------------------

const PLAN_RANK: Record<Plan, number> = { free: 0, pro: 1, business: 2, enterprise: 3 };

/** True when `plan` is `min` or above (free < pro < business < enterprise). */
export function planAtLeast(plan: string | undefined, min: Plan): boolean {
  return (PLAN_RANK[plan as Plan] ?? 0) >= PLAN_RANK[min];
}

export function planLabel(plan: string): string {
  return plan === "free" ? "Free" : plan.charAt(0).toUpperCase() + plan.slice(1);
}

/** QR image address for a link (public endpoint). */
export function qrUrl(link: Pick<Link, "alias" | "domain">): string {
  const base = `/api/qr/${encodeURIComponent(link.alias)}`;
  return link.domain ? `${base}?${new URLSearchParams({ domain: link.domain })}` : base;
}

/** The invitation a visitor is in the middle of accepting (kept across sign-up and email verification). */
const PENDING_INVITATION = "snip.pendingInvitation";

export const pendingInvitation = {
  get(): string | null {
    try {
      return window.localStorage.getItem(PENDING_INVITATION);
    } catch {
      return null;
    }
  },
  set(token: string): void {
    try {
      window.localStorage.setItem(PENDING_INVITATION, token);
    } catch {
      /* private mode: the next= parameter still carries it */
    }
  },
  clear(): void {
    try {
      window.localStorage.removeItem(PENDING_INVITATION);
    } catch {
      /* nothing to clear */
    }
  },
};

export function invitationPath(token: string): string {
  return `/app/invitations/accept?${new URLSearchParams({ token })}`;
}

// ---- operator console (docs/operator.md) ------------------------------------------------

/** A query string from the filters that are set (empty strings and nulls dropped). */
function query(params: Record<string, string | number | null | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "") continue;
    p.set(k, String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : "";
}

const id = encodeURIComponent;

export const adminApi = {
  overview: () => request<OverviewReply>("GET", "/api/admin/overview"),

  accounts: (f: { q?: string; plan?: string; status?: string; cursor?: string | null; limit?: number }) =>
    request<AccountPageReply>("GET", `/api/admin/accounts${query(f)}`),
  account: (accountId: string) => request<AccountReply>("GET", `/api/admin/accounts/${id(accountId)}`).then((r) => r.account),
  updateAccount: (accountId: string, body: UpdateAccountFields) =>
    request<AccountReply>("PATCH", `/api/admin/accounts/${id(accountId)}`, { body }).then((r) => r.account),
  deleteAccount: (accountId: string, confirm_email: string) => request("DELETE", `/api/admin/accounts/${id(accountId)}`, { body: { confirm_email } }),

  links: (f: { q?: string; owner?: string; domain?: string; state?: string; cursor?: string | null; limit?: number }) =>
    request<AdminLinkPageReply>("GET", `/api/admin/links${query(f)}`),
  disableLink: (linkId: string, reason: string, status: DisableStatus) =>
    request<AdminLinkReply>("POST", `/api/admin/links/${id(linkId)}/disable`, { body: { reason, status } }).then((r) => r.link),
  enableLink: (linkId: string) => request<AdminLinkReply>("POST", `/api/admin/links/${id(linkId)}/enable`).then((r) => r.link),
  disableBulk: (body: ({ owner_id: string } | { host: string }) & { reason: string; status?: DisableStatus }) =>
    request<DisabledCountReply>("POST", "/api/admin/links/disable-bulk", { body }).then((r) => r.disabled),

  blocklist: (f: { q?: string; cursor?: string | null; limit?: number }) =>
    request<BlocklistReply>("GET", `/api/admin/blocklist${query(f)}`),
  blockHost: (host: string, note: string) =>
    request<BlockedHostReply>("POST", "/api/admin/blocklist", { body: note ? { host, note } : { host } }).then((r) => r.host),
  unblockHost: (host: string) => request("DELETE", `/api/admin/blocklist/${id(host)}`),

  reports: (f: { state?: string; cursor?: string | null; limit?: number }) =>
    request<ReportPageReply>("GET", `/api/admin/reports${query(f)}`),
  dismissReport: (reportId: string) => request<ReportReply>("POST", `/api/admin/reports/${id(reportId)}/dismiss`).then((r) => r.report),
  reportDisableLink: (reportId: string, body: { reason?: string; status?: DisableStatus }) =>
    request<ReportReply>("POST", `/api/admin/reports/${id(reportId)}/disable-link`, { body }).then((r) => r.report),
  reportBanOwner: (reportId: string, body: { reason?: string }) =>
    request<ReportReply>("POST", `/api/admin/reports/${id(reportId)}/ban-owner`, { body }).then((r) => r.report),

  audit: (f: { action?: string; actor?: string; target?: string; cursor?: string | null; limit?: number }) =>
    request<AuditPageReply>("GET", `/api/admin/audit${query(f)}`),
};

export type LinkStateFields = Pick<Link, "disabled" | "destination_blocked" | "expires_at" | "max_clicks" | "click_count">;

/** What a visitor of the link meets now: an operator's decision first, then the link's own expiry and click limit. */
export function linkState(l: LinkStateFields, now = Date.now()): LinkState {
  if (l.disabled) return "disabled";
  if (l.destination_blocked) return "blocked";
  if (l.expires_at && Date.parse(l.expires_at) <= now) return "expired";
  if (l.max_clicks != null && l.click_count >= l.max_clicks) return "limit_reached";
  return "active";
}
