// The Security page's calls for the account's passkeys and API keys (two-factor sign-in and sessions: security-api.ts).
import { startRegistration, type PublicKeyCredentialCreationOptionsJSON, type RegistrationResponseJSON } from "@simplewebauthn/browser";
import { call, snip } from "../shared/api";

const byId = (id: string) => ({ params: { path: { id } } });

export const keysApi = {
  listKeys: () => call(snip.GET("/api/keys")).then((r) => r.keys),
  createKey: (body: { name: string; scopes: string[]; expires_at: string | null }) => call(snip.POST("/api/keys", { body })),
  revokeKey: (id: string) => call(snip.DELETE("/api/keys/{id}", byId(id))),

  listPasskeys: () => call(snip.GET("/api/auth/passkeys")).then((r) => r.passkeys),
  /** The whole ceremony: options from the server, the browser's prompt (navigator.credentials.create), the answer checked. */
  async addPasskey(name?: string) {
    const { options } = await call(snip.POST("/api/auth/passkeys/register/options"));
    const response = await startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON });
    const body = { response: response as RegistrationResponseJSON & { type: "public-key" }, ...(name ? { name } : {}) };
    return call(snip.POST("/api/auth/passkeys/register/verify", { body: body as never })).then((r) => r.passkey);
  },
  renamePasskey: (id: string, name: string) => call(snip.PATCH("/api/auth/passkeys/{id}", { ...byId(id), body: { name } })),
  removePasskey: (id: string, password: string) => call(snip.DELETE("/api/auth/passkeys/{id}", { ...byId(id), body: { password } })),
};
