// The profile page's calls: the user's name, picture and password, the subscription, the account's deletion
// and the API keys.
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
};
