// QR code images of a short URL (SVG or PNG) with the qrcode library.
import QRCode from "qrcode";
import { invalid } from "../shared/errors.js";

export const QR_MIN = 128;
export const QR_MAX = 2048;
export const QR_DEFAULT = 256;

export type QrFormat = "svg" | "png";

export async function renderQr(text: string, format: QrFormat, size = QR_DEFAULT): Promise<{ type: string; body: string | Buffer }> {
  if (!Number.isInteger(size) || size < QR_MIN || size > QR_MAX) throw invalid("size", `must be from ${QR_MIN} to ${QR_MAX} pixels`);
  const opts = { errorCorrectionLevel: "M" as const, margin: 2, width: size };
  if (format === "png") return { type: "image/png", body: await QRCode.toBuffer(text, { ...opts, type: "png" }) };
  return { type: "image/svg+xml", body: await QRCode.toString(text, { ...opts, type: "svg" }) };
}
