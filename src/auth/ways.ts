// Every way to a session (or to a new password), and the policies each one answers to: the one table the
// door (door.ts) decides by and the way-by-policy tests are generated from (test/api/sign-in-ways.test.ts).

/** A path to a session, or to the credential that makes one (a password reset). */
export type Way = "password" | "second_step" | "passkey" | "sso" | "sso_instance" | "signup" | "password_reset";

/** How a policy treats a way. */
export interface WayRules {
  /** "Require SSO" on the address's verified domain (the connection's owner excepted): refused with sso_required. */
  requireSso: "refuse" | "allow";
  /** OIDC_ONLY: refused with sso_required; "break_glass": operators marked break-glass still pass. */
  oidcOnly: "refuse" | "break_glass" | "allow";
  /** Whether an account with two-factor sign-in on must still give its second step after this way. */
  asksSecondStep: boolean;
  /** The throttles the way's check runs under (docs/security.md, Throttles). */
  throttles: readonly string[];
  /** What the activity list and the session list call it. */
  label: string;
}

export const WAYS: Record<Way, WayRules> = {
  password: {
    requireSso: "refuse",
    oidcOnly: "break_glass",
    asksSecondStep: true,
    throttles: ["10 wrong passwords per account in 15 minutes", "50 failed sign-ins per address in 15 minutes"],
    label: "password",
  },
  second_step: {
    requireSso: "refuse",
    oidcOnly: "break_glass",
    asksSecondStep: false,
    throttles: ["5 wrong codes per account in 15 minutes"],
    label: "password and second factor",
  },
  passkey: {
    requireSso: "refuse",
    oidcOnly: "break_glass",
    asksSecondStep: false,
    throttles: ["100 passkey starts per address in 15 minutes", "50 failed sign-ins per address in 15 minutes"],
    label: "passkey",
  },
  sso: { requireSso: "allow", oidcOnly: "allow", asksSecondStep: false, throttles: ["60 starts per address in 10 minutes"], label: "single sign-on" },
  // The instance's provider is not the organisation's: where it requires its own, this way is refused too.
  sso_instance: {
    requireSso: "refuse",
    oidcOnly: "allow",
    asksSecondStep: false,
    throttles: ["60 starts per address in 10 minutes"],
    label: "single sign-on (instance)",
  },
  signup: { requireSso: "refuse", oidcOnly: "refuse", asksSecondStep: false, throttles: ["20 sign-ups per address an hour"], label: "sign-up" },
  password_reset: {
    requireSso: "refuse",
    oidcOnly: "break_glass",
    asksSecondStep: false,
    throttles: ["3 reset emails per account an hour"],
    label: "password reset",
  },
};

export const ALL_WAYS = Object.keys(WAYS) as Way[];
