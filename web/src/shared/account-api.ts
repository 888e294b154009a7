// Calls about who is signed in, used across features: the session, signing in, up and out, the verification
// email, and the team the user owns and belongs to (the team view reads it on every page).
import { call, snip } from "./api";
import type { User } from "@contract/accounts";

export const accountApi = {
  session: () => call(snip.GET("/api/auth/session")).then((s) => s.user ?? null),
  async signup(email: string, password: string, name?: string): Promise<User> {
    const r = await call(snip.POST("/api/auth/signup", { body: name ? { email, password, name } : { email, password } }), true);
    return r.user;
  },
  /** The user, or the second steps a sign-in with two-factor sign-in waits for (no session yet). */
  login: (email: string, password: string): Promise<{ user: User } | { methods: string[] }> =>
    call(snip.POST("/api/auth/login", { body: { email, password } }), true).then((r) => ("user" in r ? { user: r.user } : { methods: r.methods })),
  /** The second step: a code of the app or a recovery code. */
  verifySecondStep: (step: { code: string } | { recovery_code: string }) => call(snip.POST("/api/auth/2fa/verify", { body: step }), true).then((r) => r.user),
  async logout(): Promise<void> {
    try {
      await call(snip.POST("/api/auth/logout"), true);
    } finally {
      await accountApi.session().catch(() => null);
    }
  },
  /** email_sent: false when the mail server did not take it now (the server retries it). */
  resendVerification: () => call(snip.POST("/api/auth/verify-email/resend")),
  team: () => call(snip.GET("/api/team")),
};
