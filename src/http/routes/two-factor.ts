// Two-factor sign-in (docs/api.md, Security): status, TOTP set-up, enabling and disabling, new recovery
// codes, and the pending sign-in's second step.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { publicUser } from "../../accounts/accounts.js";
import { OkSchema, errors } from "../../contract/common.js";
import { SignedInReply } from "../../contract/accounts.js";
import { LoginVerifyBody, RequestOptionsReply } from "../../contract/passkeys.js";
import { PasswordAndCodeBody, RecoveryCodesReply, TotpEnableBody, TotpSetupReply, TwoFactorStatusReply, TwoFactorVerifyBody } from "../../contract/security.js";
import { iso } from "../../shared/clock.js";
import { invalid } from "../../shared/errors.js";
import { renderQrBytes } from "../../links/qr-render.js";
import { secondFactorDemand } from "../../security/second-factor-policy.js";
import { PENDING_COOKIE, PENDING_PATH, sessionOf, signedIn, signedInRoutes, startSession, visitorOf } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "auth" | "config" | "countries" | "sessions" | "storage" | "twoFactor">;

/** The otpauth URL as an SVG QR code, drawn by the same code as links' QR codes. */
async function qrSvg(text: string): Promise<string> {
  const bytes = await renderQrBytes({ text, format: "svg", size: 240, design: { fg: "#000000", bg: "#ffffff", margin: 2, ecl: "M" }, logo: null });
  return bytes.toString("utf8");
}

/** The pending sign-in cookie's value, when it is one at all. */
const pendingToken = (cookie: string | undefined) => (cookie && cookie.length <= 100 ? cookie : undefined);

export async function twoFactorRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/auth/2fa",
      {
        schema: {
          tags: ["security"],
          summary: "Whether two-factor sign-in is on, and how many recovery codes are left",
          response: { 200: TwoFactorStatusReply, ...errors(401) },
        },
      },
      async (req, reply) => {
        const user = signedIn(req);
        const s = await ctx.twoFactor.status(user);
        reply.header("Cache-Control", "no-store");
        // Asked for by OPERATOR_REQUIRE_2FA or a team's policy (security/second-factor-policy.ts), and not set up yet.
        const required =
          !s.totp_enabled && (await secondFactorDemand(ctx.storage.db, user, { operatorPolicy: ctx.config.operatorRequire2fa, teams: "all" })).required;
        return {
          status: "success" as const,
          totp_enabled: s.totp_enabled,
          enabled_at: s.enabled_at === null ? null : iso(s.enabled_at),
          recovery_codes_left: s.recovery_codes_left,
          required,
        };
      },
    );

    authenticatorRoutes(scope, ctx);
  });

  secondStepRoutes(app, ctx);
}

