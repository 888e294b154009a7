// The link page's reads besides the link: its statistics of the last 30 days in the browser's zone (the statistics
// page's route), and its destinations' health.
import { call, snip } from "../../shared/api";
import { browserZone } from "../../shared/charts/period";

export const monthStats = (id: string) => call(snip.GET("/api/links/{id}/stats", { params: { path: { id }, query: { range: "30d", tz: browserZone() } } }));

export type MonthStats = Awaited<ReturnType<typeof monthStats>>;

export const linkHealth = (id: string) => call(snip.GET("/api/links/{id}/health", { params: { path: { id } } }));

export type LinkHealthReport = Awaited<ReturnType<typeof linkHealth>>;
