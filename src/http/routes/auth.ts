// Sign-up, sign-in, sign-out, session, email verification and password reset (docs/api.md, Sessions and CSRF).
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { publicUser } from "../../accounts/accounts.js";
import { OkSchema, errors } from "../../contract/common.js";
import {
  EmailSentReply,
  PasswordResetBody,
  PasswordResetConfirmBody,
  SessionReply,
  SignInBody,
  SignUpBody,
  SignedInReply,
  SignedOutReply,
  SignedUpReply,
  VerifyEmailBody,
  VerifyEmailReply,
} from "../../contract/accounts.js";
import { TwoFactorRequiredReply } from "../../contract/security.js";
import { Type } from "typebox";
import { iso } from "../../shared/clock.js";
import {
  PENDING_COOKIE,
  PENDING_PATH,
  admitSignedIn,
  currentUser,
  deviceOf,
  ensureSession,
  setSessionCookie,
  signedIn,
  startSession,
  visitorOf,
} from "../auth.js";
import { PENDING_TTL } from "../../security/two-factor.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "accounts" | "auth" | "config" | "countries" | "sessions">;

export async function authRoutes(app: App, ctx: Deps): Promise<void> {
  app.get(
    "/api/auth/session",
    {
      schema: {
        tags: ["auth"],
        summary: "Current session: the user (or null) and the CSRF token bound to the session",
        response: { 200: SessionReply },
      },
    },
    async (req, reply) => {
      const sid = ensureSession(ctx, req, reply);
      const user = await currentUser(ctx, req);
      reply.header("Cache-Control", "no-store");
      const csrf = ctx.sessions.csrfTokenFor(sid);
      if (!user) return { status: "success" as const, user: null, csrf_token: csrf };
      const until = ctx.auth.changes.sudoUntil({ reauthAt: req.sessionReauthAt });
      return { status: "success" as const, user: publicUser(user), csrf_token: csrf, sudo_until: iso(until), signed_in_with: req.sessionWay };
    },
  );

  signInRoutes(app, ctx);
  emailLinkRoutes(app, ctx);
}

/** The ways in and out: sign-up (the new account's first session), sign-in (or its pending second step) and sign-out. */
function signInRoutes(app: App, ctx: Deps): void {
  app.post(
    "/api/auth/signup",
    {
      schema: {
        tags: ["auth"],
        summary: "Create an account and sign in; a verification email is sent",
        body: SignUpBody,
        response: { 201: SignedUpReply, ...errors(400, 403, 409, 429) },
      },
    },
    async (req, reply) => {
      const opened = await ctx.auth.door.signUp(req.body, visitorOf(ctx, req));
      const csrf = startSession(ctx, req, reply, opened);
      return reply.code(201).send({ status: "success" as const, user: publicUser(opened.user), csrf_token: csrf, email_sent: opened.emailSent });
    },
  );

  app.post(
    "/api/auth/login",
    {
      schema: {
        tags: ["auth"],
        summary: "Sign in; the session id and CSRF token rotate",
        description:
          'For an account with two-factor sign-in: `{status: "2fa_required", methods}` and no session yet, only a pending sign-in ' +
          "(cookie snip_2fa, 5 minutes) that POST /api/auth/2fa/verify finishes.",
        body: SignInBody,
        response: { 200: Type.Union([SignedInReply, TwoFactorRequiredReply]), ...errors(400, 401, 403, 429) },
      },
    },
    async (req, reply) => {
      const result = await ctx.auth.door.password(req.body.email, req.body.password, visitorOf(ctx, req));
      if (result.kind === "pending") {
        reply.setCookie(PENDING_COOKIE, result.token, {
          httpOnly: true,
          sameSite: "strict",
          path: PENDING_PATH,
          secure: ctx.config.secureCookies,
          maxAge: PENDING_TTL / 1000,
        });
        reply.header("Cache-Control", "no-store");
        return { status: "2fa_required" as const, methods: result.methods };
      }
      const csrf = startSession(ctx, req, reply, result);
      return { status: "success" as const, user: publicUser(result.user), csrf_token: csrf };
    },
  );

  app.post(
    "/api/auth/logout",
    {
      schema: {
        tags: ["auth"],
        summary: "Sign out; a fresh signed-out session and CSRF token are returned",
        response: { 200: SignedOutReply },
      },
    },
    async (req, reply) => {
      if (req.sessionId) await ctx.sessions.destroy(req.sessionId);
      const sid = ctx.sessions.newSessionId();
      setSessionCookie(ctx, reply, sid, false);
      return { status: "success" as const, csrf_token: ctx.sessions.csrfTokenFor(sid) };
    },
  );
}

/** The routes behind the emailed links: address verification (and sending it again) and password reset. */
function emailLinkRoutes(app: App, ctx: Deps): void {
  app.post(
    "/api/auth/verify-email",
    {
      schema: {
        tags: ["auth"],
        summary: "Confirm an email address with the emailed token",
        description: "A link used before answers 200 with already_verified true while its account is verified with that address.",
        body: VerifyEmailBody,
        response: { 200: VerifyEmailReply, ...errors(400) },
      },
    },
    async (req) => {
      const { user, already } = await ctx.accounts.verifyEmail(req.body.token);
      return { status: "success" as const, user: publicUser(user), already_verified: already };
    },
  );

  app.post(
    "/api/auth/verify-email/resend",
    {
      // The one route of this group that needs a signed-in user.
      preHandler: admitSignedIn(ctx),
      schema: {
        tags: ["auth"],
        summary: "Send the verification email again",
        response: { 200: EmailSentReply, ...errors(401, 429) },
      },
    },
    async (req) => {
      const sent = await ctx.accounts.resendVerification(signedIn(req));
      return { status: "success" as const, email_sent: sent };
    },
  );

  app.post(
    "/api/auth/password-reset",
    {
      schema: {
        tags: ["auth"],
        summary: "Email a password-reset link (answers 200 whether or not the account exists)",
        body: PasswordResetBody,
        response: { 200: OkSchema, ...errors(400) },
      },
    },
    async (req) => {
      await ctx.auth.door.requestPasswordReset(req.body.email);
      return { status: "success" as const };
    },
  );

  app.post(
    "/api/auth/password-reset/confirm",
    {
      schema: {
        tags: ["auth"],
        summary: "Set a new password with the emailed token; every session and pending sign-in of the account ends",
        description: "Refused with 403 sso_required where the address must sign in through single sign-on (Require SSO, OIDC_ONLY).",
        body: PasswordResetConfirmBody,
        response: { 200: OkSchema, ...errors(400, 403) },
      },
    },
    async (req) => {
      await ctx.auth.door.confirmPasswordReset(req.body.token, req.body.password, deviceOf(ctx, req));
      return { status: "success" as const };
    },
  );
}
