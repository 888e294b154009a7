// A link's QR code drawn at a whole number of pixels per module, its Design panel (colours, margin,
// level, logo) with a live preview, and SVG and PNG downloads in the chosen design.
import { useState } from "react";
import type { Link } from "@contract/links";
import { A, FieldMessage } from "../ui";
import { useSession } from "../session";
import { QR_MAX_PX, QR_MIN_PX } from "../../../../src/contract/form-rules";
import { DEFAULT_QR_DESIGN, designProblems, designedQrUrl, useQrPreview, useSettled, withChange, type QrDesignValues } from "./qr-design";
import { QrDesignPanel } from "./QrDesignPanel";

/** About this wide on screen; the exact width is the QR's modules times a whole number. */
const QR_TARGET_PX = 200;
/** The PNG download: this many pixels per module (the server draws it at exactly that width). */
const PNG_PX_PER_MODULE = 16;
/** A design must stay the same this long before it is drawn (a dragged colour changes many times a second). */
const SETTLE_MS = 250;

function LogoNote({ mine }: { mine: boolean }) {
  if (!mine) return <>The link&apos;s owner has no profile picture, so the code has no logo.</>;
  return (
    <>
      You have no profile picture, so the code has no logo. <A to="/app/profile">Add a picture</A>
    </>
  );
}

/** `design`: the Design panel under the code (false: the code and its downloads only); `designOpen`: that panel opened. */
export function QrCode({ link, design: withPanel = true, designOpen = false }: { link: Link; design?: boolean; designOpen?: boolean }) {
  const { user } = useSession();
  const [design, setDesign] = useState<QrDesignValues>(DEFAULT_QR_DESIGN);
  const local = designProblems(design);
  const valid = Object.keys(local).length === 0;
  const url = useSettled(valid ? designedQrUrl(link, design) : null, SETTLE_MS);
  const preview = useQrPreview(url);
  // The server's word counts only for the design it was asked about.
  const problems = valid && url === designedQrUrl(link, design) ? preview.problems : local;
  const modules = preview.modules;
  // Whole device pixels per module: no module is drawn blurred across two pixels.
  const ratio = window.devicePixelRatio || 1;
  const perModule = modules ? Math.max(1, Math.floor((QR_TARGET_PX * ratio) / modules)) : 0;
  const css = modules ? (modules * perModule) / ratio : QR_TARGET_PX;
  const pngSize = modules ? Math.min(QR_MAX_PX, Math.max(QR_MIN_PX, modules * PNG_PX_PER_MODULE)) : 512;
  const canLogo = !!user && link.owner_id !== null;
  const ok = valid && Object.keys(problems).length === 0;
  return (
    <figure className="qr-figure">
      {preview.src ? (
        <img
          className="qr qr-crisp"
          src={preview.src}
          alt={`QR code for ${link.short_url}`}
          width={css}
          height={css}
          style={{ background: ok ? design.bg : undefined }}
          data-testid="qr-image"
          data-px-per-module={perModule || undefined}
          data-modules={modules ?? undefined}
        />
      ) : (
        <div className="qr qr-placeholder" style={{ width: css, height: css }} aria-hidden="true" />
      )}
      <FieldMessage error={preview.error} testId="qr-error" />
      <figcaption className="row gap">
        {ok ? (
          <>
            <a className="btn btn-secondary btn-sm" href={designedQrUrl(link, design)} download={`${link.alias}-qr.svg`} data-testid="qr-svg">
              SVG
            </a>
            <a
              className="btn btn-secondary btn-sm"
              href={designedQrUrl(link, design, { format: "png", size: String(pngSize) })}
              download={`${link.alias}-qr.png`}
              data-testid="qr-png"
            >
              PNG
            </a>
          </>
        ) : (
          <span className="muted small" data-testid="qr-downloads-off">
            Fix the design to download
          </span>
        )}
      </figcaption>
      {withPanel ? (
        <QrDesignPanel
          open={designOpen}
          design={design}
          problems={problems}
          onChange={(change) => setDesign((d) => withChange(d, change))}
          onReset={() => setDesign(DEFAULT_QR_DESIGN)}
          canLogo={canLogo}
          logoNote={design.logo && preview.logo === "none" ? <LogoNote mine={user?.id === link.owner_id} /> : null}
        />
      ) : null}
    </figure>
  );
}
