// The operator console's overview (docs/operator.md, Overview): accounts, links, this week's clicks and top
// links from the daily roll-up, open reports, the health of this instance's click writer and webhook queue, and the
// link checks' figures (links broken, destinations due).
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { PLANS, type Plan } from "../accounts/plans.js";
import { DAY_MS, ymd } from "../clicks/range.js";
import { shortUrl } from "../links/public-link.js";
import type { HostBlocklist } from "../links/host-blocklist.js";
import type { AdminOverview as Overview } from "../contract/admin.js";

export interface OverviewDeps {
  db: Db;
  clock: Clock;
  origin: string;
  blocklist: HostBlocklist;
  clickBacklog: () => { pending: number; oldestAt: number | null; spilled: number; journalBytes: number; dropped: number };
  webhookQueue: () => { queued: number; dropped: number };
  /** Link health's figures across the instance (health/link-health.ts overview()). */
  linkChecks: () => Promise<Overview["link_checks"]>;
}

const TOP_LINKS = 10;

export class AdminOverview {
  constructor(private readonly deps: OverviewDeps) {}

  async read(): Promise<Overview> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const database = await sql`select 1`
      .execute(db)
      .then(() => "ok" as const)
      .catch(() => "error" as const);

    const accounts = await this.accounts();

    const links = await db
      .selectFrom("links")
      .select((eb) => [eb.fn.countAll<number | string>().as("total"), eb.fn.count<number | string>("disabled_at").as("disabled")])
      .executeTakeFirstOrThrow();

    // UTC days, as the roll-up keys them: today, and today with the six days before.
    const today = ymd(now);
    const weekStart = ymd(now - 6 * DAY_MS);
    const clicks = await this.clicks(today, weekStart);
    const top = await this.topLinks(today, weekStart);

    const reports = await db
      .selectFrom("abuse_reports")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("state", "=", "open")
      .executeTakeFirstOrThrow();

    const backlog = this.deps.clickBacklog();
    return {
      accounts,
      links: { total: Number(links.total), disabled: Number(links.disabled) },
      clicks,
      top_links: top.map((t) => ({
        id: t.id,
        alias: t.alias,
        domain: t.domain === "" ? null : t.domain,
        short_url: shortUrl(this.deps.origin, t.domain, t.alias),
        url: t.url,
        owner_email: t.owner_email ?? null,
        clicks: Number(t.clicks),
      })),
      reports_open: Number(reports.n),
      health: {
        database,
        click_writer: {
          pending: backlog.pending,
          oldest_ms: backlog.oldestAt === null ? 0 : Math.max(0, now - backlog.oldestAt),
          journal_only: backlog.spilled,
          journal_bytes: backlog.journalBytes,
          dropped: backlog.dropped,
        },
        webhook_queue: this.deps.webhookQueue(),
      },
      blocklist: this.deps.blocklist.counts(),
      link_checks: await this.deps.linkChecks(),
    };
  }

  /** Accounts by status and by plan. */
  /** Clicks today and over the week (from the daily roll-up). */
  private async clicks(today: string, weekStart: string): Promise<Overview["clicks"]> {
    const days = await this.deps.db
      .selectFrom("click_daily")
      .select((eb) => ["day", eb.fn.sum<number | string>("clicks").as("n")])
      .where("day", ">=", weekStart)
      .where("day", "<=", today)
      .groupBy("day")
      .execute();
    const clicks = { today: 0, week: 0 };
    for (const d of days) {
      clicks.week += Number(d.n);
      if (d.day === today) clicks.today += Number(d.n);
    }
    return clicks;
  }

  /** The week's most clicked links, with their owners. */
  private topLinks(today: string, weekStart: string) {
    return this.deps.db
      .selectFrom("click_daily as d")
      .innerJoin("links as l", "l.id", "d.link_id")
      .leftJoin("users as u", "u.id", "l.owner_id")
      .select((eb) => ["l.id", "l.alias", "l.domain", "l.url", "u.email as owner_email", eb.fn.sum<number | string>("d.clicks").as("clicks")])
      .where("d.day", ">=", weekStart)
      .where("d.day", "<=", today)
      .groupBy(["l.id", "l.alias", "l.domain", "l.url", "u.email"])
      .orderBy("clicks", "desc")
      .orderBy("l.id")
      .limit(TOP_LINKS)
      .execute();
  }

  private async accounts(): Promise<Overview["accounts"]> {
    const by_plan = Object.fromEntries(PLANS.map((p) => [p, 0])) as Record<Plan, number>;
    const accounts = { total: 0, active: 0, suspended: 0, by_plan };
    const groups = await this.deps.db
      .selectFrom("users")
      .select((eb) => ["plan", "status", eb.fn.countAll<number | string>().as("n")])
      .groupBy(["plan", "status"])
      .execute();
    for (const g of groups) {
      const n = Number(g.n);
      accounts.total += n;
      if (g.status === "active") accounts.active += n;
      else if (g.status === "suspended") accounts.suspended += n;
      if (g.plan in by_plan) by_plan[g.plan as Plan] += n;
    }
    return accounts;
  }
}
