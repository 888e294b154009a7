// Over the list filtered by a folder (docs/folders.md): which folder, its count, and for its owner renaming and
// deleting it (its links then in no folder), for an Enterprise owner its members' access (FolderAccessDialog), sharing its
// statistics (Business and up; docs/sharing.md); "All links" leaves the folder.
import { useState, type FormEvent } from "react";
import type { FolderListItem } from "@contract/folders";
import { FolderNameInput } from "../shared/FolderNameInput";
import { ConfirmDialog } from "../shared/ui";
import { useSubmit } from "../shared/submit";
import { NO_FOLDER, foldersApi, reloadFolders } from "../shared/folders";
import { plural } from "./BulkBar";
import { FolderAccessButton } from "./FolderAccessDialog";
import { ShareStatsButton } from "../shared/ShareStats";

interface FolderHeadProps {
  folder: string;
  folders: FolderListItem[] | null;
  canManage: boolean;
  /** Show the folder's access table (the owner on Enterprise). */
  canAccess?: boolean;
  /** Share the folder's statistics: null for the user's own folder, the owner's id for a team's; undefined: no button. */
  shareOwner?: string | null;
  onLeave: () => void;
  onChanged: (message: string) => void;
}

export function FolderHead(props: FolderHeadProps) {
  const { folder, folders, canManage } = props;
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState("");
  const [confirm, setConfirm] = useState(false);
  const { busy, error, run } = useSubmit(async (action: () => Promise<string>) => {
    const message = await action();
    setRenaming(false);
    setConfirm(false);
    reloadFolders();
    props.onChanged(message);
  });
  if (!folder) return null;
  const current = folders?.find((f) => f.id === folder) ?? null;
  const title = folder === NO_FOLDER ? "Links in no folder" : current ? current.name : folders === null ? "Folder" : "Folder not found";
  const rename = (e: FormEvent) => {
    e.preventDefault();
    if (current) void run(async () => `Renamed the folder “${(await foldersApi.rename(current.id, name)).name}”.`);
  };
  return (
    <div className="folder-head card" data-testid="folder-head">
      {renaming && current ? (
        <RenameForm name={name} setName={setName} busy={busy} onSubmit={rename} onCancel={() => setRenaming(false)} />
      ) : (
        <h2 className="folder-title" data-testid="folder-title">
          {title}
          {current ? <span className="muted small folder-count"> · {plural(current.link_count)}</span> : null}
        </h2>
      )}
      <div className="row gap folder-actions">
        {props.canAccess && current && !renaming ? <FolderAccessButton folder={current} /> : null}
        {props.shareOwner !== undefined && current && !renaming ? <ShareStatsButton target={{ folder_id: current.id }} owner={props.shareOwner} /> : null}
        {canManage && current && !renaming ? (
          <ManageButtons
            onRename={() => {
              setName(current.name);
              setRenaming(true);
            }}
            onDelete={() => setConfirm(true)}
          />
        ) : null}
        <button type="button" className="btn-link" data-testid="folder-leave" onClick={props.onLeave}>
          All links
        </button>
      </div>
      {error && !confirm ? (
        <p className="text-error small" role="alert" data-testid="folder-head-error">
          {error}
        </p>
      ) : null}
      <ConfirmDialog
        open={confirm}
        title={`Delete the folder “${current?.name ?? ""}”?`}
        confirmLabel="Delete folder"
        danger
        busy={busy}
        error={confirm ? error : null}
        onCancel={() => setConfirm(false)}
        onConfirm={() =>
          current &&
          void run(async () => {
            const moved = await foldersApi.remove(current.id);
            props.onLeave();
            return `Deleted the folder “${current.name}”; its ${plural(moved)} are in no folder now.`;
          })
        }
      >
        <p>Its links are not deleted: they stay in your list, in no folder.</p>
      </ConfirmDialog>
    </div>
  );
}

function RenameForm(props: { name: string; setName: (name: string) => void; busy: boolean; onSubmit: (e: FormEvent) => void; onCancel: () => void }) {
  return (
    <form className="folder-rename" onSubmit={props.onSubmit}>
      <FolderNameInput id="folder-rename-name" testId="folder-rename-name" value={props.name} onChange={props.setName} />
      <button type="submit" className="btn btn-primary btn-sm" disabled={props.busy || !props.name.trim()} data-testid="folder-rename-save">
        Save
      </button>
      <button type="button" className="btn btn-secondary btn-sm" onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  );
}

function ManageButtons({ onRename, onDelete }: { onRename: () => void; onDelete: () => void }) {
  return (
    <>
      <button type="button" className="btn btn-secondary btn-sm" data-testid="folder-rename" onClick={onRename}>
        Rename
      </button>
      <button type="button" className="btn btn-danger-ghost btn-sm" data-testid="folder-delete" onClick={onDelete}>
        Delete folder
      </button>
    </>
  );
}
