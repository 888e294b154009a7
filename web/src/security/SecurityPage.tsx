// Security: two-factor sign-in, the sessions of the account and its recent security activity.
import { useTitle } from "../shared/ui";
import { TwoFactorSection } from "./TwoFactorSection";
import { SessionsSection } from "./SessionsSection";
import { ActivitySection } from "./ActivitySection";

export function SecurityPage() {
  useTitle("Security");
  return (
    <div className="security-page narrow">
      <h1>Security</h1>
      <TwoFactorSection />
      <SessionsSection />
      <ActivitySection />
    </div>
  );
}
