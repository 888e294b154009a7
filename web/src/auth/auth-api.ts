// The sign-in pages' own calls: confirming an email address, resetting a password, signing in with a passkey (signed out).
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { call, snip } from "../shared/api";

export const authApi = {
  verifyEmail: (token: string) => call(snip.POST("/api/auth/verify-email", { body: { token } }), true),
  requestPasswordReset: (email: string) => call(snip.POST("/api/auth/password-reset", { body: { email } }), true),
  /** Options from the server, the browser's passkey prompt (navigator.credentials.get), the answer checked: the user signed in. */
  async signInWithPasskey() {
    const { options } = await call(snip.POST("/api/auth/passkeys/login/options"), true);
    const response = await startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON });
    return call(snip.POST("/api/auth/passkeys/login/verify", { body: { response } as never }), true).then((r) => r.user);
  },
  /** The sign-in's second step with a passkey of the account (the pending sign-in's cookie names it). */
  async secondStepWithPasskey() {
    const { options } = await call(snip.POST("/api/auth/2fa/passkey/options"), true);
    const response = await startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON });
    return call(snip.POST("/api/auth/2fa/passkey/verify", { body: { response } as never }), true).then((r) => r.user);
  },
  confirmPasswordReset: (token: string, password: string) => call(snip.POST("/api/auth/password-reset/confirm", { body: { token, password } }), true),
};
