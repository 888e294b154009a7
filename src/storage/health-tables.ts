// Link health (docs/health.md, migration 058).
import type { Generated, Selectable } from "kysely";

export interface LinkHealthTable {
  id: string;
  link_id: string;
  /** default, ios, android, rule:N, variant:N or fallback. */
  destination: string;
  url: string;
  /** The url's host, lowercased: what the per-host limits count by. */
  host: string;
  /** unknown, ok, failing or broken. */
  state: Generated<string>;
  consecutive_failures: Generated<number>;
  /** 429 answers in a row. */
  rate_limited: Generated<number>;
  last_result: string | null;
  last_status: number | null;
  last_error: string | null;
  final_url: string | null;
  redirect_loop: Generated<number>;
  tls_valid_to: number | null;
  response_ms: number | null;
  last_checked_at: number | null;
  next_check_at: number;
  broken_since: number | null;
  lease_until: number | null;
}

export interface LinkHealthResultsTable {
  id: string;
  health_id: string;
  at: number;
  result: string;
  status_code: number | null;
  error: string | null;
  final_url: string | null;
  response_ms: number | null;
}

export interface LinkHealthChangesTable {
  id: string;
  owner_id: string;
  link_id: string;
  destination: string;
  url: string;
  /** broken or recovered */
  change: string;
  at: number;
  digested_at: number | null;
}

export type LinkHealthRow = Selectable<LinkHealthTable>;

export interface HealthTables {
  link_health: LinkHealthTable;
  link_health_results: LinkHealthResultsTable;
  link_health_changes: LinkHealthChangesTable;
}
