// A link's actions on its own page, after its numbers: copy the short link, edit, QR code (a dialog with the
// design panel), statistics, duplicate, archive or restore, and delete after a confirmation: each as the user's
// role allows (shared/team-role.ts; a viewer sees the link and its statistics only).
import { useNavigate } from "react-router";
import type { Link } from "@contract/links";
import { linksApi } from "../links-api";
import { useSubmit } from "../../shared/submit";
import { A, Alert, ConfirmDialog, CopyButton, useConfirmedDelete } from "../../shared/ui";
import type { RoleCan } from "../../shared/team-role";

export interface LinkActionsProps {
  link: Link;
  /** What the user's role allows on the link's owner's links (the owner: everything; a member: no delete; a viewer: no change). */
  access: RoleCan;
  onChange: (link: Link) => void;
  onQr: () => void;
  /** Right after its creation: "Create another" too. */
  created: boolean;
}

export function LinkActions({ link, access, onChange, onQr, created }: LinkActionsProps) {
  const navigate = useNavigate();
  const id = encodeURIComponent(link.id);
  const archive = useSubmit(async () => onChange(await linksApi.updateLink(link.id, { archived: !link.archived })));
  const del = useConfirmedDelete(async (l: Link) => {
    await linksApi.deleteLink(l.id);
    navigate("/app", { replace: true });
  });
  return (
    <>
      <div className="link-page-actions" role="group" aria-label="Actions" data-testid="link-actions">
        <CopyButton text={link.short_url} label="Copy short link" className="btn btn-primary" testId="link-page-copy" />
        {access.can("links.edit") ? (
          <A to={`/app/links/${id}/edit`} className="btn btn-secondary" testId="created-edit">
            Edit
          </A>
        ) : null}
        <button type="button" className="btn btn-secondary" onClick={onQr} data-testid="link-page-qr">
          QR code
        </button>
        <A to={`/app/links/${id}/stats`} className="btn btn-secondary" testId="created-stats">
          Statistics
        </A>
        <A to={`/app/links/new?from=${id}`} className="btn btn-secondary" testId="created-duplicate">
          Duplicate
        </A>
        {access.can("links.edit") ? (
          <button type="button" className="btn btn-secondary" disabled={archive.busy} onClick={() => void archive.run()} data-testid="link-page-archive">
            {link.archived ? "Restore" : "Archive"}
          </button>
        ) : null}
        {access.can("links.delete") ? (
          <button type="button" className="btn btn-danger-ghost" onClick={() => del.ask(link)} data-testid="link-page-delete">
            Delete
          </button>
        ) : null}
        {created ? (
          <A to="/app/links/new" className="btn btn-secondary" testId="create-another">
            Create another
          </A>
        ) : null}
      </div>
      {archive.error ? <Alert testId="link-page-action-error">{archive.error}</Alert> : null}
      <ConfirmDialog {...del.dialog} title="Delete this link?" confirmLabel="Delete link" danger>
        <p>
          <strong>{link.short_url}</strong> will stop working immediately (visitors get “not found”). Its statistics are deleted too. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
