// The dashboard's only door to the server: JSON calls to /api with the session cookie and CSRF token.

export type Plan = "free" | "pro" | "business" | "enterprise";

export interface User {
  id: string;
  email: string;
  name: string | null;
  email_verified: boolean;
  plan: Plan;
  status: "active" | "suspended";
  created_at: string;
  picture_url: string | null;
  /** An operator of this service (the console under /app/admin). */
  is_admin: boolean;
}

export interface Link {
  id: string;
  short_url: string;
  alias: string;
  domain: string | null;
  url: string;
  ios_url: string | null;
  android_url: string | null;
  expires_at: string | null;
  max_clicks: number | null;
  has_password: boolean;
  click_count: number;
  owner_id: string | null;
  created_at: string;
  updated_at: string;
  /** The account that last edited the link (its owner or a team member), and its email. */
  updated_by: string | null;
  updated_by_email: string | null;
  /** Set when an operator disabled the link: why, and what visitors get (410 or 451). */
  disabled: { reason: string; status: number; at: string } | null;
  /** A destination is on the operator's blocklist: visitors get 410. */
  destination_blocked: boolean;
}

export interface Invitation {
  id: string;
  email: string;
  state: string;
  sent_at: string;
  send_confirmed: boolean;
  expires_at: string;
  can_resend_at: string;
}

export interface Member {
  user_id: string;
  email: string;
  name: string;
  joined_at: string;
}

export interface Membership {
  owner_id: string;
  owner_email: string;
  owner_name: string;
  joined_at: string;
  active: boolean;
}

export interface Team {
  members: Member[];
  invitations: Invitation[];
  memberships: Membership[];
}

