// What the link use cases need: database, clock, change notifications and the service's own address.
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { LinkChanges } from "./changes.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { Transaction } from "kysely";
import type { Database } from "../storage/schema.js";
import type { HostBlocklist } from "./host-blocklist.js";
import type { OwnerCaps } from "../storage/owner-caps.js";

export interface LinkDeps {
  db: Db;
  /** Keeps the plan's link count exact under concurrent creations. */
  caps: OwnerCaps;
  clock: Clock;
  log: Logger;
  changes: LinkChanges;
  /** Throttle of signed-out creations per address. */
  rate: RateEvents;
  /** Signed-out creations per address and hour (SIGNED_OUT_LINKS_PER_HOUR). */
  signedOutPerHour: number;
  /** BASE_URL's origin, e.g. "https://sn.ip". */
  origin: string;
  /** BASE_URL's hostname: links there have domain "", and destinations on it are refused. */
  ownHost: string;
  /**
   * The domain a link of this owner may live on ("" for BASE_URL's host), or a DomainError: custom
   * domains must be verified by the link's OWNER (whoever edits the owner's links).
   */
  linkDomain: (ownerId: string, raw: string | null | undefined) => Promise<string>;
  /**
   * Inside the transaction that puts a link on a custom domain: the domain is still the owner's and
   * verified, and stays so until commit (a deletion waits, then deletes this link too); else a DomainError.
   */
  holdDomain: (trx: Transaction<Database>, ownerId: string, hostname: string) => Promise<void>;
  /** The operator's destination blocklist. */
  blocklist: HostBlocklist;
  /** LINK_CHECKS: destinations are checked, so links have a `health` (docs/health.md). */
  linkChecks: boolean;
  /** Brings links.click_count up to date with every click served so far (counts may be held back briefly). */
  settleClicks: () => Promise<void>;
}

/** Tells caches on every instance; a failure to notify never fails the write (entries also expire). */
export async function announce(deps: LinkDeps, keys: { domain: string; alias: string }[]): Promise<void> {
  try {
    await deps.changes.publish(keys);
  } catch (err) {
    deps.log.warn({ err }, "link change notification failed");
  }
}
