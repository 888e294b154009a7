// Tables of links that open apps (migration 045, docs/deep-links.md).
import type { Selectable } from "kysely";

/** The apps of one host: `id` "main" (the main host, domain_id null) or the custom domain's id. */
export interface AppAssociationsTable {
  id: string;
  domain_id: string | null;
  /** JSON: [{app_id, paths, webcredentials}] */
  ios: string;
  /** JSON: [{package, sha256_cert_fingerprints}] */
  android: string;
  updated_at: number;
}
export type AppAssociationRow = Selectable<AppAssociationsTable>;

/** A pending match of a deferred deep link (migration 048): an iOS store visit waiting for the app's first launch. */
export interface DeeplinkMatchesTable {
  click_id: string;
  link_id: string;
  owner_id: string;
  /** HMAC-SHA-256 of the client address (base64url), keyed from the server's secret: never the address. */
  address: string;
  platform: string;
  os_version: string | null;
  device_model: string | null;
  language: string | null;
  params: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}
export type DeeplinkMatchRow = Selectable<DeeplinkMatchesTable>;

/** An app install or open reported through POST /api/deeplinks/open (migration 048). */
export interface AppEventsTable {
  id: string;
  link_id: string;
  owner_id: string;
  kind: "app_open" | "app_install";
  match: "deterministic" | "probabilistic";
  click_id: string | null;
  created_at: number;
}

export interface DeeplinkTables {
  app_associations: AppAssociationsTable;
  deeplink_matches: DeeplinkMatchesTable;
  app_events: AppEventsTable;
}
