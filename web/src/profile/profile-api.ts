// The profile page's calls: the user's name, picture and password, the subscription, the account's deletion
// the API keys and the passkeys.
import { startRegistration, type PublicKeyCredentialCreationOptionsJSON, type RegistrationResponseJSON } from "@simplewebauthn/browser";
import { call, snip } from "../shared/api";

const byId = (id: string) => ({ params: { path: { id } } });

export const profileApi = {
  profile: () => call(snip.GET("/api/profile")).then((r) => r.user),
  updateProfile: (name: string) => call(snip.PATCH("/api/profile", { body: { name } })).then((r) => r.user),
  /** The file as it is, with its own content type (the route reads the raw body, not JSON). */
  uploadPicture: (file: File) =>
    call(
      snip.PUT("/api/profile/picture", {
        body: file as never,
        bodySerializer: (raw: unknown) => raw as Blob,
        headers: { "Content-Type": file.type || "application/octet-stream" },
      }),
    ),
  changePassword: (current_password: string, new_password: string) => call(snip.POST("/api/profile/password", { body: { current_password, new_password } })),
  cancelSubscription: () => call(snip.POST("/api/subscription/cancel")),
  deleteAccount: (password: string) => call(snip.DELETE("/api/account", { body: { password } }), true),

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
