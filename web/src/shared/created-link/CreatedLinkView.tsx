// A created link's short URL and its QR code (QrCode.tsx: design, preview and downloads), as the home page shows
// them; the dashboard's link page (links/page/) has its own layout.
import type { Link } from "@contract/links";
import { QrCode } from "./QrCode";

export { QrCode };

/** The short address as the created-link cards show it (here and on the home page). */
export function ShortUrl({ link }: { link: Link }) {
  return (
    <>
      <p className="eyebrow">Your short link</p>
      <p className="short-url">
        <a href={link.short_url} target="_blank" rel="noopener noreferrer" data-testid="short-url">
          {link.short_url}
        </a>
      </p>
    </>
  );
}
