// The one list of the dashboard's sections: the sidebar on wide screens and the phone menu both draw it, in
// groups (links, analytics, team and sharing, settings, operator), each entry with its icon.
import type { Capability } from "../../../src/contract/plans.js";

export interface NavEntry {
  /** A path, or a path and the #section of its page that the entry opens (the page scrolls to it). */
  to: string;
  label: string;
  testId: string;
  /** An SVG path (24 x 24, stroked) drawn beside the label, alone when the sidebar is collapsed. */
  icon: string;
  /** The capability whose lack the entry marks (the page then explains what is missing). */
  capability?: Capability;
  /** Matches its path exactly (the links list, whose path starts every other one). */
  end?: boolean;
}

export interface NavGroup {
  id: "links" | "analytics" | "team" | "settings" | "operator";
  label: string;
  entries: readonly NavEntry[];
  /** Shown to operators only. */
  operator?: boolean;
}

export const ICONS = {
  links: "M10 13a5 5 0 0 0 7.54.54l3-3a5 5 0 0 0-7.07-7.07l-1.72 1.71M14 11a5 5 0 0 0-7.54-.54l-3 3a5 5 0 0 0 7.07 7.07l1.71-1.71",
  shared: "M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z",
  signOut: "M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4M16 17l5-5-5-5M21 12H9",
  collapse: "M11 17l-5-5 5-5M18 17l-5-5 5-5",
  expand: "M13 17l5-5-5-5M6 17l5-5-5-5",
} as const;

/** The dashboard's sections in the order the navigation shows them. */
export const NAV_GROUPS: readonly NavGroup[] = [
  {
    id: "links",
    label: "Links",
    entries: [
      { to: "/app", label: "Your links", testId: "nav-dashboard", icon: ICONS.links, end: true },
      { to: "/app/links/new", label: "New link", testId: "nav-new-link", icon: "M12 5v14M5 12h14" },
      { to: "/app/links/bulk", label: "Bulk", testId: "nav-bulk", icon: "M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01", capability: "bulk_create" },
      { to: "/app/links/import", label: "Import", testId: "nav-import", icon: "M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M7 10l5 5 5-5M12 15V3" },
    ],
  },
  {
    id: "analytics",
    label: "Analytics",
    entries: [
      { to: "/app/analytics", label: "Analytics", testId: "nav-analytics", icon: "M18 20V10M12 20V4M6 20v-6", capability: "account_analytics" },
      { to: "/app/live", label: "Live", testId: "nav-live", icon: "M22 12h-4l-3 9L9 3l-3 9H2", capability: "account_analytics" },
      {
        to: "/app/conversions",
        label: "Conversions",
        testId: "nav-conversions",
        icon: "M3 3h18l-7 9v6l-4 3v-9z",
        capability: "conversions",
      },
      {
        to: "/app/customers",
        label: "Customers",
        testId: "nav-customers",
        icon: "M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM19 8v6M22 11h-6",
        capability: "conversions",
      },
    ],
  },
  {
    id: "team",
    label: "Team and sharing",
    entries: [
      {
        to: "/app/team",
        label: "Team",
        testId: "nav-team",
        icon: "M17 21v-2a4 4 0 0 0-4-4H5a4 4 0 0 0-4 4v2M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM23 21v-2a4 4 0 0 0-3-3.87M16 3.13a4 4 0 0 1 0 7.75",
        // Inviting members is the team's feature (the page also lists the teams one belongs to, on any plan).
        capability: "team_invite",
      },
      {
        to: "/app/bio",
        label: "Bio pages",
        testId: "nav-bio",
        icon: "M7 2h10a2 2 0 0 1 2 2v16a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2zM9 7h6M9 11h6M9 15h6",
        capability: "bio_pages",
      },
      {
        to: "/app/domains",
        label: "Domains",
        testId: "nav-domains",
        icon: "M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM2 12h20M12 2a15.3 15.3 0 0 1 4 10 15.3 15.3 0 0 1-4 10 15.3 15.3 0 0 1-4-10 15.3 15.3 0 0 1 4-10z",
        capability: "custom_domains",
      },
      { to: "/app/webhooks", label: "Webhooks", testId: "nav-webhooks", icon: "M13 2 3 14h9l-1 8 10-12h-9l1-8z", capability: "webhooks" },
    ],
  },
  {
    id: "settings",
    label: "Settings",
    entries: [
      { to: "/app/profile", label: "Profile", testId: "nav-profile", icon: "M20 21v-2a4 4 0 0 0-4-4H8a4 4 0 0 0-4 4v2M12 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z" },
      { to: "/app/security", label: "Security", testId: "nav-security", icon: "M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z" },
      // The Security page's section, as Dub and Bitly users look for it: an entry of its own under settings.
      { to: "/app/security#api-keys", label: "API keys", testId: "nav-api-keys", icon: "M16 18l6-6-6-6M8 6l-6 6 6 6" },
      {
        to: "/app/sso",
        label: "SSO",
        testId: "nav-sso",
        icon: "M15.5 7.5 19 4m2-2-2 2m-7.6 7.6a5.5 5.5 0 1 1-7.8 7.8 5.5 5.5 0 0 1 7.8-7.8zm0 0 4.1-4.1 3 3L22 7l-3-3",
        capability: "sso",
      },
    ],
  },
  {
    id: "operator",
    label: "Operator",
    operator: true,
    entries: [{ to: "/app/admin", label: "Operator", testId: "nav-admin", icon: "M4 21v-7M4 10V3M12 21v-9M12 8V3M20 21v-5M20 12V3M1 14h6M9 8h6M17 16h6" }],
  },
];

/** The groups a user sees: the operator's only for operators. */
export function navGroupsFor(isAdmin: boolean): readonly NavGroup[] {
  return NAV_GROUPS.filter((g) => !g.operator || isAdmin);
}

/**
 * The capability the entry for this path marks: what any other way to the same page (a header button, the command
 * palette) marks too, so the marks agree with the navigation's.
 */
export function capabilityOf(to: string): Capability | undefined {
  return NAV_GROUPS.flatMap((g) => g.entries).find((e) => e.to === to)?.capability;
}

/**
 * Whether the entry is the page shown: its path (exactly, or a page under it unless `end`); an entry naming a section
 * (#api-keys) only while that section is the address's, and the page's own entry not then; the links list not while a
 * folder filters it (the sidebar's folder is then the current one).
 */
export function isCurrentEntry(entry: NavEntry, at: { pathname: string; hash: string; search?: string }): boolean {
  const [path = "", section] = entry.to.split("#");
  const onPath = at.pathname === path || (!entry.end && at.pathname.startsWith(`${path}/`));
  if (!onPath || (entry.end && inFolder(at.search))) return false;
  if (section !== undefined) return at.hash === `#${section}`;
  const sectionEntry = `${at.pathname}${at.hash}`;
  return !(at.hash && NAV_GROUPS.some((g) => g.entries.some((e) => e.to === sectionEntry)));
}

/** The address's query chooses a folder of the links list (SidebarFolders). */
export function inFolder(search: string | undefined): boolean {
  return new URLSearchParams(search ?? "").has("folder_id");
}
