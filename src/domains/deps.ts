// What the domain service and its verification need: database, clock, mail, DNS and change notifications.
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { MailSender } from "../mail/mail-queue.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import type { DnsLookup } from "./dns-check.js";
import type { DomainChanges } from "./domain-changes.js";

export interface DomainDeps {
  db: Db;
  /** Keeps MAX_DOMAINS_PER_ACCOUNT exact under concurrent adds. */
  caps: OwnerCaps;
  clock: Clock;
  log: Logger;
  mailer: MailSender;
  changes: DomainChanges;
  /** A fresh resolver per check (so one check's deadline cancels only its own queries). */
  dns: () => DnsLookup;
  /** CNAME_TARGET. */
  cnameTarget: string;
  /** BASE_URL's hostname (never a custom domain; links there have domain ""). */
  ownHost: string;
  /** BASE_URL's origin, for links in emails. */
  origin: string;
  recheckMs: number;
}
