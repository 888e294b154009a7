// Tables of imports (migration 024, docs/import.md): jobs with their resume cursor, each line's outcome
// (the report), and which source link became which snip link (a re-run skips it).
import type { Generated, Selectable } from "kysely";

export interface ImportJobsTable {
  id: string;
  /** The account whose links are created. */
  owner_id: string;
  /** Who started it (the owner or a team member). */
  created_by: string;
  source: string;
  base_url: string | null;
  /** Identifies the source's account across runs: the idempotence key's first half (source + base + group). */
  source_key: string;
  /** Bitly's group, when one was picked. */
  source_group: string | null;
  /** The API token, sealed with SESSION_SECRET (needed again on resume); null for files. */
  token_sealed: string | null;
  /** CSV/JSON: the file's text (kept until the job ends, then cleared). */
  file: string | null;
  on_taken: string;
  /** queued | running | done | failed | cancelled */
  state: string;
  /** Reads the next page; null before the first page. */
  cursor: string | null;
  /** Lines given out so far (the next line's number - 1). */
  lines: Generated<number>;
  total: number | null;
  read_count: Generated<number>;
  created_count: Generated<number>;
  skipped_count: Generated<number>;
  failed_count: Generated<number>;
  visit_count: Generated<number>;
  error: string | null;
  /** The instance working on it holds it until this time (renewed while it works). */
  lease_until: number | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
  /** When the current run started and how many links were read before it (the rate and the time left). */
  run_started_at: number | null;
  run_read_base: Generated<number>;
}

export interface ImportItemsTable {
  job_id: string;
  line: number;
  source_id: string;
  url: string;
  alias: string | null;
  /** The short link's host ("" for the main host) when one was created or found. */
  domain: string | null;
  /** created | skipped | failed */
  status: string;
  code: string | null;
  /** Notes joined by "; ". */
  notes: string | null;
}

export interface ImportedLinksTable {
  owner_id: string;
  source_key: string;
  source_id: string;
  link_id: string;
}

/** Each account's links, kept by triggers on users and links (migration 024): the plan's allowance reads it. */
export interface LinkCountsTable {
  owner_id: string;
  links: Generated<number>;
}

export interface ImportTables {
  link_counts: LinkCountsTable;
  import_jobs: ImportJobsTable;
  import_items: ImportItemsTable;
  imported_links: ImportedLinksTable;
}

export type ImportJobRow = Selectable<ImportJobsTable>;
