// The QR code of a short link in a dialog, with its design panel and downloads (link-form/QrCode.tsx).
import { useEffect, useRef } from "react";
import type { Link } from "@contract/links";
import { QrCode } from "../shared/created-link/QrCode";

export function QrDialog({ link, onClose }: { link: Link | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (link && !d.open) d.showModal();
    if (!link && d.open) d.close();
  }, [link]);
  return (
    <dialog
      ref={ref}
      className="dialog qr-dialog"
      data-testid="qr-dialog"
      aria-label="QR code"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {link ? (
        <>
          <h2>QR code</h2>
          <p className="muted center">{link.short_url}</p>
          <QrCode key={link.id} link={link} />
          <div className="dialog-actions">
            <button type="button" className="btn btn-primary" onClick={onClose}>
              Close
            </button>
          </div>
        </>
      ) : null}
    </dialog>
  );
}
