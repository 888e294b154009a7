// The folders of an account's links (migration 050, docs/folders.md); links.folder_id and api_keys.folder_ids are in schema.ts.
import type { Selectable } from "kysely";

export interface FoldersTable {
  id: string;
  owner_id: string;
  name: string;
  /** lower(name): unique per owner. */
  name_key: string;
  created_at: number;
  updated_at: number;
}
export type FolderRow = Selectable<FoldersTable>;

export interface FolderTables {
  folders: FoldersTable;
}
