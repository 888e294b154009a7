// A folder's access table (docs/folders.md, Access): each member of the owner's team with its role and a select of
// the access it has in this folder (the role's default, none, read or write). Each choice is saved at once (PUT, or
// DELETE for the default); the server caps it by the role, and the "holds" column shows what applies.
import { useEffect, useId, useState } from "react";
import type { FolderMemberAccess } from "@contract/folders";
import { ROLE_LABELS } from "@contract/tables";
import { call, snip } from "../shared/api";
import { Alert, Modal, Spinner } from "../shared/ui";

const CHOICES = [
  { value: "default", label: "Default (role)" },
  { value: "none", label: "None" },
  { value: "read", label: "Read" },
  { value: "write", label: "Write" },
] as const;
type Choice = (typeof CHOICES)[number]["value"];

const HOLDS: Record<FolderMemberAccess["effective"], string> = { none: "Hidden", read: "Reads", write: "Reads and edits" };

const path = (id: string) => ({ params: { path: { id } } });
const accessApi = {
  list: (id: string) => call(snip.GET("/api/folders/{id}/access", path(id))).then((r) => r.members),
  set: (id: string, user_id: string, choice: Choice) =>
    choice === "default"
      ? call(snip.DELETE("/api/folders/{id}/access/{user_id}", { params: { path: { id, user_id } } })).then((r) => r.member)
      : call(snip.PUT("/api/folders/{id}/access", { ...path(id), body: { user_id, access: choice } })).then((r) => r.member),
};

/** The folder heading's "Access" button and the table it opens. */
export function FolderAccessButton({ folder }: { folder: { id: string; name: string } }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="btn btn-secondary btn-sm" data-testid="folder-access" onClick={() => setOpen(true)}>
        Access
      </button>
      <FolderAccessDialog open={open} folder={folder} onClose={() => setOpen(false)} />
    </>
  );
}

export function FolderAccessDialog(props: { open: boolean; folder: { id: string; name: string }; onClose: () => void }) {
  const titleId = useId();
  const [members, setMembers] = useState<FolderMemberAccess[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState<string | null>(null);
  const { open, folder } = props;
  useEffect(() => {
    if (!open) return;
    let live = true;
    setMembers(null);
    setError(null);
    accessApi
      .list(folder.id)
      .then((list) => live && setMembers(list))
      .catch((err: unknown) => {
        if (!live) return;
        setMembers([]);
        setError(err instanceof Error ? err.message : "The members could not be read");
      });
    return () => {
      live = false;
    };
  }, [open, folder.id]);
  const choose = async (userId: string, choice: Choice) => {
    setSaving(userId);
    setError(null);
    try {
      const next = await accessApi.set(folder.id, userId, choice);
      setMembers((list) => list?.map((m) => (m.user_id === userId ? next : m)) ?? null);
    } catch (err) {
      setError(err instanceof Error ? err.message : "The access could not be saved");
    } finally {
      setSaving(null);
    }
  };
  return (
    <Modal open={open} onClose={props.onClose} labelledBy={titleId} testId="folder-access-dialog">
      <h2 id={titleId}>Access to “{folder.name}”</h2>
      <div className="dialog-body">
        <p className="muted small">
          What each member of your team may do in this folder. None hides the folder and its links; a setting never gives more than the member&apos;s role.
        </p>
        {error ? <Alert testId="folder-access-error">{error}</Alert> : null}
        {!open ? null : members === null ? <Spinner /> : <AccessTable members={members} saving={saving} onChoose={(id, c) => void choose(id, c)} />}
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn btn-secondary" onClick={props.onClose} data-testid="folder-access-close">
          Done
        </button>
      </div>
    </Modal>
  );
}

function AccessTable(props: { members: FolderMemberAccess[]; saving: string | null; onChoose: (userId: string, choice: Choice) => void }) {
  if (props.members.length === 0) {
    return (
      <p className="muted" data-testid="folder-access-empty">
        Your team has no members yet: invite some on the Team page.
      </p>
    );
  }
  return (
    <ul className="folder-access-list" data-testid="folder-access-table" aria-label="Members' access to this folder">
      {props.members.map((m) => (
        <li key={m.user_id} className="folder-access-row" data-testid="folder-access-row">
          <div className="folder-access-who">
            <div className="folder-access-email">{m.email}</div>
            <div className="muted small">
              {ROLE_LABELS[m.role]} · <span data-testid="folder-access-holds">{HOLDS[m.effective]}</span>
              {m.access === null && m.group_access !== null ? <span data-testid="folder-access-group"> (from a directory group)</span> : null}
            </div>
          </div>
          <select
            aria-label={`Access of ${m.email}`}
            data-testid="folder-access-select"
            value={m.access ?? "default"}
            disabled={props.saving === m.user_id}
            onChange={(e) => props.onChoose(m.user_id, e.target.value as Choice)}
          >
            {CHOICES.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        </li>
      ))}
    </ul>
  );
}
