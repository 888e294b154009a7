// Orphan visits (docs/orphan-visits.md): requests to the main host or a custom domain that match no link,
// counted in memory per UTC day, host, path, referrer host and device class (never the address) and added
// to orphan_visits every 30 seconds. Bounded: at most `pathsPerDay` rows per host and day (checked against
// the table, so restarts and instances do not add more); past it, visits count under the path "(other)".
// A scanner's flood therefore costs a counter increment per request, never a row per request.
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { dayOf } from "../clicks/click-groups.js";
import { describeUserAgent, referrerHost } from "../clicks/describe.js";

export const OTHER_PATH = "(other)";
/** The longest path kept (longer ones are cut). */
export const MAX_ORPHAN_PATH = 200;
/** Pending keys across all hosts between flushes: past it, new keys count as "(other)". */
const MAX_PENDING = 50_000;
const FLUSH_MS = 30_000;
const DAY_MS = 86_400_000;
const SEP = "\u0000";

export interface OrphanSettings {
  enabled: boolean;
  pathsPerDay: number;
  keepDays: number;
}

/** The path without its query, control characters removed, at most MAX_ORPHAN_PATH characters. */
export function orphanPath(url: string): string {
  const q = url.indexOf("?");
  const path = (q === -1 ? url : url.slice(0, q)).slice(0, MAX_ORPHAN_PATH * 2);
  return path.replace(/[\u0000-\u001f\u007f]/g, "").slice(0, MAX_ORPHAN_PATH) || "/";
}

/** desktop, mobile, tablet or bot; anything else (consoles, TVs) "other". */
export function deviceClass(userAgent: string): string {
  const d = describeUserAgent(userAgent).device;
  return d === "desktop" || d === "mobile" || d === "tablet" || d === "bot" ? d : "other";
}

/** Icons browsers ask every host for on their own: not a person's missing link, so not counted. */
const BROWSER_ICON = /^\/(?:favicon\.ico|apple-touch-icon(?:-precomposed)?(?:-\d+x\d+)?\.png)(?:[?#]|$)/;

export class OrphanVisits {
  private pending = new Map<string, number>();
  /** Keys this instance counted today per host, to keep the pending map within `pathsPerDay` per host. */
  private seen = new Map<string, Set<string>>();
  private seenDay = "";
  private flushing: Promise<void> | null = null;
  private prunedDay = "";
  private timer: NodeJS.Timeout | null = null;
  /** Visits counted since start (metrics and tests). */
  counted = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly settings: OrphanSettings,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Starts flushing the counts every FLUSH_MS (when enabled). */
  start(): void {
    if (this.timer || !this.settings.enabled) return;
    this.timer = setInterval(() => void this.flush().catch(this.onError), FLUSH_MS);
    this.timer.unref();
  }

  /** One request that matched no link: `host` is the links.domain ("" the main host). */
  visited(host: string, url: string, referer: string, userAgent: string): void {
    if (!this.settings.enabled || BROWSER_ICON.test(url)) return;
    const day = dayOf(this.clock.now());
    if (day !== this.seenDay) {
      this.seen.clear();
      this.seenDay = day;
    }
    let rest = `${orphanPath(url)}${SEP}${referrerHost(referer)}${SEP}${deviceClass(userAgent)}`;
    let keys = this.seen.get(host);
    if (keys === undefined) this.seen.set(host, (keys = new Set()));
    if (!keys.has(rest)) {
      if (keys.size >= this.settings.pathsPerDay || this.pending.size >= MAX_PENDING) rest = `${OTHER_PATH}${SEP}${SEP}other`;
      else keys.add(rest);
    }
    const key = `${day}${SEP}${host}${SEP}${rest}`;
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    this.counted++;
  }

  /** Adds what was counted to the table (one transaction); concurrent calls share one flush. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    if (this.pending.size === 0) return Promise.resolve();
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.write(batch)
      .catch((err) => {
        // Kept for the next flush (the database may be restarting); the map stays bounded by visited().
        for (const [k, n] of batch) this.pending.set(k, (this.pending.get(k) ?? 0) + n);
        throw err;
      })
      .finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async write(batch: Map<string, number>): Promise<void> {
    const cap = this.settings.pathsPerDay;
    await this.db.transaction().execute(async (trx) => {
      for (const [key, visits] of batch) {
        const [day, host, path, referrer, device] = key.split(SEP) as [string, string, string, string, string];
        const row = { day, host, path, referrer_host: referrer, device };
        const added = await trx
          .updateTable("orphan_visits")
          .set({ visits: sql`visits + ${visits}` })
          .where("host", "=", host)
          .where("day", "=", day)
          .where("path", "=", path)
          .where("referrer_host", "=", referrer)
          .where("device", "=", device)
          .executeTakeFirst();
        if (Number(added.numUpdatedRows) > 0) continue;
        const rows = await trx
          .selectFrom("orphan_visits")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("host", "=", host)
          .where("day", "=", day)
          .executeTakeFirstOrThrow();
        const over = Number(rows.n) >= cap && path !== OTHER_PATH;
        const target = over ? { day, host, path: OTHER_PATH, referrer_host: "", device: "other" } : row;
        await trx
          .insertInto("orphan_visits")
          .values({ ...target, visits })
          .onConflict((oc) => oc.columns(["host", "day", "path", "referrer_host", "device"]).doUpdateSet({ visits: sql`orphan_visits.visits + ${visits}` }))
          .execute();
      }
    });
    await this.prune();
  }

  /** Once a day: rows older than keepDays go. */
  private async prune(): Promise<void> {
    const today = dayOf(this.clock.now());
    if (today === this.prunedDay) return;
    this.prunedDay = today;
    await this.db
      .deleteFrom("orphan_visits")
      .where("day", "<", dayOf(this.clock.now() - this.settings.keepDays * DAY_MS))
      .execute();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush().catch(this.onError);
  }
}
