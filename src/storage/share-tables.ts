// Shared statistics (docs/sharing.md, migration 056).
import type { Selectable } from "kysely";

export interface SharesTable {
  id: string;
  owner_id: string;
  /** SHA-256 of the address's token (hex): what a visit is looked up by. */
  token_hash: string;
  /** The token sealed with the instance's key (shares.ts), so that its owner can copy the address again. */
  token_sealed: string;
  link_id: string | null;
  tag_id: string | null;
  folder_id: string | null;
  password_hash: string | null;
  expires_at: number | null;
  /** JSON array of panel names. */
  panels: string;
  created_by: string | null;
  created_at: number;
}

export type ShareRow = Selectable<SharesTable>;

export interface ShareTables {
  shares: SharesTable;
}
