// The frame of a signed-in page before its code and the session have loaded: the sidebar's place kept (at its
// remembered width), so that the page does not jump right when the sidebar arrives, nor up when the signed-out top
// bar goes (Lighthouse's layout shift; docs/testing.md, Lighthouse).

/** Where the sidebar remembers whether it is collapsed (Sidebar.tsx). */
export const COLLAPSED_KEY = "snip.sidebar";

export function readCollapsed(): boolean {
  try {
    return localStorage.getItem(COLLAPSED_KEY) === "collapsed";
  } catch {
    return false;
  }
}

/** The dashboard's pages a signed-out visitor may see; every other /app page asks to sign in (RequireAuth). */
const SIGNED_OUT_PAGES = ["/app/login", "/app/signup", "/app/logout", "/app/verify-email", "/app/reset-password", "/app/invitations/accept"];

/** Whether the page at `pathname` is drawn in the signed-in frame: what to show while the session is loading. */
export function expectsSignedIn(pathname: string): boolean {
  if (pathname !== "/app" && !pathname.startsWith("/app/")) return false;
  return !SIGNED_OUT_PAGES.some((p) => pathname === p || pathname.startsWith(`${p}/`));
}

/** An empty sidebar of the sidebar's size (hidden on phones, as the sidebar is until its menu opens). */
export function SidebarPlaceholder() {
  return <div className={`sidebar${readCollapsed() ? " sidebar-collapsed" : ""}`} aria-hidden="true" data-testid="sidebar-placeholder" />;
}
