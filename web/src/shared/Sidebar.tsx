// The signed-in navigation, drawn from NAV_GROUPS: a sidebar on wide screens (collapsible to icons, remembered) and
// the menu a phone opens from the top bar: whose links, the grouped sections, the account and "Sign out".
import { useEffect, useRef, useState, type ReactNode } from "react";
import { Link, NavLink, useLocation, useNavigate } from "react-router";
import { useSession } from "./session";
import { ThemeSwitch } from "./theme";
import { ownerLabel, useTeamView } from "./team-view";
import { PlanMark } from "./plan-gate";
import { ICONS, inFolder, isCurrentEntry, navGroupsFor, type NavEntry } from "./nav";
import { COLLAPSED_KEY, readCollapsed } from "./shell-frame";
import { PaletteButton } from "./palette/PaletteButton";
import { SidebarFolders } from "./SidebarFolders";

/** The sidebar's collapsed state, remembered across visits. */
export function useCollapsed(): [boolean, (c: boolean) => void] {
  const [collapsed, setCollapsed] = useState(readCollapsed);
  const set = (c: boolean) => {
    setCollapsed(c);
    try {
      if (c) localStorage.setItem(COLLAPSED_KEY, "collapsed");
      else localStorage.removeItem(COLLAPSED_KEY);
    } catch {
      // Not remembered (storage refused); collapsed for this page all the same.
    }
  };
  return [collapsed, set];
}

export function navIcon(path: string): ReactNode {
  return (
    <svg
      className="side-icon"
      viewBox="0 0 24 24"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d={path} />
    </svg>
  );
}

function Entry({ entry, operator, onChoose }: { entry: NavEntry; operator: boolean; onChoose: () => void }) {
  // Not NavLink: an entry may name a section of a page (#api-keys), which NavLink's match by path does not tell apart.
  const current = isCurrentEntry(entry, useLocation());
  return (
    <li>
      <Link
        to={entry.to}
        data-testid={entry.testId}
        title={entry.label}
        aria-current={current ? "page" : undefined}
        // The phone menu closes on a choice: the shell closes it when the path changes, this when only the #section does.
        onClick={onChoose}
        className={`side-link${operator ? " side-link-operator" : ""}${current ? " active" : ""}`}
      >
        {navIcon(entry.icon)}
        <span className="side-label">{entry.label}</span>
        {entry.capability ? <PlanMark capability={entry.capability} /> : null}
      </Link>
    </li>
  );
}

function Account({ collapsed }: { collapsed: boolean }) {
  const { user, beginSignOut } = useSession();
  const navigate = useNavigate();
  if (!user) return null;
  return (
    <div className="side-account">
      <div className="side-who" title={user.email}>
        {user.name ? (
          <span className="side-name" data-testid="user-name">
            {user.name}
          </span>
        ) : null}
        <span className="side-email" data-testid="user-email">
          {user.email}
        </span>
      </div>
      <div className="side-account-actions">
        <ThemeSwitch />
        <button
          type="button"
          className="btn btn-secondary btn-sm side-sign-out"
          data-testid="sign-out"
          title="Sign out"
          // The sign-out page ends the session, then goes home: the page shown meanwhile is never one that
          // needs a session (the home page loads lazily; a signed-in page would send to the sign-in form).
          // The request leaves at once (whatever the browser does next); the page waits for it.
          onClick={() => {
            beginSignOut();
            navigate("/app/logout");
          }}
        >
          {collapsed ? navIcon(ICONS.signOut) : null}
          <span className="side-label">Sign out</span>
        </button>
      </div>
    </div>
  );
}

/**
 * "Whose links": the user's own and each team owner's, as links in the navigation (whole names that wrap, never a
 * select that cuts them). A paused membership is listed, not linked.
 */
