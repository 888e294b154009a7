// What the operator console and the domains page show of orphan visits (docs/orphan-visits.md): totals per
// day, the most visited missing paths (with the alias that would answer them), referrers and devices.
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { dayOf } from "../clicks/click-groups.js";
import { ALIAS_RE } from "../links/validate.js";
import { isReservedAlias } from "../links/reserved.js";
import { ORPHAN_TOP, type OrphanReport } from "../contract/orphans.js";
import { OTHER_PATH } from "./orphan-visits.js";

const DAY_MS = 86_400_000;

/** The alias a path names ("/summer-sale" → "summer-sale"), or null when no link could answer it. */
export function aliasOfPath(path: string): string | null {
  if (path === OTHER_PATH || !path.startsWith("/")) return null;
  const alias = path.slice(1);
  return ALIAS_RE.test(alias) && !isReservedAlias(alias) ? alias : null;
}

/** `host`: one host's ("" the main host), or undefined for every host (the operator). */
export async function orphanReport(db: Db, clock: Clock, days: number, host: string | undefined): Promise<OrphanReport> {
  const now = clock.now();
  const from = dayOf(now - (days - 1) * DAY_MS);
  let base = db.selectFrom("orphan_visits").where("day", ">=", from);
  if (host !== undefined) base = base.where("host", "=", host);
  const [perDay, paths, referrers, devices] = await Promise.all([
    base
      .select(["day"])
      .select((eb) => eb.fn.sum<number>("visits").as("visits"))
      .groupBy("day")
      .execute(),
    base
      .select(["host", "path"])
      .select((eb) => eb.fn.sum<number>("visits").as("visits"))
      .groupBy(["host", "path"])
      .orderBy(sql`sum(visits)`, "desc")
      .orderBy("path")
      .limit(ORPHAN_TOP)
      .execute(),
    base
      .select(["referrer_host"])
      .select((eb) => eb.fn.sum<number>("visits").as("visits"))
      .where("path", "!=", OTHER_PATH)
      .groupBy("referrer_host")
      .orderBy(sql`sum(visits)`, "desc")
      .orderBy("referrer_host")
      .limit(ORPHAN_TOP)
      .execute(),
    base
      .select(["device"])
      .select((eb) => eb.fn.sum<number>("visits").as("visits"))
      .groupBy("device")
      .orderBy(sql`sum(visits)`, "desc")
      .orderBy("device")
      .execute(),
  ]);
  const byDay = new Map(perDay.map((r) => [r.day, Number(r.visits)]));
  const series = Array.from({ length: days }, (_, i) => {
    const day = dayOf(now - (days - 1 - i) * DAY_MS);
    return { day, visits: byDay.get(day) ?? 0 };
  });
  return {
    days,
    total: series.reduce((n, d) => n + d.visits, 0),
    by_day: series,
    top_paths: paths.map((r) => ({ host: r.host === "" ? null : r.host, path: r.path, alias: aliasOfPath(r.path), visits: Number(r.visits) })),
    referrers: referrers.map((r) => ({ referrer_host: r.referrer_host, visits: Number(r.visits) })),
    devices: devices.map((r) => ({ device: r.device, visits: Number(r.visits) })),
  };
}
