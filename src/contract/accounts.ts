// The signed-in user as sessions, sign-in and the profile return it (docs/api.md, Sessions and CSRF, Profile).
import { Type, type Static } from "typebox";
import { Body } from "./common.js";

export const UserSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  email_verified: Type.Boolean(),
  plan: Type.String(),
  status: Type.String(),
  created_at: Type.String(),
  picture_url: Type.Union([Type.String(), Type.Null()]),
  is_admin: Type.Boolean({ description: "An operator of this service (the console under /app/admin)" }),
});
export type User = Static<typeof UserSchema>;

export const UserReply = Type.Object({ status: Type.Literal("success"), user: UserSchema });
export type UserReply = Static<typeof UserReply>;

/** A session answer: the user (null when signed out) and the CSRF token bound to the session. */
export const SessionReply = Type.Object({
  status: Type.Literal("success"),
  user: Type.Union([UserSchema, Type.Null()]),
  csrf_token: Type.String(),
  sudo_until: Type.Optional(
    Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
      description: "Signed in: until when changes to how the account signs in need no new proof (sudo mode, 10 minutes); null when they do",
    }),
  ),
  signed_in_with: Type.Optional(
    Type.Union([Type.String(), Type.Null()], { description: "Signed in: the way that made this session (password, passkey, sso, ...)" }),
  ),
});
export type SessionReply = Static<typeof SessionReply>;

export const SignedInReply = Type.Object({ status: Type.Literal("success"), user: UserSchema, csrf_token: Type.String() });
export type SignedInReply = Static<typeof SignedInReply>;

export const EmailSent = Type.Boolean({
  description: "true when the mail transport accepted the email now; false: not sent yet (kept in the outbox and retried) or refused",
});
export const SignedUpReply = Type.Object({ status: Type.Literal("success"), user: UserSchema, csrf_token: Type.String(), email_sent: EmailSent });
export type SignedUpReply = Static<typeof SignedUpReply>;
export const EmailSentReply = Type.Object({ status: Type.Literal("success"), email_sent: EmailSent });
export type EmailSentReply = Static<typeof EmailSentReply>;

/** Answers that end a session (sign-out, account deletion): the fresh signed-out session's CSRF token. */
export const SignedOutReply = Type.Object({ status: Type.Literal("success"), csrf_token: Type.String() });
export type SignedOutReply = Static<typeof SignedOutReply>;

// Request bodies. Lengths here only stop absurd payloads early; the accounts feature owns the real rules.
const Email = Type.String({ maxLength: 320 });
const Password = Type.String({ maxLength: 1000 });
export const SignUpBody = Body({ email: Email, password: Password, name: Type.Optional(Type.String({ maxLength: 1000 })) });
export type SignUpFields = Static<typeof SignUpBody>;
export const SignInBody = Body({ email: Email, password: Password });
export const VerifyEmailBody = Body({ token: Type.String({ maxLength: 500 }) });
/** The verification link's answer: `already_verified` when the link was used before and the address is verified (a second click, a mail scanner). */
export const VerifyEmailReply = Type.Object({ status: Type.Literal("success"), user: UserSchema, already_verified: Type.Boolean() });
export const PasswordResetBody = Body({ email: Email });
export const PasswordResetConfirmBody = Body({ token: Type.String({ maxLength: 500 }), password: Password });
export const ProfileBody = Body({ name: Type.String({ maxLength: 1000 }) });
export const ChangePasswordBody = Body({ current_password: Type.String({ maxLength: 1000 }), new_password: Type.String({ maxLength: 1000 }) });
export const DeleteAccountBody = Body({ password: Type.String({ maxLength: 1000 }) });
