// The link builder over the list: a dialog opened by the list's "New link" button or the `c` key. The list
// stays where it was (its scroll, filters and loaded pages); once created, the dialog closes, the new link is
// handed to the list, and a small dialog shows it with copy and its QR code, as the created page does.
import { lazy, Suspense, useState } from "react";
import type { Link } from "@contract/links";
import { A, CopyButton, Modal, Spinner } from "../../shared/ui";
import { QrCode, ShortUrl } from "../../shared/created-link/CreatedLinkView";

// Loaded on the first opening: the list's own page stays light.
const LinkBuilder = lazy(() => import("./Builder").then((m) => ({ default: m.LinkBuilder })));

function CreatedDialog({ link, onClose, onAnother }: { link: Link | null; onClose: () => void; onAnother: () => void }) {
  return (
    <Modal open={!!link} onClose={onClose} className="lf-created-dialog" testId="created-dialog" label="Link created">
      {link ? (
        <>
          <h2>Link created</h2>
          <section className="lf-created" data-testid="created-link" aria-live="polite">
            <div className="lf-created-main">
              <ShortUrl link={link} />
              <CopyButton text={link.short_url} className="btn btn-primary" />
            </div>
            <QrCode key={link.id} link={link} />
          </section>
          <div className="dialog-actions lf-created-actions">
            <A to={`/app/links/${encodeURIComponent(link.id)}/edit`} className="btn btn-secondary" testId="created-edit">
              Edit
            </A>
            <A to={`/app/links/${encodeURIComponent(link.id)}`} className="btn btn-secondary" testId="created-open">
              Open its page
            </A>
            <button type="button" className="btn btn-secondary" onClick={onAnother} data-testid="create-another">
              Create another
            </button>
            <button type="button" className="btn btn-primary" onClick={onClose} data-testid="created-close">
              Done
            </button>
          </div>
        </>
      ) : null}
    </Modal>
  );
}

/** The builder in a dialog over the list; `onCreated` gets the new link to show in the list. */
function BuilderDialog(props: { open: boolean; round: number; onClose: () => void; onCreated: (link: Link) => void; onAnother: () => void }) {
  const { open, onClose } = props;
  const [created, setCreated] = useState<Link | null>(null);
  return (
    <>
      <Modal open={open} onClose={onClose} className="lf-dialog" testId="builder-dialog" labelledBy="lf-dialog-title">
        <div className="lf-dialog-head">
          <h2 id="lf-dialog-title">New link</h2>
          <button type="button" className="btn-link lf-x lf-dialog-close" aria-label="Close" onClick={onClose} data-testid="builder-close">
            ✕
          </button>
        </div>
        {open ? (
          <Suspense fallback={<Spinner label="Opening the link builder…" />}>
            <LinkBuilder
              key={props.round}
              mode="create"
              sourceId={null}
              inDialog
              onCancel={onClose}
              onCreated={(link) => {
                onClose();
                props.onCreated(link);
                setCreated(link);
              }}
            />
          </Suspense>
        ) : null}
      </Modal>
      <CreatedDialog
        link={created}
        onClose={() => setCreated(null)}
        onAnother={() => {
          setCreated(null);
          props.onAnother();
        }}
      />
    </>
  );
}

/**
 * The list's builder: `open` shows it (a new link each time; the list's button and its `c` key, list-keys.ts),
 * `dialog` is what to render. `onCreated` gets each new link.
 */
export function useLinkBuilder(onCreated: (link: Link) => void) {
  const [round, setRound] = useState(0);
  const [open, setOpen] = useState(false);
  const show = () => {
    setRound((r) => r + 1);
    setOpen(true);
  };
  const dialog = <BuilderDialog open={open} round={round} onClose={() => setOpen(false)} onCreated={onCreated} onAnother={show} />;
  return { open: show, dialog };
}
