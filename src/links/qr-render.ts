// Draws one QR code image (SVG or PNG) with the qrcode library, in the chosen colours, quiet zone and
// error-correction level, with the owner's picture in the centre when asked (qr-logo-draw.ts); runs in
// the QR worker threads (qr-worker.ts).
import QRCode from "qrcode";
import type { QrEcl } from "../contract/form-rules.js";
import { drawLogo } from "./qr-logo-draw.js";

export type QrFormat = "svg" | "png";

/** Colours as `#rrggbb`, margin in modules. */
export interface QrDesign {
  fg: string;
  bg: string;
  margin: number;
  ecl: QrEcl;
}

export interface QrJob {
  text: string;
  format: QrFormat;
  size: number;
  design: QrDesign;
  /** Which picture the centre logo is (its owner and version: part of the cache key and ETag), or null for none. */
  logo: string | null;
}

/** What a worker thread is handed: the job, and the picture's bytes when it has a logo. */
export interface QrDrawJob extends QrJob {
  logoData?: Uint8Array;
}

/** Bumped when the drawing changes for the same options, so that ETags of the old images no longer match. */
export const QR_RENDER_VERSION = 1;

export function qrOptions(job: Pick<QrJob, "size" | "design">) {
  const { fg, bg, margin, ecl } = job.design;
  return { errorCorrectionLevel: ecl, margin, width: job.size, color: { dark: fg, light: bg } };
}

export async function renderQrBytes(job: QrDrawJob): Promise<Buffer> {
  const opts = qrOptions(job);
  // qrcode sizes a PNG floor(modules * (width / modules)), one pixel short for some widths (2042 gives
  // 2041): a millionth of a pixel more lands on the width asked for.
  const base =
    job.format === "png"
      ? await QRCode.toBuffer(job.text, { ...opts, width: job.size + 1e-6, type: "png" })
      : Buffer.from(await QRCode.toString(job.text, { ...opts, type: "svg" }), "utf8");
  return job.logoData ? drawLogo(job, job.logoData, base) : base;
}
