// Creates a short link, then reads its statistics, both with one API key (scopes links:create and stats:read).
// Run on your server: SNIP_URL=https://sn.example.com SNIP_API_KEY=snip_… npx tsx create-link-and-read-stats.ts
import { createSnipClient } from "@snip/client";

const env = (name: string) => process.env[name] ?? "";

// The key stays on the server: read it from the environment, never ship it to a browser.
const api = createSnipClient({ baseUrl: env("SNIP_URL"), apiKey: env("SNIP_API_KEY") });
const created = await api.POST("/api/external-create.php", { body: { url: "https://example.com/a/long/page" } });
if (!created.data) throw new Error(`snip ${created.response.status}: ${JSON.stringify(created.error)}`);
console.log(`created ${created.data.short_url}`);

// The same key reads the link's statistics (the dashboard's figures) with the scope stats:read.
const id = created.data.link.id;
const stats = await api.GET("/api/external/links/{id}/stats", { params: { path: { id }, query: { range: "7d" } } });
if (!stats.data) throw new Error(`statistics ${stats.response.status}: ${JSON.stringify(stats.error)}`);
console.log(`${stats.data.total_clicks} clicks in total, ${stats.data.range_clicks} in the last 7 days`);
