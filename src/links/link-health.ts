// A link's `health` (docs/health.md): the worst state of its checked destinations, read for a page of links in one
// query (link_health, written by health/), and the list's `health` filter as SQL on `links`. Destinations never
// checked (or with neutral results only) count for nothing; with link checks off every link's health is null.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { LinkHealthFilter, LinkHealthSummary } from "../contract/health.js";

/** Worse last: the summary is the highest a link's destinations reach. */
const RANK: Readonly<Record<string, number>> = { ok: 1, failing: 2, broken: 3 };
const BY_RANK: readonly LinkHealthSummary[] = ["ok", "ok", "failing", "broken"];

/** The health of each of `ids` that has a checked destination (absent: null); one query for the lot. */
export async function healthOfLinks(db: Db, ids: readonly string[]): Promise<Map<string, LinkHealthSummary>> {
  const out = new Map<string, LinkHealthSummary>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom("link_health")
    .select(["link_id", "state"])
    .where("link_id", "in", [...new Set(ids)])
    .where("state", "in", ["ok", "failing", "broken"])
    .execute();
  const worst = new Map<string, number>();
  for (const r of rows) worst.set(r.link_id, Math.max(worst.get(r.link_id) ?? 0, RANK[r.state] ?? 0));
  for (const [id, rank] of worst) out.set(id, BY_RANK[rank] as LinkHealthSummary);
  return out;
}

/** A destination of `links` in one of `states`. */
const hasState = (states: string[]) => sql<boolean>`(exists (select 1 from link_health h where h.link_id = links.id and h.state in (${sql.join(states)})))`;
/** Links with a destination in `state`, found through the link_health_state index (broken and failing ones are few). */
const inState = (state: string) => sql<boolean>`(links.id in (select h.link_id from link_health h where h.state = ${state}))`;

/** The list's `health` filter as a condition on `links`; with checks off (`enabled` false) every link is unchecked. */
export function healthCondition(filter: LinkHealthFilter, enabled: boolean): RawBuilder<boolean> | null {
  if (!enabled) return filter === "unchecked" ? null : sql<boolean>`1 = 0`;
  if (filter === "broken") return inState("broken");
  if (filter === "failing") return sql<boolean>`(${inState("failing")} and not ${inState("broken")})`;
  if (filter === "ok") return sql<boolean>`(${hasState(["ok"])} and not ${hasState(["failing", "broken"])})`;
  return sql<boolean>`not ${hasState(["ok", "failing", "broken"])}`;
}
