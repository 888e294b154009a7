// Security: two-factor sign-in and the sessions of the account.
import { useTitle } from "../shared/ui";
import { TwoFactorSection } from "./TwoFactorSection";
import { SessionsSection } from "./SessionsSection";

export function SecurityPage() {
  useTitle("Security");
  return (
    <div className="security-page narrow">
      <h1>Security</h1>
      <TwoFactorSection />
      <SessionsSection />
    </div>
  );
}
