// Which plan has which capability: the server's gate (accounts/plans.ts) and the dashboard's marks read
// the same table, so a marked feature is the one the server refuses.

export const PLANS = ["free", "pro", "business", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

export type Capability =
  | "link_expiration"
  /** A start date (starts_at): the link opens at a moment. */
  | "link_start"
  | "link_max_clicks"
  | "link_fallback"
  | "link_preview"
  | "link_targeting"
  | "advanced_stats"
  | "visitor_stats"
  | "account_analytics"
  | "stats_csv"
  | "bulk_create"
  | "team_invite"
  | "custom_domains"
  | "external_api"
  | "webhooks"
  /** Click streams to the account's own brokers (docs/stream.md). */
  | "streams"
  /** Leads, sales and customers through the tracking API and the Stripe integration; the click id to the destination (docs/conversions.md). */
  | "conversions"
  /** An OpenID Connect connection for the team (docs/sso.md). */
  | "sso"
  | "team_2fa_policy"
  /** Team roles other than member: admin and viewer (docs/roles.md). */
  | "team_roles"
  /** The team's own audit log, its exports (docs/audit.md). */
  | "team_audit"
  /** Folders of links: the sidebar's, the link field folder_id, API keys limited to folders (docs/folders.md). */
  | "folders"
  /** Statistics published at an unguessable address (docs/sharing.md). */
  | "shares"
  /** Link-in-bio pages served at /{slug} on the account's hosts (docs/bio-pages.md). */
  | "bio_pages";

const PRO: Capability[] = [
  "link_expiration",
  "link_start",
  "link_max_clicks",
  "link_fallback",
  "link_preview",
  "advanced_stats",
  "visitor_stats",
  "stats_csv",
  "bio_pages",
];
const BUSINESS: Capability[] = [
  ...PRO,
  "link_targeting",
  "account_analytics",
  "bulk_create",
  "team_invite",
  "custom_domains",
  "external_api",
  "webhooks",
  "streams",
  "conversions",
  "folders",
  "shares",
];

export const PLAN_CAPABILITIES: Readonly<Record<Plan, ReadonlySet<Capability>>> = {
  free: new Set(),
  pro: new Set(PRO),
  business: new Set(BUSINESS),
  enterprise: new Set<Capability>([...BUSINESS, "sso", "team_2fa_policy", "team_roles", "team_audit"]),
};

/** Links one account may own. */
export const PLAN_MAX_LINKS: Readonly<Record<Plan, number>> = { free: 100, pro: 5_000, business: 100_000, enterprise: 10_000_000 };

export const PLAN_LABELS: Readonly<Record<Plan, string>> = { free: "Free", pro: "Pro", business: "Business", enterprise: "Enterprise" };

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

export function can(plan: string, capability: Capability): boolean {
  return PLAN_CAPABILITIES[isPlan(plan) ? plan : "free"].has(capability);
}

/** The cheapest plan that has the capability (for "required_plan" in errors and the dashboard's marks). */
export function requiredPlan(capability: Capability): Plan {
  return PLANS.find((p) => PLAN_CAPABILITIES[p].has(capability)) ?? "enterprise";
}

/** Each capability in the words every page uses (the profile, the operator's plan change, the plan notes). */
export const CAPABILITY_LABELS: Readonly<Record<Capability, string>> = {
  link_expiration: "expiry dates",
  link_start: "start dates",
  link_max_clicks: "click limits",
  link_fallback: "fallback URLs",
  link_preview: "social previews",
  link_targeting: "redirect rules and A/B splits",
  advanced_stats: "advanced statistics",
  visitor_stats: "unique visitors",
  account_analytics: "account analytics",
  stats_csv: "statistics CSV export",
  bulk_create: "bulk creation",
  team_invite: "team members",
  custom_domains: "custom domains",
  external_api: "the external API",
  webhooks: "webhooks",
  streams: "click streams",
  conversions: "conversion tracking",
  sso: "single sign-on",
  team_2fa_policy: "the team's two-factor policy",
  team_roles: "team roles",
  team_audit: "the team's audit log",
  folders: "folders",
  shares: "shared statistics",
  bio_pages: "bio pages",
};

/** What moving from one plan to another takes away, in the capability table's order. */
export function lostCapabilities(from: string, to: string): Capability[] {
  const had = PLAN_CAPABILITIES[isPlan(from) ? from : "free"];
  const keeps = PLAN_CAPABILITIES[isPlan(to) ? to : "free"];
  return [...had].filter((c) => !keeps.has(c));
}

/** "a, b and c". */
export function listWords(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}
