// Entry of the snip dashboard: router, session and layout.
import { StrictMode, Suspense, lazy, useCallback, useEffect, useState, type ComponentType, type LazyExoticComponent, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Outlet, Route, Routes, useLocation, useNavigate } from "react-router";
import "./styles.css";
import "./shared/shell.css";
import { onReauthRequired, onUnauthenticated } from "./shared/api";
import { SessionProvider, useSession } from "./shared/session";
import { RequireAuth, Spinner } from "./shared/ui";
import { TeamViewProvider } from "./shared/team-view";
import { Header } from "./shared/Header";
import { expectsSignedIn, SidebarPlaceholder } from "./shared/shell-frame";
import { PaletteHost } from "./shared/palette/PaletteHost";

/**
 * A page loaded when its route is first shown: each its own chunk, so the home page and the sign-in pages carry none
 * of the dashboard's code.
 */
function page(load: () => Promise<ComponentType<any>>): LazyExoticComponent<ComponentType<any>> {
  return lazy(async () => ({ default: await load() }));
}

// The signed-in navigation: loaded once someone signs in, never for a signed-out visitor.
const Sidebar = lazy(() => import("./shared/Sidebar"));
const HomePage = page(() => import("./public/Home").then((m) => m.HomePage));
const NotFoundPage = page(() => import("./public/NotFound").then((m) => m.NotFoundPage));
const LoginPage = page(() => import("./auth/Auth").then((m) => m.LoginPage));
const LogoutPage = page(() => import("./auth/Auth").then((m) => m.LogoutPage));
const SignupPage = page(() => import("./auth/Auth").then((m) => m.SignupPage));
const VerifyEmailPage = page(() => import("./auth/VerifyEmail").then((m) => m.VerifyEmailPage));
const ResetRequestPage = page(() => import("./auth/ResetPassword").then((m) => m.ResetRequestPage));
const ResetConfirmPage = page(() => import("./auth/ResetPassword").then((m) => m.ResetConfirmPage));
const LinksPage = page(() => import("./links/Links").then((m) => m.LinksPage));
const LinkPage = page(() => import("./links/page/LinkPage").then((m) => m.LinkPage));
const LinkFormPage = page(() => import("./links/form/LinkForm").then((m) => m.LinkFormPage));
const BulkPage = page(() => import("./links/bulk/Bulk").then((m) => m.BulkPage));
const ImportPage = page(() => import("./imports/Import").then((m) => m.ImportPage));
const StatsPage = page(() => import("./stats/Stats").then((m) => m.StatsPage));
const LivePage = page(() => import("./analytics/live/Live").then((m) => m.LivePage));
const AnalyticsPage = page(() => import("./analytics/Analytics").then((m) => m.AnalyticsPage));
const ProfilePage = page(() => import("./profile/Profile").then((m) => m.ProfilePage));
const TeamSummary = page(() => import("./team/Team").then((m) => m.TeamSummary));
const SecurityPage = page(() => import("./security/SecurityPage").then((m) => m.SecurityPage));
const WebhooksPage = page(() => import("./webhooks/Webhooks").then((m) => m.WebhooksPage));
const DomainsPage = page(() => import("./domains/Domains").then((m) => m.DomainsPage));
const BioPagesPage = page(() => import("./bio/BioPages").then((m) => m.BioPagesPage));
const BioEditorPage = page(() => import("./bio/BioEditor").then((m) => m.BioEditorPage));
const TeamPage = page(() => import("./team/Team").then((m) => m.TeamPage));
const TeamAuditPage = page(() => import("./team/Audit").then((m) => m.TeamAuditPage));
/** The team's audit log: the owner's (/app/team/audit) and an administered team's (/app/team/:ownerId/audit). */
const teamAudit = (
  <RequireAuth>
    <TeamAuditPage />
  </RequireAuth>
);
const AcceptInvitationPage = page(() => import("./team/AcceptInvitation").then((m) => m.AcceptInvitationPage));
const ConversionsPage = page(() => import("./conversions/ConversionsPage").then((m) => m.ConversionsPage));
const CustomersPage = page(() => import("./conversions/Customers").then((m) => m.CustomersPage));
const CustomerPage = page(() => import("./conversions/CustomerPage").then((m) => m.CustomerPage));
const SsoPage = page(() => import("./sso/Sso").then((m) => m.SsoPage));
const AdminLayout = page(() => import("./admin/common").then((m) => m.AdminLayout));
const AdminSsoPage = page(() => import("./admin/Sso").then((m) => m.AdminSsoPage));
const AdminOverviewPage = page(() => import("./admin/Overview").then((m) => m.AdminOverviewPage));
const AdminAccountsPage = page(() => import("./admin/Accounts").then((m) => m.AdminAccountsPage));
const AdminLinksPage = page(() => import("./admin/Links").then((m) => m.AdminLinksPage));
const AdminReportsPage = page(() => import("./admin/Reports").then((m) => m.AdminReportsPage));
const AdminBlocklistPage = page(() => import("./admin/Blocklist").then((m) => m.AdminBlocklistPage));
const AdminAuditPage = page(() => import("./admin/Audit").then((m) => m.AdminAuditPage));

