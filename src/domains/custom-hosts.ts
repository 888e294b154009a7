// Which Host headers are custom domains of this service (any status): the redirect serves such a host's
// own links (none while it is pending); every other host is the main host, so a fresh install answers at
// whatever address it is reached (127.0.0.1, a LAN name). Kept in memory: one Set lookup per request.
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { DomainChanges } from "./domain-changes.js";

/** Safety net for a lost change notification (a dropped LISTEN connection): a full reload this often. */
const RELOAD_MS = 60_000;

export class CustomHosts {
  private hosts = new Set<string>();
  /** Per hostname, the latest refresh asked for since the last reload: an older answer arriving later is dropped. */
  private readonly latest = new Map<string, number>();
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    changes: DomainChanges,
    private readonly log: Logger,
  ) {
    changes.listen((hostname) => this.refresh(hostname));
  }

  /** Loads every hostname and reloads them every minute. */
  async start(): Promise<void> {
    await this.reload();
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.reload().catch((err) => this.log.warn({ err }, "custom domain list reload failed"));
    }, RELOAD_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** `host` is lowercase without a trailing dot. */
  has(host: string): boolean {
    return this.hosts.has(host);
  }

  private async reload(): Promise<void> {
    const seq = ++this.seq;
    const rows = await this.db.selectFrom("domains").select("hostname").execute();
    const next = new Set(rows.map((r) => r.hostname));
    // A refresh asked for after this reload began knows better for its host (or will, when it answers);
    // one asked for before is older news than this reload's, and is dropped.
    for (const [host, s] of this.latest) {
      if (s < seq) this.latest.delete(host);
      else if (this.hosts.has(host)) next.add(host);
      else next.delete(host);
    }
    this.hosts = next;
  }

  /** One hostname was added, verified, sent back to pending or deleted (here or on another instance). */
  private async refresh(hostname: string): Promise<void> {
    const seq = ++this.seq;
    this.latest.set(hostname, seq);
    try {
      const row = await this.db.selectFrom("domains").select("hostname").where("hostname", "=", hostname).executeTakeFirst();
      if (this.latest.get(hostname) !== seq) return;
      if (row) this.hosts.add(hostname);
      else this.hosts.delete(hostname);
    } catch (err) {
      this.log.warn({ err, hostname }, "custom domain refresh failed (the minute's reload retries)");
    }
  }
}
