// The site header: the logo, the main nav (built from NAV, the one list of the dashboard's sections), the
// signed-in user with "Sign out", or "Sign in" and "Sign up"; the theme switch.
import { useEffect, useState } from "react";
import { NavLink, Link as RouterLink, useLocation, useNavigate } from "react-router";
import { useSession } from "./session";
import { ThemeSwitch } from "./theme";
import { TeamSwitcher, useTeamView } from "./team-view";
import { PlanMark, type Capability } from "./plan-gate";

interface NavEntry {
  to: string;
  label: string;
  testId: string;
  /** The capability whose lack the entry marks (the page then explains what is missing). */
  capability?: Capability;
  /** Shown to operators only. */
  operator?: boolean;
}

/** The dashboard's sections in the order the nav shows them. */
export const NAV: readonly NavEntry[] = [
  { to: "/app", label: "Dashboard", testId: "nav-dashboard" },
  { to: "/app/analytics", label: "Analytics", testId: "nav-analytics", capability: "account_analytics" },
  { to: "/app/live", label: "Live", testId: "nav-live", capability: "account_analytics" },
  { to: "/app/links/new", label: "New link", testId: "nav-new-link" },
  { to: "/app/links/bulk", label: "Bulk", testId: "nav-bulk", capability: "bulk_create" },
  { to: "/app/team", label: "Team", testId: "nav-team" },
  { to: "/app/webhooks", label: "Webhooks", testId: "nav-webhooks", capability: "webhooks" },
  { to: "/app/domains", label: "Domains", testId: "nav-domains", capability: "custom_domains" },
  { to: "/app/profile", label: "Profile", testId: "nav-profile" },
  { to: "/app/admin", label: "Operator", testId: "nav-admin", operator: true },
];

export function Header() {
  const { user, signOut } = useSession();
  const { memberships } = useTeamView();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const loc = useLocation();
  useEffect(() => setMenuOpen(false), [loc.pathname]);

  return (
    <header className="site-header">
      <div className="container header-inner">
        <RouterLink to={user ? "/app" : "/"} className="logo" data-testid="logo">
          <span className="logo-mark" aria-hidden="true">
            ✂
          </span>
          snip
        </RouterLink>
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((o) => !o)}
        >
          Menu
        </button>
        <nav id="main-nav" className={`nav${menuOpen ? " nav-open" : ""}`} aria-label="Main">
          {user ? (
            <>
              {NAV.filter((entry) => !entry.operator || user.is_admin).map((entry) =>
                // A team member's links entry is the switcher: "Your links" or a team owner's.
                entry.to === "/app" && memberships?.length ? (
                  <TeamSwitcher key={entry.to} />
                ) : (
                  <NavLink key={entry.to} to={entry.to} end={entry.to === "/app"} data-testid={entry.testId} className={entry.operator ? "nav-admin" : undefined}>
                    {entry.label}
                    {entry.capability ? <PlanMark capability={entry.capability} /> : null}
                  </NavLink>
                ),
              )}
              <span className="nav-spacer" />
              <span className="nav-email" data-testid="user-email" title={user.email}>
                {user.email}
              </span>
              <button
                type="button"
                className="btn btn-secondary btn-sm"
                data-testid="sign-out"
                disabled={busy}
                onClick={async () => {
                  setBusy(true);
                  navigate("/");
                  await signOut();
                  setBusy(false);
                }}
              >
                Sign out
              </button>
            </>
          ) : user === null ? (
            <>
              <span className="nav-spacer" />
              <NavLink to="/app/login" data-testid="nav-login">
                Sign in
              </NavLink>
              <RouterLink to="/app/signup" className="btn btn-primary btn-sm" data-testid="nav-signup">
                Sign up
              </RouterLink>
            </>
          ) : null}
        </nav>
        <ThemeSwitch />
      </div>
    </header>
  );
}
