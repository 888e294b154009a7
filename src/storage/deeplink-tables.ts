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

export interface DeeplinkTables {
  app_associations: AppAssociationsTable;
}
