// Single sign-on as the service builds it (docs/sso.md): Enterprise connections, the sign-in flow (theirs
// and the instance-wide provider's), and the password policy it sets.
import type { Config } from "../config.js";
import type { Db, Dialect } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { SealedBox } from "../shared/secret-box.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { DnsLookup } from "../domains/dns-check.js";
import type { ReceiverCheck } from "../webhooks/receiver-check.js";
import type { AuditLog } from "../admin/audit-log.js";
import type { MailSender } from "../mail/mail-queue.js";
import type { AccountService } from "../accounts/accounts.js";
import { Providers } from "./oidc-client.js";
import { SsoConnections } from "./connections.js";
import { SsoSignIn } from "./sign-in.js";
import { SsoPolicy } from "./policy.js";
import { SsoDomainRecheck } from "./domain-recheck.js";
import { SamlSettingsService } from "./saml-settings.js";
import { type Scim, createScim } from "./scim/index.js";
import type { Logger } from "pino";

export interface SsoRoomDeps {
  settings: Pick<Config, "sessionSecret" | "origin" | "baseUrl" | "sso" | "domainRecheckMinutes">;
  log: Logger;
  db: Db;
  dialect: Dialect;
  clock: Clock;
  caps: OwnerCaps;
  rate: RateEvents;
  dns: () => DnsLookup;
  check: ReceiverCheck;
  audit: AuditLog;
  accounts: AccountService;
  mailer: MailSender;
}

export interface Sso {
  connections: SsoConnections;
  signIn: SsoSignIn;
  policy: SsoPolicy;
  /** The SAML side of connections: the identity provider's metadata, snip's service-provider metadata. */
  saml: SamlSettingsService;
  /** Verified domains' TXT records checked again in the background. */
  domains: SsoDomainRecheck;
  /** SCIM provisioning: the connection's token, Users and Groups (docs/scim.md). */
  scim: Scim;
}

export function createSso(d: SsoRoomDeps): Sso {
  const { settings } = d;
  const deps = {
    db: d.db,
    dialect: d.dialect,
    clock: d.clock,
    box: new SealedBox(settings.sessionSecret, "sso v1"),
    caps: d.caps,
    rate: d.rate,
    dns: d.dns,
    check: d.check,
    audit: d.audit,
    mailer: d.mailer,
    log: d.log,
    accounts: d.accounts,
    providers: new Providers(d.check, () => d.clock.now()),
    settings: settings.sso,
    origin: settings.origin,
    ownHost: settings.baseUrl.hostname,
    recheckMs: settings.domainRecheckMinutes * 60_000,
  };
  const signIn = new SsoSignIn(deps);
  return {
    connections: new SsoConnections(deps),
    signIn,
    policy: new SsoPolicy(deps),
    saml: new SamlSettingsService(deps),
    domains: new SsoDomainRecheck(deps, d.log),
    scim: createScim(deps),
  };
}
