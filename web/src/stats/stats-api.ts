// The statistics page's call: a link's statistics over a period.
import { call, snip } from "../shared/api";
import type { Query } from "@snip/client";

/** The period of a statistics read: `range`, or `from` and `to`, and `tz` (shared/charts/period.ts builds it). */
export type StatsPeriod = Query<"/api/links/{id}/stats", "get">;

export const statsApi = {
  stats: (id: string, period: StatsPeriod) => call(snip.GET("/api/links/{id}/stats", { params: { path: { id }, query: period } })),
};
