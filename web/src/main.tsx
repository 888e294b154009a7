// Entry of the snip dashboard: router, session and layout.
import { StrictMode, useEffect } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Route, Routes, useNavigate } from "react-router";
import "./styles.css";
import { onUnauthenticated } from "./shared/api";
import { SessionProvider, useSession } from "./shared/session";
import { RequireAuth, Spinner } from "./shared/ui";
import { TeamViewProvider } from "./shared/team-view";
import { Header } from "./shared/Header";
import { HomePage } from "./public/Home";
import { LoginPage, LogoutPage, SignupPage } from "./auth/Auth";
import { VerifyEmailPage } from "./auth/VerifyEmail";
import { ResetConfirmPage, ResetRequestPage } from "./auth/ResetPassword";
import { LinksPage } from "./links/Links";
import { LinkPage } from "./links/page/LinkPage";
import { LinkFormPage } from "./links/form/LinkForm";
import { BulkPage } from "./links/bulk/Bulk";
import { ImportPage } from "./imports/Import";
import { StatsPage } from "./stats/Stats";
import { LivePage } from "./analytics/live/Live";
import { AnalyticsPage } from "./analytics/Analytics";
import { ProfilePage } from "./profile/Profile";
import { SecurityPage } from "./security/SecurityPage";
import { WebhooksPage } from "./webhooks/Webhooks";
import { DomainsPage } from "./domains/Domains";
import { NotFoundPage } from "./public/NotFound";
import { TeamPage, TeamSummary } from "./team/Team";
import { AcceptInvitationPage } from "./team/AcceptInvitation";
import { AdminLayout } from "./admin/common";
import { AdminSsoPage } from "./admin/Sso";
import { SsoPage } from "./sso/Sso";
import { AdminOverviewPage } from "./admin/Overview";
import { AdminAccountsPage } from "./admin/Accounts";
import { AdminLinksPage } from "./admin/Links";
import { AdminReportsPage } from "./admin/Reports";
import { AdminBlocklistPage } from "./admin/Blocklist";
import { AdminAuditPage } from "./admin/Audit";

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

function Shell() {
  const { user, error } = useSession();
  return (
    <>
      <UnauthenticatedRedirect />
      <Header />
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
            <Routes>
              <Route path="/" element={<HomePage />} />
              <Route path="/app/signup" element={<SignupPage />} />
              <Route path="/app/login" element={<LoginPage />} />
              <Route path="/app/logout" element={<LogoutPage />} />
              <Route path="/app/verify-email" element={<VerifyEmailPage />} />
              <Route path="/app/reset-password" element={<ResetRequestPage />} />
              <Route path="/app/reset-password/confirm" element={<ResetConfirmPage />} />
              <Route path="/app" element={<RequireAuth><LinksPage /></RequireAuth>} />
              {/* Keys: "Edit" on the created link's view opens a fresh form, not the create form's state. */}
              <Route path="/app/links/new" element={<RequireAuth key="create"><LinkFormPage mode="create" /></RequireAuth>} />
              <Route path="/app/links/bulk" element={<RequireAuth><BulkPage /></RequireAuth>} />
              <Route path="/app/links/import" element={<RequireAuth><ImportPage /></RequireAuth>} />
              <Route path="/app/links/:id" element={<RequireAuth><LinkPage /></RequireAuth>} />
              <Route path="/app/links/:id/edit" element={<RequireAuth key="edit"><LinkFormPage mode="edit" /></RequireAuth>} />
              <Route path="/app/links/:id/stats" element={<RequireAuth><StatsPage /></RequireAuth>} />
              <Route path="/app/live" element={<RequireAuth><LivePage /></RequireAuth>} />
              <Route path="/app/analytics" element={<RequireAuth><AnalyticsPage /></RequireAuth>} />
              <Route path="/app/profile" element={<RequireAuth><ProfilePage teamSummary={<TeamSummary />} /></RequireAuth>} />
              <Route path="/app/security" element={<RequireAuth><SecurityPage /></RequireAuth>} />
              <Route path="/app/team" element={<RequireAuth><TeamPage /></RequireAuth>} />
              <Route path="/app/shared/:ownerId" element={<RequireAuth><LinksPage shared /></RequireAuth>} />
              <Route path="/app/invitations/accept" element={<AcceptInvitationPage />} />
              <Route path="/app/webhooks" element={<RequireAuth><WebhooksPage /></RequireAuth>} />
              <Route path="/app/domains" element={<RequireAuth><DomainsPage /></RequireAuth>} />
              <Route path="/app/sso" element={<RequireAuth><SsoPage /></RequireAuth>} />
              <Route path="/app/admin" element={<RequireAuth><AdminLayout /></RequireAuth>}>
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
          </>
        )}
      </main>
      <footer className="site-footer">
        <div className="container" data-testid="footer">
          snip <span data-testid="snip-version">{__SNIP_VERSION__}</span> · self-hosted link shortener
        </div>
      </footer>
    </>
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
