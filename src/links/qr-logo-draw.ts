// The centre logo of a QR code: a square of whole modules cleared to the background colour, and the
// picture (cropped square, transparency flattened on the background) inside it. The square covers far
// less than the level restores (Q 25%, H 30%), so the code still scans; the tests decode it.
import QRCode from "qrcode";
import type { Sharp, SharpOptions } from "sharp";

/** What the logo's place depends on (a QrJob of qr-render.ts). */
export interface LogoJob {
  text: string;
  format: "svg" | "png";
  size: number;
  design: { bg: string; margin: number; ecl: "L" | "M" | "Q" | "H" };
}

/** Width of the cleared square as a share of the code's, by level (area: 4% at Q, 6.8% at H). */
const LOGO_SHARE: Record<string, number> = { Q: 0.2, H: 0.26 };
/** Pixels across of the picture embedded in an SVG (it scales with the drawing). */
const SVG_LOGO_PX = 256;
/** Pictures are at most 2 MiB, but a small PNG can still unpack to a huge canvas: refuse past this. */
const SHARP_INPUT: SharpOptions = { limitInputPixels: 40_000_000, failOn: "error" };

type SharpFn = (input?: Buffer | Uint8Array, opts?: SharpOptions) => Sharp;
let loaded: Promise<SharpFn> | null = null;

/** sharp, loaded on the first logo only (a thread that never draws one never maps libvips). */
function sharpLib(): Promise<SharpFn> {
  loaded ??= import("sharp").then(({ default: sharp }) => {
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp as unknown as SharpFn;
  });
  return loaded;
}

/** The cleared square in modules from the code's first module: odd across, so it sits on the centre module. */
export function logoSquare(modules: number, ecl: string): { start: number; span: number } {
  const share = LOGO_SHARE[ecl] ?? 0;
  const span = Math.max(3, 2 * Math.round((modules * share - 1) / 2) + 1);
  return { start: (modules - span) / 2, span };
}

async function picture(sharp: SharpFn, data: Uint8Array, px: number, bg: string, jpeg: boolean): Promise<Buffer> {
  const img = sharp(data, SHARP_INPUT).rotate().resize(px, px, { fit: "cover" }).flatten({ background: bg });
  return jpeg ? img.jpeg({ quality: 90 }).toBuffer() : img.png().toBuffer();
}

async function pngWithLogo(sharp: SharpFn, job: LogoJob, data: Uint8Array, base: Buffer, modules: number): Promise<Buffer> {
  const { start, span } = logoSquare(modules, job.design.ecl);
  // As qrcode draws a PNG: module m covers the pixels p with (margin + m) * scale <= p < (margin + m + 1) * scale.
  const scale = (job.size + 1e-6) / (modules + 2 * job.design.margin);
  const from = Math.ceil((job.design.margin + start) * scale);
  const width = Math.ceil((job.design.margin + start + span) * scale) - from;
  const pad = Math.max(1, Math.round(scale / 2));
  const inner = width - 2 * pad;
  const logo = await picture(sharp, data, inner, job.design.bg, false);
  return sharp(base)
    .composite([
      { input: { create: { width, height: width, channels: 3, background: job.design.bg } }, left: from, top: from },
      { input: logo, left: from + pad, top: from + pad },
    ])
    .png()
    .toBuffer();
}

async function svgWithLogo(sharp: SharpFn, job: LogoJob, data: Uint8Array, base: Buffer, modules: number): Promise<Buffer> {
  const { start, span } = logoSquare(modules, job.design.ecl);
  const at = job.design.margin + start;
  const jpeg = data[0] === 0xff; // photos stay JPEG (smaller); PNG and WebP pictures become PNG
  const logo = await picture(sharp, data, SVG_LOGO_PX, job.design.bg, jpeg);
  const href = `data:image/${jpeg ? "jpeg" : "png"};base64,${logo.toString("base64")}`;
  const overlay =
    `<rect x="${at}" y="${at}" width="${span}" height="${span}" fill="${job.design.bg}"/>` +
    `<image x="${at + 0.5}" y="${at + 0.5}" width="${span - 1}" height="${span - 1}" href="${href}"/>`;
  const svg = base.toString("utf8");
  const end = svg.lastIndexOf("</svg>");
  return Buffer.from(`${svg.slice(0, end)}${overlay}${svg.slice(end)}`, "utf8");
}

/** The image with the logo; the image without it when the picture cannot be read (it passed only a type check). */
export async function drawLogo(job: LogoJob, data: Uint8Array, base: Buffer): Promise<Buffer> {
  const modules = QRCode.create(job.text, { errorCorrectionLevel: job.design.ecl }).modules.size;
  const sharp = await sharpLib();
  try {
    return await (job.format === "png" ? pngWithLogo : svgWithLogo)(sharp, job, data, base, modules);
  } catch {
    return base;
  }
}
