// Creates a short link with the external API (an API key), then reads its statistics (a signed-in session).
// Run on your server: SNIP_URL=https://sn.example.com SNIP_API_KEY=snip_… SNIP_EMAIL=… SNIP_PASSWORD=… npx tsx create-link-and-read-stats.ts
import { createSnipClient, signIn } from "@snip/client";

const env = (name: string) => process.env[name] ?? "";
const baseUrl = env("SNIP_URL");

// The key stays on the server: read it from the environment, never ship it to a browser.
const api = createSnipClient({ baseUrl, apiKey: env("SNIP_API_KEY") });
const created = await api.POST("/api/external-create.php", { body: { url: "https://example.com/a/long/page" } });
if (!created.data) throw new Error(`snip ${created.response.status}: ${JSON.stringify(created.error)}`);
console.log(`created ${created.data.short_url}`);

// Statistics are the dashboard's: sign in once, the client keeps the session's cookie.
const dashboard = createSnipClient({ baseUrl, keepCookies: true });
const signedIn = await signIn(dashboard, env("SNIP_EMAIL"), env("SNIP_PASSWORD"));
if (!signedIn.data) throw new Error(`sign-in ${signedIn.response.status}: ${JSON.stringify(signedIn.error)}`);
const stats = await dashboard.GET("/api/links/{id}/stats", { params: { path: { id: created.data.link.id }, query: { range: "7d" } } });
if (!stats.data) throw new Error(`statistics ${stats.response.status}: ${JSON.stringify(stats.error)}`);
console.log(`${stats.data.total_clicks} clicks in total, ${stats.data.range_clicks} in the last 7 days`);
