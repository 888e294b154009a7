// The one door to every account as the service builds it (docs/security.md): the decision every way in asks,
// the door that opens sessions, the changes that need sudo mode, the activity list and the alert emails.
import type { Config } from "../config.js";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { MailSender } from "../mail/mail-queue.js";
import type { Accounts } from "../accounts/index.js";
import type { Security } from "../security/index.js";
import type { Sso } from "../sso/index.js";
import { SignInDecision } from "./decide.js";
import { SignInDoor } from "./door.js";
import { AccountChanges } from "./changes.js";
import { SecurityActivity } from "./activity.js";
import { SecurityAlerts } from "./alerts.js";

export interface AuthDeps {
  settings: Pick<Config, "origin" | "sso">;
  db: Db;
  clock: Clock;
  mailer: MailSender;
  accounts: Accounts;
  security: Security;
  sso: Sso;
}

export interface Auth {
  decision: SignInDecision;
  door: SignInDoor;
  changes: AccountChanges;
  activity: SecurityActivity;
}

export function createAuth(d: AuthDeps): Auth {
  const { db, clock } = d;
  const oidc = d.settings.sso.oidc;
  const decision = new SignInDecision({ sso: d.sso, twoFactor: d.security.twoFactor, oidc: oidc ? { only: oidc.only, name: oidc.name } : null });
  const activity = new SecurityActivity({ db, clock });
  const alerts = new SecurityAlerts({ mailer: d.mailer, clock, origin: d.settings.origin });
  const { accounts, sessions, apiKeys } = d.accounts;
  const { twoFactor, passkeys, teamPolicy } = d.security;
  return {
    decision,
    activity,
    door: new SignInDoor({ accounts, sessions, twoFactor, passkeys, notices: d.security.signInNotices, sso: d.sso, decision, activity, alerts }),
    changes: new AccountChanges({ db, clock, accounts, sessions, apiKeys, twoFactor, passkeys, teamPolicy, sso: d.sso, activity, alerts }),
  };
}
