// The link page's one statistics read: the last 30 days in the browser's zone (the statistics page's route).
import { call, snip } from "../../shared/api";
import { browserZone } from "../../shared/charts/period";

export const monthStats = (id: string) => call(snip.GET("/api/links/{id}/stats", { params: { path: { id }, query: { range: "30d", tz: browserZone() } } }));

export type MonthStats = Awaited<ReturnType<typeof monthStats>>;
