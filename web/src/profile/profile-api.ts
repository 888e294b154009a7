// The profile page's calls: the user's name, picture and password, the subscription and the account's deletion.
import { call, snip } from "../shared/api";

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
};
