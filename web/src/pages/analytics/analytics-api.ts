// The account analytics page's calls: the answer over an owner's links, and the CSV of the same query.
import { request } from "../../api";
import type { Analytics } from "@contract/analytics";

export const analyticsApi = {
  /** Totals, series, top links and breakdowns of the query's period and filters (403 plan_required below Business). */
  read: (query: URLSearchParams) => request<Analytics>("GET", `/api/analytics?${query}`),
  csvHref: (query: URLSearchParams) => `/api/analytics.csv?${query}`,
};
