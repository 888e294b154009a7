// The account analytics page's calls: the answer over an owner's links, and the CSV of the same query.
import { call, snip } from "../shared/api";
import type { Query } from "@snip/client";
import { queryString } from "../shared/charts/period";

export type AnalyticsParams = Query<"/api/analytics", "get">;

export const analyticsApi = {
  /** Totals, series, top links and breakdowns of the query's period and filters (403 plan_required below Business). */
  read: (query: AnalyticsParams) => call(snip.GET("/api/analytics", { params: { query } })),
  csvHref: (query: AnalyticsParams) => `/api/analytics.csv?${queryString(query)}`,
};
