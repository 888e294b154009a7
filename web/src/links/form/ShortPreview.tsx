// The link builder's preview: the short link as it is typed (the domain and the alias, or "random" when there
// is none yet) and its QR code, drawn in the browser with the same QR library the server draws with (qrcode).
import { useMemo } from "react";
import { create } from "qrcode";

/** The QR's modules as one SVG path of 1x1 squares (the quiet zone is the figure's padding). */
function qrPath(text: string): { size: number; d: string } {
  const { modules } = create(text, { errorCorrectionLevel: "M" });
  let d = "";
  for (let r = 0; r < modules.size; r++) for (let c = 0; c < modules.size; c++) if (modules.get(r, c)) d += `M${c} ${r}h1v1h-1z`;
  return { size: modules.size, d };
}

export function QrPreview({ text }: { text: string }) {
  const { size, d } = useMemo(() => qrPath(text), [text]);
  return (
    <svg
      className="lf-qr"
      viewBox={`-2 -2 ${size + 4} ${size + 4}`}
      role="img"
      aria-label={`QR code for ${text}`}
      data-testid="builder-qr"
      data-text={text}
      shapeRendering="crispEdges"
    >
      <rect x={-2} y={-2} width={size + 4} height={size + 4} fill="#ffffff" />
      <path d={d} fill="#000000" />
    </svg>
  );
}

/** The short link being built: `host/alias`, or `host/random` in the alias's place until one is typed. */
export function ShortPreview({ host, alias, shortUrl }: { host: string; alias: string; shortUrl: string | null }) {
  const typed = alias.trim();
  return (
    <div className="lf-short" data-testid="short-preview-box">
      <p className="eyebrow">Short link</p>
      <p className="lf-short-url" data-testid="short-preview" data-random={typed ? undefined : "true"}>
        <span className="lf-short-host">{host}/</span>
        {typed ? <span className="lf-short-alias">{typed}</span> : <em className="lf-short-random">random</em>}
      </p>
      {shortUrl ? (
        <QrPreview text={shortUrl} />
      ) : (
        <div className="lf-qr lf-qr-empty" data-testid="builder-qr-empty">
          <span>Its QR code shows once created</span>
        </div>
      )}
    </div>
  );
}
