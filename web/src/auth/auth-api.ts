// The sign-in pages' own calls: confirming an email address and resetting a password (signed out).
import { call, snip } from "../shared/api";

export const authApi = {
  verifyEmail: (token: string) => call(snip.POST("/api/auth/verify-email", { body: { token } }), true),
  requestPasswordReset: (email: string) => call(snip.POST("/api/auth/password-reset", { body: { email } }), true),
  confirmPasswordReset: (token: string, password: string) => call(snip.POST("/api/auth/password-reset/confirm", { body: { token, password } }), true),
};
