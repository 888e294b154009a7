// Custom domains as the service builds them: the service (adds, DNS checks, re-checks), the change notices
// every instance hears, and the set of custom hostnames the redirect path asks.
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import type { Clock } from "../shared/clock.js";
import type { MailSender } from "../mail/mail-queue.js";
import { DomainService } from "./domains.js";
import { DomainChanges } from "./domain-changes.js";
import { CustomHosts } from "./custom-hosts.js";
import { type DnsLookup, nodeDnsLookup } from "./dns-check.js";

export interface DomainsDeps {
  settings: Pick<Config, "baseUrl" | "origin" | "cnameTarget" | "dnsServers" | "domainRecheckMinutes">;
  storage: Storage;
  caps: OwnerCaps;
  clock: Clock;
  log: Logger;
  mailer: MailSender;
  /** A resolver per DNS check instead of node:dns with DNS_SERVERS (tests). */
  dns?: () => DnsLookup;
}

export interface Domains {
  domains: DomainService;
  changes: DomainChanges;
  /** Loaded by start() before the first request (the context's lifecycle, src/context.ts). */
  customHosts: CustomHosts;
}

export function createDomains(deps: DomainsDeps): Domains {
  const { settings, storage, log } = deps;
  const changes = new DomainChanges(storage.feed);
  const domains = new DomainService({
    db: storage.db,
    caps: deps.caps,
    clock: deps.clock,
    log,
    mailer: deps.mailer,
    changes,
    dns: deps.dns ?? nodeDnsLookup(settings.dnsServers),
    cnameTarget: settings.cnameTarget,
    ownHost: settings.baseUrl.hostname,
    origin: settings.origin,
    recheckMs: settings.domainRecheckMinutes * 60_000,
  });
  const customHosts = new CustomHosts(storage.db, changes, log);
  return { domains, changes, customHosts };
}