// "Confirm it's you" on any 403 reauth_required: its code loads only when a change first asks for it.
onReauthRequired(() => import("./shared/reauth").then((m) => m.askToConfirmItsYou()));

/** A page for signed-in users only. */
const signedIn = (element: ReactNode) => <RequireAuth>{element}</RequireAuth>;

/** Sends the user to the sign-in page whenever the API answers 401 unauthenticated. */
function UnauthenticatedRedirect() {
  const navigate = useNavigate();
  const { setUser } = useSession();
  useEffect(() => {
    onUnauthenticated(() => {
      setUser(null);
      const here = window.location.pathname + window.location.search;
      if (!window.location.pathname.startsWith("/app/login")) {
        navigate(`/app/login?next=${encodeURIComponent(here)}`, { replace: true });
      }
    });
    return () => onUnauthenticated(null);
  }, [navigate, setUser]);
  return null;
}

/**
 * The dashboard's route table. The groups of routes are plain functions returning fragments, not components:
 * Routes reads only Route elements and fragments among its children.
 */
function AppRoutes() {
  return (
    <Routes>
      <Route path="/" element={<HomePage />} />
      <Route path="/app/signup" element={<SignupPage />} />
      <Route path="/app/login" element={<LoginPage />} />
      <Route path="/app/logout" element={<LogoutPage />} />
      <Route path="/app/verify-email" element={<VerifyEmailPage />} />
      <Route path="/app/reset-password" element={<ResetRequestPage />} />
      <Route path="/app/reset-password/confirm" element={<ResetConfirmPage />} />
      {linkRoutes()}
      <Route
        path="/app/live"
        element={
          <RequireAuth>
            <LivePage />
          </RequireAuth>
        }
      />
      <Route
        path="/app/analytics"
        element={
          <RequireAuth>
            <AnalyticsPage />
          </RequireAuth>
        }
      />
      {accountRoutes()}
      {settingsRoutes()}
      {bioRoutes()}
      {conversionRoutes()}
      <Route
        path="/app/admin"
        element={
          <RequireAuth>
            <AdminLayout />
          </RequireAuth>
        }
      >
        <Route index element={<AdminOverviewPage />} />
        <Route path="accounts" element={<AdminAccountsPage />} />
        <Route path="links" element={<AdminLinksPage />} />
        <Route path="reports" element={<AdminReportsPage />} />
        <Route path="blocklist" element={<AdminBlocklistPage />} />
        <Route path="audit" element={<AdminAuditPage />} />
        <Route path="sso" element={<AdminSsoPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}

/** The links' pages: the list, and the create, bulk, import, view, edit and statistics pages. */
function linkRoutes() {
  return (
    <>
      <Route
        path="/app"
        element={
          <RequireAuth>
            <LinksPage />
          </RequireAuth>
        }
      />
      {/* Keys: "Edit" on the created link's view opens a fresh form, not the create form's state. */}
      <Route
        path="/app/links/new"
        element={
          <RequireAuth key="create">
            <LinkFormPage mode="create" />
          </RequireAuth>
        }
      />
      <Route
        path="/app/links/bulk"
        element={
          <RequireAuth>
            <BulkPage />
          </RequireAuth>
        }
      />
      <Route
        path="/app/links/import"
        element={
          <RequireAuth>
            <ImportPage />
          </RequireAuth>
        }
      />
      <Route
        path="/app/links/:id"
        element={
          <RequireAuth>
            <LinkPage />
          </RequireAuth>
        }
      />
      <Route
        path="/app/links/:id/edit"
        element={
          <RequireAuth key="edit">
            <LinkFormPage mode="edit" />
          </RequireAuth>
        }
      />
      <Route
        path="/app/links/:id/stats"
        element={
          <RequireAuth>
            <StatsPage />
          </RequireAuth>
        }
      />
    </>
  );
}

/** Bio pages (docs/bio-pages.md): the list and the editor. */
function bioRoutes() {
  return (
    <Route
      path="/app/bio"
      element={
        <RequireAuth>
          <Outlet />
        </RequireAuth>
      }
    >
      <Route index element={<BioPagesPage />} />
      <Route path=":id" element={<BioEditorPage />} />
    </Route>
  );
}

/** The account's pages: profile, security, team and shared links, invitations, webhooks, domains, single sign-on. */
function accountRoutes() {
  return (
    <>
      <Route
        path="/app/profile"
        element={
          <RequireAuth>
            <ProfilePage teamSummary={<TeamSummary />} />
          </RequireAuth>
        }
      />
      <Route
        path="/app/security"
        element={
          <RequireAuth>
            <SecurityPage />
          </RequireAuth>
        }
      />
      <Route
        path="/app/team"
        element={
          <RequireAuth>
            <TeamPage />
          </RequireAuth>
        }
      />
      <Route
        path="/app/team/:ownerId"
        element={
          <RequireAuth>
            <TeamPage />
          </RequireAuth>
        }
      />
      <Route path="/app/team/audit" element={teamAudit} />
      <Route path="/app/team/:ownerId/audit" element={teamAudit} />
      <Route
        path="/app/shared/:ownerId"
        element={
          <RequireAuth>
            <LinksPage shared />
          </RequireAuth>
        }
      />
      <Route path="/app/invitations/accept" element={<AcceptInvitationPage />} />
      <Route
        path="/app/sso"
        element={
          <RequireAuth>
            <SsoPage />
          </RequireAuth>
        }
      />
    </>
  );
}

/** Custom domains and webhooks (with click streams): the user's own, or with an owner id a team's, for its admin (docs/roles.md). */
function settingsRoutes() {
  return (
    <>
      <Route path="/app/webhooks" element={signedIn(<WebhooksPage />)} />
      <Route path="/app/webhooks/:ownerId" element={signedIn(<WebhooksPage />)} />
      <Route path="/app/domains" element={signedIn(<DomainsPage />)} />
      <Route path="/app/domains/:ownerId" element={signedIn(<DomainsPage />)} />
    </>
  );
}

/** Conversions: the settings (defaults, Stripe, the script), the customers and one customer. */
function conversionRoutes() {
  return (
    <>
      <Route path="/app/conversions" element={signedIn(<ConversionsPage />)} />
      <Route path="/app/customers" element={signedIn(<CustomersPage />)} />
      <Route path="/app/customers/:externalId" element={signedIn(<CustomerPage />)} />
    </>
  );
}

function Shell() {
  const { user, error } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const closeMenu = useCallback(() => setMenuOpen(false), []);
  const { pathname } = useLocation();
  useEffect(closeMenu, [pathname, closeMenu]);
  // Signed in, or loading a page that needs it: the signed-in frame, its sidebar's place kept while it loads (shell-frame.tsx).
  const app = Boolean(user) || (user === undefined && expectsSignedIn(pathname));
  return (
    <div className={app ? "app-shell" : "site-shell"}>
      <UnauthenticatedRedirect />
      {user ? <PaletteHost /> : null}
      {user ? (
        <Suspense fallback={<SidebarPlaceholder />}>
          <Sidebar open={menuOpen} onClose={closeMenu} />
        </Suspense>
      ) : app ? (
        <SidebarPlaceholder />
      ) : null}
      <div className="app-column">
        <Header menuOpen={menuOpen} onMenu={() => setMenuOpen((o) => !o)} app={app} />
        <main className="container main" id="main">
          {user === undefined ? (
            <Spinner />
          ) : (
            <>
              {error && user === null ? (
                <div className="alert alert-warning" role="status" data-testid="session-error">
                  The session could not be loaded: {error}
                </div>
              ) : null}
              <Suspense fallback={<Spinner />}>
                <AppRoutes />
              </Suspense>
            </>
          )}
        </main>
        <footer className="site-footer">
          <div className="container" data-testid="footer">
            snip <span data-testid="snip-version">{__SNIP_VERSION__}</span> · self-hosted link shortener
          </div>
        </footer>
      </div>
    </div>
  );
}

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <BrowserRouter>
        <SessionProvider>
          <TeamViewProvider>
            <Shell />
          </TeamViewProvider>
        </SessionProvider>
      </BrowserRouter>
    </StrictMode>,
  );
}
