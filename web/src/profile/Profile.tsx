// Profile: picture, name, plan, password, the team's summary and a separate danger zone (parts in profile/); passkeys,
// API keys and everything else about signing in are on the Security page.
import { profileApi } from "./profile-api";
import { useEffect, type ReactNode } from "react";

import { useSession } from "../shared/session";
import { A, Spinner, useTitle } from "../shared/ui";
import { PictureSection } from "./PictureSection";
import { NameSection, PlanSection, PasswordSection } from "./AccountSections";
import { DangerZone } from "./DangerZone";

/** `teamSummary`: the team feature's summary, which the app's routes hand in (features import no other feature). */
export function ProfilePage({ teamSummary }: { teamSummary: ReactNode }) {
  useTitle("Profile");
  const { user, setUser } = useSession();

  // Refresh the user from /api/profile once (the session copy may be older).
  useEffect(() => {
    profileApi
      .profile()
      .then((u) => u && setUser(u))
      .catch(() => undefined);
  }, [setUser]);

  if (!user) return <Spinner />;
  return (
    <div className="profile-page narrow">
      <h1>Profile</h1>
      <p className="muted">
        Two-factor sign-in, passkeys, where you are signed in and API keys:{" "}
        <A to="/app/security" testId="profile-security">
          Security
        </A>
      </p>
      <PictureSection user={user} onUser={setUser} />
      <NameSection user={user} onUser={setUser} />
      <PlanSection user={user} />
      <PasswordSection />
      {teamSummary}
      <DangerZone user={user} />
    </div>
  );
}
