// Sign-up, sign-in, sign-out, session, email verification and password reset (API.md, Sessions and CSRF).
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { publicUser } from "../../accounts/accounts.js";
import { Body, OkSchema, UserSchema, errors } from "../schemas.js";
import { currentUser, ensureSession, requireUser, setSessionCookie, signInSession } from "../auth.js";

const SignedIn = Type.Object({ status: Type.Literal("success"), user: UserSchema, csrf_token: Type.String() });
const Email = Type.String({ maxLength: 320 });
const Password = Type.String({ maxLength: 1000 });

export async function authRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    "/api/auth/session",
    {
      schema: {
        tags: ["auth"],
        summary: "Current session: the user (or null) and the CSRF token bound to the session",
        response: { 200: Type.Object({ status: Type.Literal("success"), user: Type.Union([UserSchema, Type.Null()]), csrf_token: Type.String() }) },
      },
    },
    async (req, reply) => {
      const sid = ensureSession(ctx, req, reply);
      const user = await currentUser(ctx, req);
      reply.header("Cache-Control", "no-store");
      return { status: "success" as const, user: user ? publicUser(user) : null, csrf_token: ctx.sessions.csrfTokenFor(sid) };
    },
  );

  app.post(
    "/api/auth/signup",
    {
      schema: {
        tags: ["auth"],
        summary: "Create an account and sign in; a verification email is sent",
        body: Body({ email: Email, password: Password, name: Type.Optional(Type.String({ maxLength: 1000 })) }),
        response: { 201: SignedIn, ...errors(400, 403, 409, 429) },
      },
    },
    async (req, reply) => {
      const user = await ctx.accounts.signUp(req.body, req.ip);
      const csrf = await signInSession(ctx, req, reply, user);
      return reply.code(201).send({ status: "success" as const, user: publicUser(user), csrf_token: csrf });
    },
  );

  app.post(
    "/api/auth/login",
    {
      schema: {
        tags: ["auth"],
        summary: "Sign in; the session id and CSRF token rotate",
        body: Body({ email: Email, password: Password }),
        response: { 200: SignedIn, ...errors(400, 401, 403, 429) },
      },
    },
    async (req, reply) => {
      const user = await ctx.accounts.signIn(req.body.email, req.body.password, req.ip);
      const csrf = await signInSession(ctx, req, reply, user);
      return { status: "success" as const, user: publicUser(user), csrf_token: csrf };
    },
  );

  app.post(
    "/api/auth/logout",
    {
      schema: {
        tags: ["auth"],
        summary: "Sign out; a fresh signed-out session and CSRF token are returned",
        response: { 200: Type.Object({ status: Type.Literal("success"), csrf_token: Type.String() }) },
      },
    },
    async (req, reply) => {
      if (req.sessionId) await ctx.sessions.destroy(req.sessionId);
      const sid = ctx.sessions.newSessionId();
      setSessionCookie(ctx, reply, sid, false);
      return { status: "success" as const, csrf_token: ctx.sessions.csrfTokenFor(sid) };
    },
  );

  app.post(
    "/api/auth/verify-email",
    {
      schema: {
        tags: ["auth"],
        summary: "Confirm an email address with the emailed token",
        body: Body({ token: Type.String({ maxLength: 500 }) }),
        response: { 200: Type.Object({ status: Type.Literal("success"), user: UserSchema }), ...errors(400) },
      },
    },
    async (req) => {
      const user = await ctx.accounts.verifyEmail(req.body.token);
      return { status: "success" as const, user: publicUser(user) };
    },
  );

  app.post(
    "/api/auth/verify-email/resend",
    { schema: { tags: ["auth"], summary: "Send the verification email again", response: { 200: OkSchema, ...errors(401, 429) } } },
    async (req) => {
      await ctx.accounts.resendVerification(await requireUser(ctx, req));
      return { status: "success" as const };
    },
  );

  app.post(
    "/api/auth/password-reset",
    {
      schema: {
        tags: ["auth"],
        summary: "Email a password-reset link (answers 200 whether or not the account exists)",
        body: Body({ email: Email }),
        response: { 200: OkSchema, ...errors(400) },
      },
    },
    async (req) => {
      await ctx.accounts.requestPasswordReset(req.body.email);
      return { status: "success" as const };
    },
  );

  app.post(
    "/api/auth/password-reset/confirm",
    {
      schema: {
        tags: ["auth"],
        summary: "Set a new password with the emailed token; every session of the account ends",
        body: Body({ token: Type.String({ maxLength: 500 }), password: Password }),
        response: { 200: OkSchema, ...errors(400) },
      },
    },
    async (req) => {
      await ctx.accounts.confirmPasswordReset(req.body.token, req.body.password);
      return { status: "success" as const };
    },
  );
}
