// Draws one QR code image (SVG or PNG) with the qrcode library; runs in the QR worker threads (qr-worker.ts).
import QRCode from "qrcode";

export type QrFormat = "svg" | "png";

export interface QrJob {
  text: string;
  format: QrFormat;
  size: number;
}

/** Bumped when the drawing options change, so that ETags of the old images no longer match. */
export const QR_RENDER_VERSION = 1;

export async function renderQrBytes(job: QrJob): Promise<Buffer> {
  const opts = { errorCorrectionLevel: "M" as const, margin: 2, width: job.size };
  // qrcode sizes a PNG floor(modules * (width / modules)), one pixel short for some widths (2042 gives
  // 2041): a millionth of a pixel more lands on the width asked for.
  if (job.format === "png") return QRCode.toBuffer(job.text, { ...opts, width: job.size + 1e-6, type: "png" });
  return Buffer.from(await QRCode.toString(job.text, { ...opts, type: "svg" }), "utf8");
}
