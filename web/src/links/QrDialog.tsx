// The QR code of a short link in a dialog, with its design panel and downloads (shared/created-link/QrCode.tsx).
// The list's row menu opens it, and so does the link's own page (with the design panel open: designing there
// never squeezes the page's details column).
import type { Link } from "@contract/links";
import { QrCode } from "../shared/created-link/QrCode";
import { Modal } from "../shared/ui";

export function QrDialog({ link, onClose, designOpen = false }: { link: Link | null; onClose: () => void; designOpen?: boolean }) {
  return (
    <Modal open={!!link} onClose={onClose} className="qr-dialog" testId="qr-dialog" label="QR code">
      {link ? (
        <>
          <h2>QR code</h2>
          <p className="muted center qr-dialog-url">{link.short_url}</p>
          <QrCode key={link.id} link={link} designOpen={designOpen} />
          <div className="dialog-actions">
            <button type="button" className="btn btn-primary" onClick={onClose} data-testid="qr-dialog-close">
              Close
            </button>
          </div>
        </>
      ) : null}
    </Modal>
  );
}
