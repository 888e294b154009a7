// Profile: picture, name, plan, password, API keys, and a separate danger zone (parts in profile/).
import { useEffect } from "react";
import { api } from "../api";
import { useSession } from "../session";
import { TeamSummary } from "./Team";
import { Spinner, useTitle } from "../ui";
import { PictureSection } from "./profile/PictureSection";
import { NameSection, PlanSection, PasswordSection } from "./profile/AccountSections";
import { KeysSection } from "./profile/KeysSection";
import { DangerZone } from "./profile/DangerZone";

export function ProfilePage() {
  useTitle("Profile");
  const { user, setUser } = useSession();

  // Refresh the user from /api/profile once (the session copy may be older).
  useEffect(() => {
    api
      .profile()
      .then((u) => u && setUser(u))
      .catch(() => undefined);
  }, [setUser]);

  if (!user) return <Spinner />;
  return (
    <div className="profile-page narrow">
      <h1>Profile</h1>
      <PictureSection user={user} onUser={setUser} />
      <NameSection user={user} onUser={setUser} />
      <PlanSection user={user} />
      <PasswordSection />
      <KeysSection />
      <TeamSummary />
      <DangerZone user={user} />
    </div>
  );
}
