// The folders under Links in the sidebar (docs/folders.md): each with its count of links, a link to the list filtered
// by it, and a box to create one (Business and up). Renaming and deleting are on the list, for the folder shown.
import { useState, type FormEvent } from "react";
import { Link, useLocation } from "react-router";
import { useSession } from "./session";
import { useTeamView } from "./team-view";
import { can } from "./plan-gate";
import { foldersApi, reloadFolders, useFolders } from "./folders";
import { formatNumber } from "./numbers";
import { FolderNameInput } from "./FolderNameInput";

/** A folder's outline (Feather's "folder"). */
export const FOLDER_ICON = "M22 19a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h5l2 3h9a2 2 0 0 1 2 2z";

export function SidebarFolders({ icon, onChoose }: { icon: (path: string) => React.ReactNode; onChoose: () => void }) {
  const { user } = useSession();
  const { ownerId } = useTeamView();
  const { pathname, search } = useLocation();
  const shared = pathname.startsWith("/app/shared/") ? ownerId : null;
  const folders = useFolders(shared);
  const [adding, setAdding] = useState(false);
  const mayCreate = !!user && (shared !== null || can(user.plan, "folders"));
  if (!user || folders === null || (folders.length === 0 && !mayCreate)) return null;
  const base = shared ? `/app/shared/${encodeURIComponent(shared)}` : "/app";
  const chosen = pathname === base ? new URLSearchParams(search).get("folder_id") : null;
  return (
    <div className="side-folders" data-testid="side-folders">
      <div className="side-folders-head">
        <span className="side-subheading" id="side-folders-heading">
          Folders
        </span>
        {mayCreate ? (
          <button
            type="button"
            className="side-folder-add"
            data-testid="folder-add"
            aria-expanded={adding}
            title="New folder"
            aria-label="New folder"
            onClick={() => setAdding(!adding)}
          >
            +
          </button>
        ) : null}
      </div>
      {adding ? <NewFolder owner={shared} onDone={() => setAdding(false)} /> : null}
      <ul className="side-list" aria-labelledby="side-folders-heading">
        {folders.map((f) => {
          const here = chosen === f.id;
          return (
            <li key={f.id}>
              <Link
                to={`${base}?folder_id=${encodeURIComponent(f.id)}`}
                className={`side-link side-folder${here ? " active" : ""}`}
                aria-current={here ? "page" : undefined}
                data-testid="side-folder"
                title={f.name}
                onClick={onChoose}
              >
                {icon(FOLDER_ICON)}
                <span className="side-label">{f.name}</span>
                <span className="side-count" aria-label={`${f.link_count} links`} data-testid="side-folder-count">
                  {formatNumber(f.link_count)}
                </span>
              </Link>
            </li>
          );
        })}
        {folders.length === 0 && !adding ? <li className="side-empty muted small">No folders yet.</li> : null}
      </ul>
    </div>
  );
}

function NewFolder({ owner, onDone }: { owner: string | null; onDone: () => void }) {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await foldersApi.create(name, owner);
      reloadFolders();
      onDone();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="side-folder-new" onSubmit={(e) => void submit(e)} onKeyDown={(e) => e.key === "Escape" && onDone()}>
      <FolderNameInput id="side-folder-name" testId="folder-name" value={name} onChange={setName} errorId={error ? "side-folder-error" : null} />
      <button type="submit" className="btn btn-primary btn-sm" disabled={busy || !name.trim()} data-testid="folder-create">
        Add
      </button>
      {error ? (
        <p id="side-folder-error" className="text-error small" role="alert" data-testid="folder-error">
          {error}
        </p>
      ) : null}
    </form>
  );
}
