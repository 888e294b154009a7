// Deferred deep links and app events (issue 57, docs/deep-links.md): the store visits a tracked click records,
// the pending matches an iOS store visit leaves for the app's first launch (POST /api/deeplinks/open), and the app
// installs and opens that launch reports, counted per link.
import type { Kysely } from "kysely";

export function appEvents() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // "ios" or "android": the redirect sent this click to the store listing of the link's app; null for every other click.
      await db.schema.alterTable("tracked_clicks").addColumn("store", "text").execute();
      await db.schema.createIndex("tracked_clicks_store").on("tracked_clicks").columns(["link_id", "store", "at"]).execute();
      // One row per click id; never the raw address: `address` is an HMAC of it under a key derived from the server's secret.
      await db.schema
        .createTable("deeplink_matches")
        .addColumn("click_id", "text", (c) => c.primaryKey())
        .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
        .addColumn("owner_id", "text", (c) => c.notNull())
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("platform", "text", (c) => c.notNull())
        .addColumn("os_version", "text")
        .addColumn("device_model", "text")
        .addColumn("language", "text")
        // The destination's query and the visit's, as the app gets them (name=value&...).
        .addColumn("params", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("used_at", "bigint")
        .execute();
      await db.schema.createIndex("deeplink_matches_address").on("deeplink_matches").columns(["address", "expires_at"]).execute();
      await db.schema.createIndex("deeplink_matches_expires").on("deeplink_matches").columns(["expires_at"]).execute();
      await db.schema
        .createTable("app_events")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
        .addColumn("owner_id", "text", (c) => c.notNull())
        // app_open or app_install
        .addColumn("kind", "text", (c) => c.notNull())
        // deterministic or probabilistic
        .addColumn("match", "text", (c) => c.notNull())
        .addColumn("click_id", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("app_events_link").on("app_events").columns(["link_id", "created_at"]).execute();
      await db.schema.createIndex("app_events_owner").on("app_events").columns(["owner_id", "created_at"]).execute();
      // A click's install is counted once however often the app asks (null click ids are distinct on both engines).
      await db.schema.createIndex("app_events_click").on("app_events").columns(["click_id", "kind"]).unique().execute();
    },
  };
}
