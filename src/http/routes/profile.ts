// Profile (name, picture, password), subscription cancellation and account deletion (docs/api.md, Profile).
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { publicUser } from "../../accounts/accounts.js";
import { MAX_PICTURE_BYTES } from "../../accounts/picture.js";
import { DomainError } from "../../shared/errors.js";
import { OkSchema, errors } from "../../contract/common.js";
import { ChangePasswordBody, DeleteAccountBody, ProfileBody, SignedOutReply, UserReply } from "../../contract/accounts.js";
import { activeUser, sessionOf, setSessionCookie, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "accounts" | "accountsAdmin" | "auth" | "config" | "countries" | "sessions">;

export async function profileRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/profile",
      { schema: { tags: ["profile"], summary: "The signed-in user's profile", response: { 200: UserReply, ...errors(401) } } },
      async (req) => ({ status: "success" as const, user: publicUser(signedIn(req)) }),
    );

    scope.patch(
      "/api/profile",
      {
        schema: {
          tags: ["profile"],
          summary: "Change the display name",
          body: ProfileBody,
          response: { 200: UserReply, ...errors(400, 401, 403) },
        },
      },
      async (req) => {
        const user = await ctx.accounts.updateProfile(activeUser(req), req.body);
        return { status: "success" as const, user: publicUser(user) };
      },
    );

    // Raw image bodies: PNG, JPEG, WebP up to 2 MiB; the content is sniffed, not trusted.
    scope.register(async (pic) => {
      pic.addContentTypeParser(["image/png", "image/jpeg", "image/webp"], { parseAs: "buffer", bodyLimit: MAX_PICTURE_BYTES }, (_req, body, done) =>
        done(null, body),
      );
      pic.put(
        "/api/profile/picture",
        {
          bodyLimit: MAX_PICTURE_BYTES,
          schema: {
            tags: ["profile"],
            summary: "Upload the profile picture (raw PNG, JPEG or WebP body, at most 2 MiB)",
            response: { 200: UserReply, ...errors(400, 401, 403, 413) },
          },
        },
        async (req) => {
          const user = activeUser(req);
          if (!Buffer.isBuffer(req.body)) throw new DomainError("invalid_request", "Send the image as the request body with an image/* Content-Type");
          const updated = await ctx.accounts.setPicture(user, req.body, req.headers["content-type"]);
          return { status: "success" as const, user: publicUser(updated) };
        },
      );
    });

    scope.get(
      "/api/profile/picture",
      {
        schema: { tags: ["profile"], summary: "The signed-in user's picture", querystring: Type.Object({ v: Type.Optional(Type.String({ maxLength: 20 })) }) },
      },
      async (req, reply) => {
        const user = signedIn(req);
        const pic = await ctx.accounts.picture(user.id);
        if (!pic) throw new DomainError("not_found", "No picture");
        return reply
          .type(pic.mime)
          .header("Cache-Control", "private, max-age=86400")
          .header("Content-Security-Policy", "default-src 'none'; sandbox")
          .send(pic.data);
      },
    );

    scope.post(
      "/api/profile/password",
      {
        schema: {
          tags: ["profile"],
          summary: "Change the password (needs the current one); other sessions and pending sign-ins end, and the account is emailed",
          description: "Wrong current passwords count with failed sign-ins of the account and the address: past the sign-in limits, 429 with Retry-After.",
          body: ChangePasswordBody,
          response: { 200: OkSchema, ...errors(400, 401, 403, 429) },
        },
      },
      async (req) => {
        await ctx.auth.changes.changePassword(sessionOf(ctx, req), req.body.current_password, req.body.new_password);
        return { status: "success" as const };
      },
    );

    scope.post(
      "/api/subscription/cancel",
      {
        schema: { tags: ["profile"], summary: "Cancel the paid subscription (back to the free plan)", response: { 200: UserReply, ...errors(401, 403, 409) } },
      },
      async (req) => {
        const user = await ctx.accounts.cancelSubscription(activeUser(req));
        return { status: "success" as const, user: publicUser(user) };
      },
    );

    scope.delete(
      "/api/account",
      {
        schema: {
          tags: ["profile"],
          summary: "Delete the account and everything it owns (needs the password)",
          description: "Wrong passwords count with failed sign-ins of the account and the address: past the sign-in limits, 429 with Retry-After.",
          body: DeleteAccountBody,
          response: { 200: SignedOutReply, ...errors(400, 401, 429) },
        },
      },
      async (req, reply) => {
        const user = signedIn(req);
        await ctx.accountsAdmin.forget(user.id, await ctx.accounts.deleteAccount(user, req.body.password, req.ip));
        const sid = ctx.sessions.newSessionId();
        setSessionCookie(ctx, reply, sid, false);
        return { status: "success" as const, csrf_token: ctx.sessions.csrfTokenFor(sid) };
      },
    );
  });
}
