// Account security as the service builds it: two-factor sign-in, passkeys (docs/passkeys.md),
// new-browser emails and the team's 2FA policy.
import type { Config } from "../config.js";
import type { Db } from "../storage/db.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import { SealedBox } from "../shared/secret-box.js";
import type { MailSender } from "../mail/mail-queue.js";
import type { UserRow } from "../storage/schema.js";
import { TwoFactorService } from "./two-factor.js";
import { PasskeyService } from "./passkeys.js";
import type { AuditWriter } from "../storage/audit-writer.js";
import { SignInNotices } from "./sign-in-notice.js";
import { TeamPolicy } from "./team-policy.js";

export interface SecurityDeps {
  settings: Pick<Config, "origin" | "sessionSecret" | "baseUrl">;
  db: Db;
  clock: Clock;
  rate: RateEvents;
  mailer: MailSender;
  audit: AuditWriter;
  checkPassword(user: UserRow, password: string, ip: string, field: string): Promise<void>;
}

export interface Security {
  twoFactor: TwoFactorService;
  passkeys: PasskeyService;
  signInNotices: SignInNotices;
  teamPolicy: TeamPolicy;
}

export function createSecurity(deps: SecurityDeps): Security {
  const { settings, db, clock, audit } = deps;
  return {
    twoFactor: new TwoFactorService({
      db,
      clock,
      rate: deps.rate,
      audit,
      checkPassword: deps.checkPassword,
      box: new SealedBox(settings.sessionSecret, "totp secrets v1"),
      // The name authenticator apps show: with the instance's host name, so two instances' entries differ
      // (no port: a colon would end the issuer in the otpauth label).
      issuer: `snip ${settings.baseUrl.hostname}`,
    }),
    passkeys: new PasskeyService({
      db,
      clock,
      audit,
      checkPassword: deps.checkPassword,
      // WebAuthn binds a passkey to a domain: BASE_URL's hostname, and its origin in every signed answer.
      rpId: settings.baseUrl.hostname,
      origin: settings.origin,
      rpName: "snip",
    }),
    signInNotices: new SignInNotices({ db, clock, mailer: deps.mailer, origin: settings.origin }),
    teamPolicy: new TeamPolicy({ db, clock, audit }),
  };
}
