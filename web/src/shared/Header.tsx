// The top bar: signed out, the logo, "Sign in", "Sign up" and the theme switch; signed in, only on narrow screens
// (the sidebar carries the navigation on wide ones): the logo and the button that opens the menu (the sidebar).
import { NavLink, Link as RouterLink } from "react-router";
import { useSession } from "./session";
import { ThemeSwitch } from "./theme";
import { PaletteButton } from "./palette/PaletteButton";

/** `app`: the signed-in frame (the top bar only on narrow screens), also while the session of a signed-in page loads. */
export function Header({ menuOpen, onMenu, app }: { menuOpen: boolean; onMenu: () => void; app: boolean }) {
  const { user } = useSession();
  return (
    <header className={`site-header${app ? " site-header-app" : ""}`}>
      <div className="container header-inner">
        <RouterLink to={user ? "/app" : "/"} className="logo" data-testid={user ? "logo-bar" : "logo"}>
          <span className="logo-mark" aria-hidden="true">
            ✂
          </span>
          snip
        </RouterLink>
        <span className="nav-spacer" />
        {user ? <PaletteButton compact testId="palette-open-bar" /> : null}
        {user ? (
          <button type="button" className="menu-toggle" data-testid="menu-toggle" aria-expanded={menuOpen} aria-controls="main-nav" onClick={onMenu}>
            {menuOpen ? "Close" : "Menu"}
          </button>
        ) : user === null ? (
          <>
            <nav className="nav" aria-label="Main">
              <NavLink to="/app/login" data-testid="nav-login">
                Sign in
              </NavLink>
              <RouterLink to="/app/signup" className="btn btn-primary btn-sm" data-testid="nav-signup">
                Sign up
              </RouterLink>
            </nav>
            <ThemeSwitch />
          </>
        ) : null}
      </div>
    </header>
  );
}