export function TeamSwitcher({ icon }: { icon: (path: string) => ReactNode }) {
  const { memberships, ownerId } = useTeamView();
  const { pathname, search } = useLocation();
  if (!memberships || memberships.length === 0) return null;
  const own = pathname === "/app" && !inFolder(search);
  return (
    <ul className="side-list" data-testid="team-switcher" aria-label="Whose links">
      <li>
        <Link to="/app" className={`side-link${own ? " active" : ""}`} aria-current={own ? "page" : undefined} data-testid="team-view-own" title="Your links">
          {icon(ICONS.links)}
          <span className="side-label">Your links</span>
        </Link>
      </li>
      {memberships.map((m) => {
        const here = pathname.startsWith("/app/shared/") && ownerId === m.owner_id;
        const label = ownerLabel(m);
        return (
          <li key={m.owner_id}>
            {m.active ? (
              <Link
                to={`/app/shared/${encodeURIComponent(m.owner_id)}`}
                className={`side-link${here ? " active" : ""}`}
                aria-current={here ? "page" : undefined}
                data-testid="team-view"
                title={label}
              >
                {icon(ICONS.shared)}
                <span className="side-label">{label}</span>
              </Link>
            ) : (
              <span className="side-link side-link-off" data-testid="team-view-paused" title={`${label} (paused)`}>
                {icon(ICONS.shared)}
                <span className="side-label">{label} (paused)</span>
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

export interface SidebarProps {
  /** The phone menu is open (below the sidebar's breakpoint the sidebar shows only then). */
  open: boolean;
  onClose: () => void;
}

export default function Sidebar({ open, onClose }: SidebarProps) {
  const { user } = useSession();
  const { memberships } = useTeamView();
  const [collapsed, setCollapsed] = useCollapsed();
  const ref = useRef<HTMLElement>(null);
  // The opened phone menu closes on Escape and takes the focus.
  useEffect(() => {
    if (!open) return;
    ref.current?.querySelector<HTMLElement>("a, button")?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open, onClose]);
  if (!user) return null;
  const member = (memberships?.length ?? 0) > 0;
  return (
    <aside ref={ref} id="main-nav" className={`sidebar${collapsed ? " sidebar-collapsed" : ""}${open ? " sidebar-open" : ""}`} data-testid="sidebar">
      <div className="side-top">
        <NavLink to="/app" end className="logo" data-testid="logo" title="snip">
          <span className="logo-mark" aria-hidden="true">
            ✂
          </span>
          <span className="side-label">snip</span>
        </NavLink>
        <button
          type="button"
          className="side-collapse"
          data-testid="sidebar-collapse"
          aria-expanded={!collapsed}
          aria-label={collapsed ? "Expand the sidebar" : "Collapse the sidebar"}
          title={collapsed ? "Expand the sidebar" : "Collapse the sidebar"}
          onClick={() => setCollapsed(!collapsed)}
        >
          {navIcon(collapsed ? ICONS.expand : ICONS.collapse)}
        </button>
      </div>
      <div className="side-search">
        <PaletteButton compact={collapsed && !open} />
      </div>
      <nav className="side-nav" aria-label="Main">
        {navGroupsFor(user.is_admin).map((group) => (
          <section key={group.id} className="side-group" aria-labelledby={`side-group-${group.id}`} data-testid={`nav-group-${group.id}`}>
            <h2 className="side-heading" id={`side-group-${group.id}`}>
              {group.label}
            </h2>
            {group.id === "links" && member ? <TeamSwitcher icon={navIcon} /> : null}
            <ul className="side-list">
              {group.entries
                // A member's own links are the switcher's first entry.
                .filter((entry) => !(member && entry.to === "/app"))
                .map((entry) => (
                  <Entry key={entry.to} entry={entry} operator={Boolean(group.operator)} onChoose={onClose} />
                ))}
            </ul>
            {group.id === "links" ? <SidebarFolders icon={navIcon} onChoose={onClose} /> : null}
          </section>
        ))}
      </nav>
      <Account collapsed={collapsed && !open} />
    </aside>
  );
}
