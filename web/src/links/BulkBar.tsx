// The action bar over the selected links: archive or restore, add or remove a tag, move to a folder (roles with links.edit), delete
// (links.delete: the owner and admins, after a confirmation naming how many). The page refreshes the list and clears the selection after each action.
import { useState, type FormEvent } from "react";
import type { Link } from "@contract/links";
import type { TagListItem } from "@contract/tags";
import type { FolderListItem } from "@contract/folders";
import { ConfirmDialog } from "../shared/ui";
import { useSubmit } from "../shared/submit";
import { TagDot } from "../shared/tag-chip";
import { ChipMenu } from "./ChipMenu";
import { linksApi } from "./links-api";
import { formatNumber } from "../shared/numbers";

export const plural = (n: number) => `${formatNumber(n)} ${n === 1 ? "link" : "links"}`;

// eslint-disable-next-line max-lines-per-function -- the selection's actions and the tag picker share the bar's state.
export function BulkBar({
  selected,
  tags,
  folders,
  canEdit,
  canDelete,
  onDone,
  onClear,
}: {
  selected: Link[];
  tags: TagListItem[] | null;
  /** The owner's folders: the selection moves into one (or out of every one). */
  folders: FolderListItem[] | null;
  /** The user's role allows archiving and tagging (a team's viewer: no), and deleting (the owner and admins). */
  canEdit: boolean;
  canDelete: boolean;
  /** After an action: what was done, for the notice. */
  onDone: (message: string) => void;
  onClear: () => void;
}) {
  const [confirmDelete, setConfirmDelete] = useState(false);
  const ids = selected.map((l) => l.id);
  const n = selected.length;
  const anyArchived = selected.some((l) => l.archived);
  const anyActive = selected.some((l) => !l.archived);
  const onSelected = [...new Map(selected.flatMap((l) => l.tags).map((t) => [t.id, t])).values()].sort((a, b) => a.name.localeCompare(b.name));

  const { busy, error, run } = useSubmit(async (action: () => Promise<number>, done: (count: number) => string) => {
    const count = await action();
    setConfirmDelete(false);
    onDone(done(count));
  });
  const edit = (change: Parameters<typeof linksApi.bulkEdit>[1], done: (count: number) => string) => run(() => linksApi.bulkEdit(ids, change), done);

  return (
    <div className="bulk-bar card links-bulk" role="region" aria-label="Selected links" data-testid="links-bulk">
      <strong data-testid="links-selected-count">{plural(n)} selected</strong>
      {canEdit ? (
        <>
          {anyActive ? (
            <button
              type="button"
              className="btn btn-secondary btn-sm"
              disabled={busy}
              data-testid="bulk-archive"
              onClick={() => void edit({ archived: true }, (c) => `Archived ${plural(c)}.`)}
            >
              Archive
            </button>
          ) : null}
          {anyArchived ? (
            <button
              type="button"
              className="btn btn-secondary btn-sm"
              disabled={busy}
              data-testid="bulk-restore"
              onClick={() => void edit({ archived: false }, (c) => `Restored ${plural(c)}.`)}
            >
              Restore
            </button>
          ) : null}
          <ChipMenu label="Add tag" active={false} testId="bulk-add-tag">
            {(close) => (
              <AddTagPanel
                tags={tags}
                busy={busy}
                onAdd={(name) => {
                  close();
                  void edit({ add_tags: [name] }, (c) => `Tagged ${plural(c)} “${name}”.`);
                }}
              />
            )}
          </ChipMenu>
          <ChipMenu label="Remove tag" active={false} testId="bulk-remove-tag">
            {(close) =>
              onSelected.length === 0 ? (
                <p className="muted small">The selected links have no tags.</p>
              ) : (
                <div className="chip-choices">
                  {onSelected.map((t) => (
                    <button
                      key={t.id}
                      type="button"
                      className="chip-choice chip-choice-button"
                      disabled={busy}
                      data-testid="bulk-remove-tag-option"
                      onClick={() => {
                        close();
                        void edit({ remove_tags: [t.name] }, (c) => `Removed “${t.name}” from ${plural(c)}.`);
                      }}
                    >
                      <TagDot color={t.color} />
                      <span className="chip-choice-text">{t.name}</span>
                    </button>
                  ))}
                </div>
              )
            }
          </ChipMenu>
          {folders && folders.length > 0 ? (
            <ChipMenu label="Move to folder" active={false} testId="bulk-move">
              {(close) => (
                <div className="chip-choices">
                  {[...folders, { id: "", name: "No folder" }].map((f) => (
                    <button
                      key={f.id || "none"}
                      type="button"
                      className="chip-choice chip-choice-button"
                      disabled={busy}
                      data-testid="bulk-move-option"
                      onClick={() => {
                        close();
                        void edit({ folder_id: f.id || null }, (c) =>
                          f.id ? `Moved ${plural(c)} to “${f.name}”.` : `Took ${plural(c)} out of their folders.`,
                        );
                      }}
                    >
                      <span className="chip-choice-text">{f.name}</span>
                    </button>
                  ))}
                </div>
              )}
            </ChipMenu>
          ) : null}
        </>
      ) : (
        <span className="muted small" data-testid="bulk-read-only">
          Your role in this team does not allow changing links.
        </span>
      )}
      {canDelete ? (
        <button type="button" className="btn btn-danger-ghost btn-sm" disabled={busy} data-testid="bulk-delete" onClick={() => setConfirmDelete(true)}>
          Delete
        </button>
      ) : null}
      <button type="button" className="btn-link" onClick={onClear} data-testid="bulk-clear">
        Clear the selection
      </button>
      {busy ? <span className="muted small">Working…</span> : null}
      {error && !confirmDelete ? (
        <p className="text-error small bulk-error" role="alert" data-testid="bulk-error">
          {error}
        </p>
      ) : null}
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete ${plural(n)}?`}
        confirmLabel={`Delete ${plural(n)}`}
        danger
        busy={busy}
        error={confirmDelete ? error : null}
        onCancel={() => setConfirmDelete(false)}
        onConfirm={() =>
          void run(
            () => linksApi.bulkDelete(ids),
            (c) => `Deleted ${plural(c)}.`,
          )
        }
      >
        <p>The {plural(n)} will stop working immediately (visitors get “not found”), and their statistics are deleted too. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}

/** The owner's tags to pick from, and a box for a new tag's name (created on the way). */
function AddTagPanel({ tags, busy, onAdd }: { tags: TagListItem[] | null; busy: boolean; onAdd: (name: string) => void }) {
  const [name, setName] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim()) onAdd(name.trim());
  };
  return (
    <>
      <form className="tag-new" onSubmit={submit}>
        <label htmlFor="bulk-tag-name" className="visually-hidden">
          Tag name
        </label>
        <input
          id="bulk-tag-name"
          type="text"
          placeholder="Tag name"
          maxLength={40}
          value={name}
          onChange={(e) => setName(e.target.value)}
          data-testid="bulk-tag-name"
        />
        <button type="submit" className="btn btn-primary btn-sm" disabled={busy || !name.trim()} data-testid="bulk-tag-submit">
          Add
        </button>
      </form>
      <div className="chip-choices">
        {(tags ?? []).map((t) => (
          <button
            key={t.id}
            type="button"
            className="chip-choice chip-choice-button"
            disabled={busy}
            data-testid="bulk-add-tag-option"
            onClick={() => onAdd(t.name)}
          >
            <TagDot color={t.color} />
            <span className="chip-choice-text">{t.name}</span>
          </button>
        ))}
      </div>
    </>
  );
}