/** Inside the signed-in scope: the authenticator app's set-up, two-factor sign-in turned on and off, new recovery codes. */
function authenticatorRoutes(scope: App, ctx: Deps): void {
  scope.post(
    "/api/auth/2fa/totp/setup",
    {
      schema: {
        tags: ["security"],
        summary: "A new TOTP secret for an authenticator app (nothing is enabled until POST /api/auth/2fa/totp/enable)",
        description: "Needs sudo mode (a sign-in or POST /api/auth/reauth in the last 10 minutes): else 403 reauth_required.",
        response: { 200: TotpSetupReply, ...errors(401, 403, 409) },
      },
    },
    async (req, reply) => {
      const s = await ctx.auth.changes.setUpTotp(sessionOf(ctx, req));
      reply.header("Cache-Control", "no-store");
      return { status: "success" as const, ...s, qr_svg: await qrSvg(s.otpauth_url) };
    },
  );

  scope.post(
    "/api/auth/2fa/totp/enable",
    {
      schema: {
        tags: ["security"],
        summary: "Turn two-factor sign-in on with the app's first code: 10 recovery codes, shown this once; every other session ends",
        description: "Needs sudo mode (else 403 reauth_required). 5 wrong codes in 15 minutes per account: 429 with Retry-After.",
        body: TotpEnableBody,
        response: { 200: RecoveryCodesReply, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (req, reply) => {
      const codes = await ctx.auth.changes.enableTotp(sessionOf(ctx, req), req.body.code);
      reply.header("Cache-Control", "no-store");
      return { status: "success" as const, recovery_codes: codes };
    },
  );

  scope.delete(
    "/api/auth/2fa/totp",
    {
      schema: {
        tags: ["security"],
        summary: "Turn two-factor sign-in off: the password and a code (or a recovery code)",
        body: PasswordAndCodeBody,
        response: { 200: OkSchema, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (req) => {
      await ctx.auth.changes.disableTotp(sessionOf(ctx, req), req.body.password, req.body.code);
      return { status: "success" as const };
    },
  );

  scope.post(
    "/api/auth/2fa/recovery-codes",
    {
      schema: {
        tags: ["security"],
        summary: "New recovery codes (the old ones stop working): the password and a code",
        body: PasswordAndCodeBody,
        response: { 200: RecoveryCodesReply, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (req, reply) => {
      const codes = await ctx.auth.changes.regenerateRecoveryCodes(sessionOf(ctx, req), req.body.password, req.body.code);
      reply.header("Cache-Control", "no-store");
      return { status: "success" as const, recovery_codes: codes };
    },
  );
}

/** A pending sign-in's second step (no session yet, the pending sign-in cookie): a code, a recovery code or a passkey. */
function secondStepRoutes(app: App, ctx: Deps): void {
  app.post(
    "/api/auth/2fa/verify",
    {
      schema: {
        tags: ["security"],
        summary: "The second step of a sign-in: a code of the app or a recovery code; only now is there a session",
        description: "Needs the pending sign-in cookie POST /api/auth/login set (5 minutes). 5 wrong codes in 15 minutes per account: 429 with Retry-After.",
        body: TwoFactorVerifyBody,
        response: { 200: SignedInReply, ...errors(400, 401, 403, 429) },
      },
    },
    async (req, reply) => {
      const { code, recovery_code: recovery } = req.body;
      if ((code === undefined) === (recovery === undefined)) throw invalid(code === undefined ? "code" : "recovery_code", "give either code or recovery_code");
      const step = code !== undefined ? { code } : { recovery_code: recovery as string };
      const opened = await ctx.auth.door.secondStep(pendingToken(req.cookies[PENDING_COOKIE]), step, visitorOf(ctx, req));
      reply.clearCookie(PENDING_COOKIE, { path: PENDING_PATH });
      const csrf = startSession(ctx, req, reply, opened);
      return { status: "success" as const, user: publicUser(opened.user), csrf_token: csrf };
    },
  );

  // The second step with a passkey of the account ("passkey" in the sign-in's methods): options whose
  // challenge is bound to the pending sign-in and lists only that account's passkeys, then its answer.
  app.post(
    "/api/auth/2fa/passkey/options",
    {
      schema: {
        tags: ["security"],
        summary: "The second step with a passkey: options for navigator.credentials.get(), the account's passkeys only",
        description: "Needs the pending sign-in cookie POST /api/auth/login set (5 minutes).",
        response: { 200: RequestOptionsReply, ...errors(401, 403) },
      },
    },
    async (req, reply) => {
      const options = await ctx.auth.door.secondStepPasskeyOptions(pendingToken(req.cookies[PENDING_COOKIE]));
      reply.header("Cache-Control", "no-store");
      return { status: "success" as const, options };
    },
  );

  app.post(
    "/api/auth/2fa/passkey/verify",
    {
      schema: {
        tags: ["security"],
        summary: "Finish the second step with a passkey of the account; only now is there a session",
        body: LoginVerifyBody,
        response: { 200: SignedInReply, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => {
      const opened = await ctx.auth.door.secondStepPasskey(pendingToken(req.cookies[PENDING_COOKIE]), req.body.response, visitorOf(ctx, req));
      reply.clearCookie(PENDING_COOKIE, { path: PENDING_PATH });
      const csrf = startSession(ctx, req, reply, opened);
      return { status: "success" as const, user: publicUser(opened.user), csrf_token: csrf };
    },
  );
}
