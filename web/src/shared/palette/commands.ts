// What the command palette offers: every page of the navigation (NAV_GROUPS, so a new page appears by itself; the
// operator's only to operators; a page the plan lacks with its plan's name), the actions, and "search links for …".
import { navGroupsFor } from "../nav";
import { can, planName, requiredPlan, type Capability } from "../plan-gate";

export type CommandRun = { kind: "go"; to: string } | { kind: "theme" } | { kind: "sign-out" };

export interface Command {
  id: string;
  label: string;
  /** "Page", "Action" or the navigation group's name, shown beside the label. */
  group: string;
  run: CommandRun;
  /** The plan the user's lacks for it ("Business"), when it does. */
  locked?: string;
  /** More words it is found by. */
  keywords?: string;
}

/** The pages that are actions too, named as actions. */
const ACTIONS: Record<string, { label: string; keywords: string }> = {
  "/app/links/new": { label: "Create a link", keywords: "new link shorten builder" },
  "/app/links/bulk": { label: "Bulk create links", keywords: "bulk many lines" },
  "/app/links/import": { label: "Import links", keywords: "import bitly dub csv" },
};

function lockOf(plan: string, capability: Capability | undefined): string | undefined {
  return capability && !can(plan, capability) ? planName(requiredPlan(capability)) : undefined;
}

/** Every command for this user, actions first, then the pages in the navigation's order. */
export function allCommands(user: { plan: string; is_admin: boolean }, dark: boolean): Command[] {
  const actions: Command[] = [];
  const pages: Command[] = [];
  for (const group of navGroupsFor(user.is_admin)) {
    for (const e of group.entries) {
      const action = ACTIONS[e.to];
      const locked = lockOf(user.plan, e.capability);
      if (action) actions.push({ id: `action${e.to}`, label: action.label, group: "Action", run: { kind: "go", to: e.to }, locked, keywords: action.keywords });
      else pages.push({ id: `page${e.to}`, label: e.label, group: group.label, run: { kind: "go", to: e.to }, locked, keywords: e.to });
    }
  }
  actions.push({
    id: "action-theme",
    label: dark ? "Switch to the light theme" : "Switch to the dark theme",
    group: "Action",
    run: { kind: "theme" },
    keywords: "theme dark light mode colour color",
  });
  actions.push({ id: "action-sign-out", label: "Sign out", group: "Action", run: { kind: "sign-out" }, keywords: "log out logout" });
  return [...actions, ...pages];
}

/**
 * The commands matching `text` (every word found in the label, group or keywords), those whose label starts with
 * it first; with text, "Search links for “text”" last (first when nothing else matches).
 */
export function matchCommands(commands: Command[], text: string): Command[] {
  const q = text.trim().toLowerCase();
  if (!q) return commands;
  const words = q.split(/\s+/);
  const hits = commands.filter((c) => {
    const hay = `${c.label} ${c.group} ${c.keywords ?? ""}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  const starts = hits.filter((c) => c.label.toLowerCase().startsWith(q));
  const rest = hits.filter((c) => !c.label.toLowerCase().startsWith(q));
  const search: Command = {
    id: "action-search",
    label: `Search links for “${text.trim()}”`,
    group: "Action",
    run: { kind: "go", to: `/app?q=${encodeURIComponent(text.trim())}` },
  };
  return [...starts, ...rest, search];
}
