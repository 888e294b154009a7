// What the single sign-on use cases need: database, clock, sealing, DNS, the address guard, the audit log, mail.
import type { Logger } from "pino";
import type { Db, Dialect } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { SealedBox } from "../shared/secret-box.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { DnsLookup } from "../domains/dns-check.js";
import type { ReceiverCheck } from "../webhooks/receiver-check.js";
import type { AuditLog } from "../admin/audit-log.js";
import type { MailSender } from "../mail/mail-queue.js";
import type { AccountService } from "../accounts/accounts.js";
import type { SsoConfig } from "../config-sso.js";
import type { Providers } from "./oidc-client.js";

export interface SsoDeps {
  db: Db;
  /** PostgreSQL locks a domain's claims while one is verified; SQLite runs one transaction at a time. */
  dialect: Dialect;
  clock: Clock;
  /** Seals client secrets (bound to the connection id) and the checks of sign-ins under way (bound to the state's hash). */
  box: SealedBox;
  caps: OwnerCaps;
  rate: RateEvents;
  /** A fresh resolver per DNS check (src/domains: DNS_SERVERS). */
  dns: () => DnsLookup;
  /** The webhooks' address guard (WEBHOOK_ALLOW_PRIVATE): Enterprise issuers must be public. */
  check: ReceiverCheck;
  audit: AuditLog;
  /** Owners told about their domains (a claim dropped, a TXT record gone, verification lost), through the outbox. */
  mailer: MailSender;
  log: Logger;
  accounts: AccountService;
  providers: Providers;
  settings: SsoConfig;
  /** BASE_URL's origin: the redirect URI is origin + CALLBACK_PATH. */
  origin: string;
  /** How often a verified domain's TXT record is checked again (DOMAIN_RECHECK_MINUTES). */
  recheckMs: number;
  /** BASE_URL's hostname: never an SSO domain. */
  ownHost: string;
}

export const CALLBACK_PATH = "/api/auth/sso/callback";
/** A sign-in (OpenID or SAML) must come back from the provider within this time. */
export const LOGIN_TTL_MS = 10 * 60_000;
