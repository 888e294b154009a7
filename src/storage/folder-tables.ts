// The folders of an account's links (migration 050, docs/folders.md) and members' access to them (migration 054); links.folder_id and api_keys.folder_ids are in schema.ts.
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

/** A member's stated access to one folder of its team's owner (migration 054); no row: the member's role decides. */
export interface FolderAccessTable {
  folder_id: string;
  owner_id: string;
  member_id: string;
  /** none, read or write (contract/folders.ts FOLDER_ACCESS). */
  access: string;
  updated_at: number;
}

export interface FolderTables {
  folders: FoldersTable;
  folder_access: FolderAccessTable;
}
