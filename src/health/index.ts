// Link health as the service builds it (docs/health.md): the checker (through the webhooks' SSRF guard, within the
// per-host limits), the scheduler and record, the owner's digest; links made or edited are synced and checked at once.
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { EventPublisher } from "../shared/events.js";
import type { MailSender } from "../mail/mail-queue.js";
import type { LinkChanges } from "../links/changes.js";
import type { ReceiverCheck } from "../webhooks/receiver-check.js";
import { DestinationChecker } from "./check-destination.js";
import { HostGate } from "./host-gate.js";
import { HealthDigest } from "./digest.js";
import { LinkHealth } from "./link-health.js";

export interface HealthDeps {
  settings: Pick<Config, "health" | "origin">;
  storage: Storage;
  clock: Clock;
  log: Logger;
  /** Publishes link.broken and link.recovered. */
  events: EventPublisher;
  mailer: MailSender;
  /** Link creations, edits and deletions, on this instance and the others. */
  changes: LinkChanges;
  /** The webhooks' SSRF guard (WEBHOOK_ALLOW_PRIVATE decides loopback and private addresses). */
  check: ReceiverCheck;
  /** Certificate authorities replacing Node's store (tests). */
  ca?: string[];
}

export function createHealth(deps: HealthDeps): LinkHealth {
  const { settings, storage, clock, log } = deps;
  const h = settings.health;
  const checker = new DestinationChecker({ check: deps.check, gate: new HostGate(h.hostConcurrency, h.hostRate), timeoutMs: h.timeoutMs, ca: deps.ca });
  const digest = new HealthDigest({ db: storage.db, clock, mailer: deps.mailer, origin: settings.origin });
  const health = new LinkHealth({ db: storage.db, dialect: storage.dialect, clock, log, settings: h, checker, events: deps.events, digest });
  // Only this instance's own changes (no snapshot): every instance hears its own, so each change is synced once.
  deps.changes.listen((key, after) => {
    if (after === null) health.queueChange(key.domain, key.alias);
  });
  return health;
}
