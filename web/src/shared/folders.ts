// The account's folders (docs/folders.md), shared by the sidebar, the link list, its bulk bar and the link form:
// read once per owner, read again whenever a change may have moved a count (reloadFolders).
import { useEffect, useState } from "react";
import type { FolderListItem } from "@contract/folders";
import { NO_FOLDER } from "@contract/tables";
import { call, ownerQuery, snip } from "./api";

export { NO_FOLDER };

export const foldersApi = {
  list: (owner: string | null | undefined) => call(snip.GET("/api/folders", ownerQuery(owner))).then((r) => r.folders),
  create: (name: string, owner: string | null | undefined) => call(snip.POST("/api/folders", { ...ownerQuery(owner), body: { name } })).then((r) => r.folder),
  rename: (id: string, name: string) => call(snip.PATCH("/api/folders/{id}", { params: { path: { id } }, body: { name } })).then((r) => r.folder),
  remove: (id: string) => call(snip.DELETE("/api/folders/{id}", { params: { path: { id } } })).then((r) => r.moved),
};

let version = 0;
const listeners = new Set<() => void>();

/** Every reader of the folders reads them again (after a move, a creation, a rename or a deletion). */
export function reloadFolders(): void {
  version++;
  for (const l of listeners) l();
}

/** The owner's folders (null while loading; [] when they cannot be read), kept current through reloadFolders. */
export function useFolders(owner: string | null | undefined): FolderListItem[] | null {
  const [seen, setSeen] = useState(version);
  const [folders, setFolders] = useState<{ key: string; list: FolderListItem[] } | null>(null);
  const key = `${owner ?? ""}:${seen}`;
  useEffect(() => {
    const on = () => setSeen(version);
    listeners.add(on);
    return () => void listeners.delete(on);
  }, []);
  useEffect(() => {
    let live = true;
    foldersApi
      .list(owner)
      .then((list) => live && setFolders({ key, list }))
      .catch(() => live && setFolders({ key, list: [] }));
    return () => {
      live = false;
    };
  }, [key, owner]);
  // The previous owner's list is not shown for another owner while it loads.
  return folders && folders.key.split(":")[0] === (owner ?? "") ? folders.list : null;
}
