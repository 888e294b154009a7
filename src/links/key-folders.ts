// An API key limited to folders (docs/folders.md, API keys): it reads, creates, changes and exports only the links
// in its folders. A link outside them answers as one that does not exist; a write that would file a link outside
// them is refused. A folder of the key deleted later narrows the key (never widens it): with none left it sees nothing.
import { DomainError, invalid } from "../shared/errors.js";
import type { LinkRow } from "../storage/schema.js";

/** The key's folders, or null for a key that sees every link of its account. */
export type KeyFolders = readonly string[] | null;

/** not_found unless the key may see the link. */
export function requireKeyFolder(folders: KeyFolders, link: Pick<LinkRow, "folder_id">): void {
  if (folders === null) return;
  if (link.folder_id === null || !folders.includes(link.folder_id)) throw new DomainError("not_found", "No such link");
}

/**
 * The folder_id a key's write sets: unchanged for a key without folders; else one of the key's folders. A creation
 * without folder_id goes into the key's folder when it has exactly one.
 */
export function keyFolderInput(folders: KeyFolders, given: string | null | undefined, creating: boolean): string | null | undefined {
  if (folders === null) return given;
  if (given === undefined && !creating) return undefined;
  if (given === undefined && folders.length === 1) return folders[0];
  if (given === undefined || given === null || !folders.includes(given)) {
    throw invalid("folder_id", "This API key works only in its folders: give folder_id, one of the key's folders");
  }
  return given;
}
