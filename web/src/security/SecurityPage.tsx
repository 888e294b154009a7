// Security: everything about how the account signs in and is reached, on one page, in the order people look for it:
// two-factor sign-in, passkeys, sessions, API keys (the navigation's "API keys" opens #api-keys), recent activity.
import { useEffect } from "react";
import { useLocation } from "react-router";
import { useTitle } from "../shared/ui";
import "./security.css";
import { TwoFactorSection } from "./TwoFactorSection";
import { PasskeysSection } from "./PasskeysSection";
import { SessionsSection } from "./SessionsSection";
import { KeysSection } from "./KeysSection";
import { ActivitySection } from "./ActivitySection";

/** The sections a link may open (`/app/security#api-keys`): the page scrolls to it and moves the focus there. */
const TARGETS = new Set(["api-keys"]);

/** What stops the page from keeping the target in view: the person scrolling or acting themselves. */
const OWN_MOVES = ["wheel", "touchstart", "keydown", "mousedown"] as const;

/**
 * Scrolls to the section named by the address's #fragment and focuses it, on arrival and whenever the fragment
 * changes (the navigation's "API keys" while the page is open). The sections above it load their data after the
 * page shows and grow: the target is aligned again as they do, for 3 seconds or until the person scrolls or acts.
 */
function useSectionTarget(): void {
  const { hash, key } = useLocation();
  useEffect(() => {
    const id = decodeURIComponent(hash.slice(1));
    const el = TARGETS.has(id) ? document.getElementById(id) : null;
    if (!el) return;
    const align = () => el.scrollIntoView({ block: "start" });
    align();
    el.focus({ preventScroll: true });
    const growing = new ResizeObserver(align);
    growing.observe(el.parentElement ?? document.body);
    const stop = () => growing.disconnect();
    const timer = window.setTimeout(stop, 3000);
    for (const e of OWN_MOVES) window.addEventListener(e, stop, { passive: true });
    return () => {
      stop();
      window.clearTimeout(timer);
      for (const e of OWN_MOVES) window.removeEventListener(e, stop);
    };
  }, [hash, key]);
}

export function SecurityPage() {
  useTitle("Security");
  useSectionTarget();
  return (
    <div className="security-page narrow">
      <h1>Security</h1>
      <TwoFactorSection />
      <PasskeysSection />
      <SessionsSection />
      <KeysSection />
      <ActivitySection />
    </div>
  );
}