export interface InvitationPreview {
  email: string;
  inviter_name: string;
  inviter_email: string;
  state: "pending" | "accepted" | "cancelled" | "expired" | "replaced";
  expires_at: string;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export type WebhookKind = "custom" | "slack" | "discord" | "teams";

export interface WebhookDelivery {
  id: string;
  event: string;
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface Webhook {
  id: string;
  name: string;
  url: string;
  kind: WebhookKind;
  active: boolean;
  created_at: string;
  last_delivery: WebhookDelivery | null;
  dropped: number;
}

export interface DnsRecord {
  type: "CNAME" | "TXT";
  name: string;
  value: string;
}

export interface Domain {
  id: string;
  hostname: string;
  status: "pending" | "verified";
  records: DnsRecord[];
  next_action: string | null;
  last_checked_at: string | null;
  verified_at: string | null;
  lost_at: string | null;
  link_count: number;
  created_at: string;
}

export interface FieldError {
  field: string;
  message: string;
}

export interface Stats {
  /** All-time clicks of the link. */
  total_clicks: number;
  /** Clicks from `from` to `to` (when the server sends it). */
  range_clicks?: number;
  advanced?: boolean;
  message?: string;
  required_plan?: string;
  daily?: { date: string; clicks: number }[];
  countries?: { country: string; clicks: number }[];
  devices?: { device: string; clicks: number }[];
  browsers?: { browser: string; clicks: number }[];
  os?: { os: string; clicks: number }[];
  referrers?: { referrer: string; clicks: number }[];
  bot_share?: number;
}

export interface BulkResult {
  line: number;
  url: string;
  status: "created" | "error";
  link?: Link;
  code?: string;
  message?: string;
}

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
      const key = d.field.replace(/^\/?(body[./])?/, "").replace(/^\//, "");
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

  if (!res.ok || (isRecord(data) && data.status === "error")) {
    const d = isRecord(data) ? data : {};
    const code = typeof d.code === "string" ? d.code : `http_${res.status}`;
    const message =
      typeof d.message === "string" && d.message
        ? d.message
        : res.status === 429
          ? "Too many attempts. Please wait a moment and try again."
          : `The request failed (HTTP ${res.status}).`;
    const details = Array.isArray(d.details)
      ? (d.details as unknown[]).filter(isRecord).map((x) => ({ field: String(x.field ?? ""), message: String(x.message ?? "") }))
      : [];
    const err = new ApiError(res.status, code, message, details, typeof d.required_plan === "string" ? d.required_plan : undefined);
    if (res.status === 401 && code === "unauthenticated" && !opts.quiet401) unauthenticatedHandler?.();
    throw err;
  }
  return (data ?? {}) as T;
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

interface SessionAnswer {
  status: string;
  user: User | null;
  csrf_token: string;
}

export const api = {
  async session(): Promise<User | null> {
    const s = await request<SessionAnswer>("GET", "/api/auth/session");
    setCsrfToken(s.csrf_token);
    return s.user ?? null;
  },
  async signup(email: string, password: string, name?: string): Promise<User> {
    const body: Record<string, string> = { email, password };
    if (name) body.name = name;
    const s = await request<SessionAnswer>("POST", "/api/auth/signup", { body, quiet401: true });
    setCsrfToken(s.csrf_token);
    return s.user as User;
  },
  async login(email: string, password: string): Promise<User> {
    const s = await request<SessionAnswer>("POST", "/api/auth/login", { body: { email, password }, quiet401: true });
    setCsrfToken(s.csrf_token);
    return s.user as User;
  },
  async logout(): Promise<void> {
    try {
      const r = await request<{ csrf_token?: string }>("POST", "/api/auth/logout", { quiet401: true });
      setCsrfToken(r.csrf_token);
    } finally {
      await api.session().catch(() => null);
    }
  },
  verifyEmail: (token: string) => request("POST", "/api/auth/verify-email", { body: { token }, quiet401: true }),
  resendVerification: () => request("POST", "/api/auth/verify-email/resend"),
  requestPasswordReset: (email: string) => request("POST", "/api/auth/password-reset", { body: { email }, quiet401: true }),
  confirmPasswordReset: (token: string, password: string) =>
    request("POST", "/api/auth/password-reset/confirm", { body: { token, password }, quiet401: true }),

  createLink: (body: Record<string, unknown>, quiet401 = false) =>
    request<{ link: Link }>("POST", "/api/links", { body, quiet401 }).then((r) => r.link),
  listLinks: (q: string, cursor: string | null, limit = 20, owner?: string) => {
    const p = new URLSearchParams({ limit: String(limit) });
    if (owner) p.set("owner", owner);
    if (q) p.set("q", q);
    if (cursor) p.set("cursor", cursor);
    return request<{ links: Link[]; next_cursor: string | null }>("GET", `/api/links?${p}`);
  },
  getLink: (id: string) => request<{ link: Link }>("GET", `/api/links/${encodeURIComponent(id)}`).then((r) => r.link),
  updateLink: (id: string, body: Record<string, unknown>) =>
    request<{ link: Link }>("PATCH", `/api/links/${encodeURIComponent(id)}`, { body }).then((r) => r.link),
  deleteLink: (id: string) => request("DELETE", `/api/links/${encodeURIComponent(id)}`),
  bulkCreate: (urls: string) => request<{ results: BulkResult[] }>("POST", "/api/links/bulk", { body: { urls } }).then((r) => r.results),
  stats: (id: string, from: string, to: string) =>
    request<Stats>("GET", `/api/links/${encodeURIComponent(id)}/stats?${new URLSearchParams({ from, to })}`),

  profile: () => request<{ user?: User; profile?: User }>("GET", "/api/profile").then((r) => (r.user ?? r.profile) as User),
  updateProfile: (name: string) =>
    request<{ user?: User; profile?: User }>("PATCH", "/api/profile", { body: { name } }).then((r) => r.user ?? r.profile),
  uploadPicture: (file: File) =>
    request<{ user?: User; profile?: User; picture_url?: string }>("PUT", "/api/profile/picture", { raw: file }),
  changePassword: (current_password: string, new_password: string) =>
    request("POST", "/api/profile/password", { body: { current_password, new_password } }),
  cancelSubscription: () => request<{ user?: User }>("POST", "/api/subscription/cancel"),
  async deleteAccount(password: string): Promise<void> {
    const r = await request<{ csrf_token?: string }>("DELETE", "/api/account", { body: { password }, quiet401: true });
    setCsrfToken(r.csrf_token);
  },

  team: () => request<Team & { status: string }>("GET", "/api/team"),
  invite: (email: string) => request<{ invitation: Invitation }>("POST", "/api/team/invitations", { body: { email } }).then((r) => r.invitation),
  resendInvitation: (id: string) =>
    request<{ invitation: Invitation }>("POST", `/api/team/invitations/${encodeURIComponent(id)}/resend`).then((r) => r.invitation),
  cancelInvitation: (id: string) => request("DELETE", `/api/team/invitations/${encodeURIComponent(id)}`),
  removeMember: (userId: string) => request("DELETE", `/api/team/members/${encodeURIComponent(userId)}`),
  leaveTeam: (ownerId: string) => request("DELETE", `/api/memberships/${encodeURIComponent(ownerId)}`),
  previewInvitation: (token: string) =>
    request<{ invitation: InvitationPreview }>("POST", "/api/invitations/preview", { body: { token }, quiet401: true }).then((r) => r.invitation),
  acceptInvitation: (token: string) =>
    request<{ membership: Membership }>("POST", "/api/invitations/accept", { body: { token }, quiet401: true }).then((r) => r.membership),
  listDomains: () => request<{ domains: Domain[] }>("GET", "/api/domains").then((r) => r.domains ?? []),
  addDomain: (hostname: string) => request<{ domain: Domain }>("POST", "/api/domains", { body: { hostname } }).then((r) => r.domain),
  verifyDomain: (id: string) => request<{ domain: Domain }>("POST", `/api/domains/${encodeURIComponent(id)}/verify`).then((r) => r.domain),
  deleteDomain: (id: string) => request("DELETE", `/api/domains/${encodeURIComponent(id)}`),

  listKeys: () => request<{ keys: ApiKey[] }>("GET", "/api/keys").then((r) => r.keys ?? []),
  createKey: (name: string) => request<{ key: ApiKey; secret: string }>("POST", "/api/keys", { body: { name } }),
  revokeKey: (id: string) => request("DELETE", `/api/keys/${encodeURIComponent(id)}`),

  listWebhooks: () => request<{ webhooks: Webhook[] }>("GET", "/api/webhooks").then((r) => r.webhooks ?? []),
  createWebhook: (body: { name: string; url: string; kind: WebhookKind }) =>
    request<{ webhook: Webhook; secret?: string }>("POST", "/api/webhooks", { body }),
  updateWebhook: (id: string, body: { name?: string; url?: string; active?: boolean }) =>
    request<{ webhook: Webhook }>("PATCH", `/api/webhooks/${encodeURIComponent(id)}`, { body }).then((r) => r.webhook),
  deleteWebhook: (id: string) => request("DELETE", `/api/webhooks/${encodeURIComponent(id)}`),
  rotateWebhookSecret: (id: string) => request<{ webhook: Webhook; secret: string }>("POST", `/api/webhooks/${encodeURIComponent(id)}/secret`),
  testWebhook: (id: string) => request<{ delivery: WebhookDelivery }>("POST", `/api/webhooks/${encodeURIComponent(id)}/test`).then((r) => r.delivery),
  webhookDeliveries: (id: string) =>
    request<{ deliveries: WebhookDelivery[] }>("GET", `/api/webhooks/${encodeURIComponent(id)}/deliveries`).then((r) => r.deliveries ?? []),
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

export type AccountStatus = "active" | "suspended";

export interface AdminAccount {
  id: string;
  email: string;
  name: string | null;
  plan: Plan;
  status: AccountStatus;
  is_admin: boolean;
  email_verified: boolean;
  created_at: string;
  last_sign_in_at: string | null;
  /** Links owned, and their click counts summed. */
  links: number;
  clicks: number;
}

/** A link as the console lists it: the link object plus its owner's email. */
export interface AdminLink extends Link {
  owner_email: string | null;
}

export type AdminLinkState = "active" | "disabled" | "blocked";

export interface AdminOverview {
  accounts: { total: number; active: number; suspended: number; by_plan: Record<Plan, number> };
  links: { total: number; disabled: number };
  clicks: { today: number; week: number };
  top_links: { id: string; alias: string; domain: string | null; short_url: string; url: string; owner_email: string | null; clicks: number }[];
  reports_open: number;
  health: {
    database: "ok" | "error";
    click_writer: { pending: number; oldest_ms: number };
    webhook_queue: { queued: number; dropped: number };
  };
  blocklist: { console: number; file: number };
}

export interface BlockedHost {
  host: string;
  note: string;
  source: "console";
  created_at: string;
  created_by_email: string | null;
}

export interface BlocklistFile {
  path: string | null;
  hosts: number;
  /** Lines of the last good read that were neither an entry, blank nor a comment. */
  skipped_lines?: number;
  loaded_at: string | null;
  error: string | null;
}

export type ReportState = "open" | "dismissed" | "link_disabled" | "owner_banned";

export interface AbuseReport {
  id: string;
  link: AdminLink | null;
  domain: string | null;
  alias: string;
  url: string;
  reason: string;
  details: string;
  reporter_email: string | null;
  state: ReportState;
  created_at: string;
  resolved_at: string | null;
  resolved_by_email: string | null;
  reports_for_link: number;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor_id: string | null;
  actor_email: string;
  action: string;
  target_type: string;
  target_id: string;
  summary: string;
  before: unknown;
  after: unknown;
}

/** What visitors of an operator-disabled link get: 410 Gone, or 451 Unavailable for legal reasons. */
export type DisableStatus = 410 | 451;

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
  overview: () => request<AdminOverview & { status: string }>("GET", "/api/admin/overview"),

  accounts: (f: { q?: string; plan?: string; status?: string; cursor?: string | null; limit?: number }) =>
    request<{ accounts: AdminAccount[]; next_cursor: string | null }>("GET", `/api/admin/accounts${query(f)}`),
  account: (accountId: string) => request<{ account: AdminAccount }>("GET", `/api/admin/accounts/${id(accountId)}`).then((r) => r.account),
  updateAccount: (accountId: string, body: { plan?: Plan; status?: AccountStatus }) =>
    request<{ account: AdminAccount }>("PATCH", `/api/admin/accounts/${id(accountId)}`, { body }).then((r) => r.account),
  deleteAccount: (accountId: string, confirm_email: string) => request("DELETE", `/api/admin/accounts/${id(accountId)}`, { body: { confirm_email } }),

  links: (f: { q?: string; owner?: string; domain?: string; state?: string; cursor?: string | null; limit?: number }) =>
    request<{ links: AdminLink[]; next_cursor: string | null }>("GET", `/api/admin/links${query(f)}`),
  disableLink: (linkId: string, reason: string, status: DisableStatus) =>
    request<{ link: AdminLink }>("POST", `/api/admin/links/${id(linkId)}/disable`, { body: { reason, status } }).then((r) => r.link),
  enableLink: (linkId: string) => request<{ link: AdminLink }>("POST", `/api/admin/links/${id(linkId)}/enable`).then((r) => r.link),
  disableBulk: (body: ({ owner_id: string } | { host: string }) & { reason: string; status?: DisableStatus }) =>
    request<{ disabled: number }>("POST", "/api/admin/links/disable-bulk", { body }).then((r) => r.disabled),

  blocklist: (f: { q?: string; cursor?: string | null; limit?: number }) =>
    request<{ hosts: BlockedHost[]; file: BlocklistFile; next_cursor?: string | null }>("GET", `/api/admin/blocklist${query(f)}`),
  blockHost: (host: string, note: string) =>
    request<{ host: BlockedHost }>("POST", "/api/admin/blocklist", { body: note ? { host, note } : { host } }).then((r) => r.host),
  unblockHost: (host: string) => request("DELETE", `/api/admin/blocklist/${id(host)}`),

  reports: (f: { state?: string; cursor?: string | null; limit?: number }) =>
    request<{ reports: AbuseReport[]; next_cursor?: string | null }>("GET", `/api/admin/reports${query(f)}`),
  dismissReport: (reportId: string) => request<{ report: AbuseReport }>("POST", `/api/admin/reports/${id(reportId)}/dismiss`).then((r) => r.report),
  reportDisableLink: (reportId: string, body: { reason?: string; status?: DisableStatus }) =>
    request<{ report: AbuseReport }>("POST", `/api/admin/reports/${id(reportId)}/disable-link`, { body }).then((r) => r.report),
  reportBanOwner: (reportId: string, body: { reason?: string }) =>
    request<{ report: AbuseReport }>("POST", `/api/admin/reports/${id(reportId)}/ban-owner`, { body }).then((r) => r.report),

  audit: (f: { action?: string; actor?: string; target?: string; cursor?: string | null; limit?: number }) =>
    request<{ entries: AuditEntry[]; next_cursor: string | null }>("GET", `/api/admin/audit${query(f)}`),
};

/** The state of a link as the console and the owner's dashboard show it. */
export function linkState(l: Pick<Link, "disabled" | "destination_blocked">): AdminLinkState {
  return l.disabled ? "disabled" : l.destination_blocked ? "blocked" : "active";
}
