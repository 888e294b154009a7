// Two-factor sign-in, the pending sign-in's second step, the session list and the team's 2FA policy
// (docs/api.md, Security).
import { Type, type Static } from "typebox";
import { Body, Nullable } from "./common.js";
import { AuthenticationResponseSchema } from "./passkeys.js";

const Code = Type.String({ maxLength: 64, description: "The 6-digit code of the authenticator app" });
const RecoveryCode = Type.String({ maxLength: 64, description: "One of the recovery codes, as shown (dashes and case do not matter)" });
const Password = Type.String({ maxLength: 1000 });

/** POST /api/auth/login when the account has a second factor: no session yet, a pending sign-in cookie. */
export const TwoFactorRequiredReply = Type.Object({
  status: Type.Literal("2fa_required"),
  methods: Type.Array(Type.String(), { description: 'What the second step accepts: "totp", "recovery_code" (more may come)' }),
});
export type TwoFactorRequiredReply = Static<typeof TwoFactorRequiredReply>;

export const TwoFactorStatusReply = Type.Object({
  status: Type.Literal("success"),
  totp_enabled: Type.Boolean(),
  enabled_at: Nullable(Type.String({ format: "date-time" })),
  recovery_codes_left: Type.Integer(),
  /** True when an operator role or a team's policy asks this account for a second factor. */
  required: Type.Boolean(),
});
export type TwoFactorStatusReply = Static<typeof TwoFactorStatusReply>;

export const TotpSetupReply = Type.Object({
  status: Type.Literal("success"),
  secret: Type.String({ description: "base32, for typing into an app" }),
  otpauth_url: Type.String(),
  qr_svg: Type.String({ description: "The otpauth URL as a QR code (SVG made by the server)" }),
});
export type TotpSetupReply = Static<typeof TotpSetupReply>;

export const TotpEnableBody = Body({ code: Code });
export const RecoveryCodesReply = Type.Object({
  status: Type.Literal("success"),
  recovery_codes: Type.Array(Type.String(), { description: "10 single-use codes, shown this once" }),
});
export type RecoveryCodesReply = Static<typeof RecoveryCodesReply>;

/** DELETE /api/auth/2fa/totp and POST /api/auth/2fa/recovery-codes: the password and a code (or a recovery code). */
export const PasswordAndCodeBody = Body({ password: Password, code: Code });

/** POST /api/auth/2fa/verify: exactly one of the two. */
export const TwoFactorVerifyBody = Body({ code: Type.Optional(Code), recovery_code: Type.Optional(RecoveryCode) });

export const SessionViewSchema = Type.Object({
  /** A public id: never the cookie or its hash. */
  id: Type.String(),
  current: Type.Boolean(),
  browser: Nullable(Type.String()),
  os: Nullable(Type.String()),
  country: Nullable(Type.String()),
  way: Nullable(
    Type.String({ description: "How the session was made: password, second_step, passkey, sso, sso_instance, signup (null: before this was kept)" }),
  ),
  created_at: Type.String({ format: "date-time" }),
  last_seen_at: Type.String({ format: "date-time", description: "Updated at most once an hour" }),
});
export type SessionView = Static<typeof SessionViewSchema>;
export const SessionsReply = Type.Object({ status: Type.Literal("success"), sessions: Type.Array(SessionViewSchema) });
export type SessionsReply = Static<typeof SessionsReply>;
export const SessionParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const RevokedReply = Type.Object({ status: Type.Literal("success"), revoked: Type.Integer() });

export const TeamPolicyBody = Body({ require_2fa: Type.Boolean() });
export const TeamPolicyReply = Type.Object({ status: Type.Literal("success"), require_2fa: Type.Boolean() });
export type TeamPolicyReply = Static<typeof TeamPolicyReply>;

/** GET /api/auth/activity: one entry of the account's security activity (no address is ever kept). */
export const ActivityEntrySchema = Type.Object({
  id: Type.String(),
  at: Type.String({ format: "date-time" }),
  kind: Type.String({
    description:
      "sign_in, reauth, 2fa_enabled, 2fa_disabled, recovery_codes_regenerated, passkey_added, passkey_removed, api_key_created, " +
      "api_key_revoked, session_revoked, sessions_revoked, password_changed, password_reset, sso_required",
  }),
  way: Nullable(Type.String({ description: "For sign-ins: password, second_step, passkey, sso, sso_instance, signup, password_reset" })),
  outcome: Type.Union([Type.Literal("success"), Type.Literal("refused")]),
  browser: Nullable(Type.String()),
  os: Nullable(Type.String()),
  country: Nullable(Type.String()),
  detail: Nullable(Type.String({ description: "The refusal's code, or the name of what changed" })),
});
export type ActivityEntry = Static<typeof ActivityEntrySchema>;
export const ActivityReply = Type.Object({ status: Type.Literal("success"), activity: Type.Array(ActivityEntrySchema) });

/** POST /api/auth/reauth: the password, or a passkey's answer to POST /api/auth/reauth/passkey/options. */
export const ReauthBody = Body({ password: Type.Optional(Password), response: Type.Optional(AuthenticationResponseSchema) });
export const ReauthReply = Type.Object({
  status: Type.Literal("success"),
  sudo_until: Type.String({ format: "date-time", description: "Until when this session may change how the account signs in without asking again" }),
});
