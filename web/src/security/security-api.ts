// The Security page's calls: two-factor sign-in (set-up, enabling, disabling, recovery codes), sessions and the
// account's security activity.
import { call, snip } from "../shared/api";

export const securityApi = {
  status: () => call(snip.GET("/api/auth/2fa")),
  setup: () => call(snip.POST("/api/auth/2fa/totp/setup")),
  enable: (code: string) => call(snip.POST("/api/auth/2fa/totp/enable", { body: { code } })).then((r) => r.recovery_codes),
  disable: (password: string, code: string) => call(snip.DELETE("/api/auth/2fa/totp", { body: { password, code } })),
  newRecoveryCodes: (password: string, code: string) =>
    call(snip.POST("/api/auth/2fa/recovery-codes", { body: { password, code } })).then((r) => r.recovery_codes),
  sessions: () => call(snip.GET("/api/auth/sessions")).then((r) => r.sessions),
  signOutSession: (id: string) => call(snip.DELETE("/api/auth/sessions/{id}", { params: { path: { id } } })),
  signOutOthers: () => call(snip.POST("/api/auth/sessions/revoke-others")).then((r) => r.revoked),
  activity: () => call(snip.GET("/api/auth/activity")).then((r) => r.activity),
};
