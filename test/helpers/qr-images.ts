// Reading QR images in tests: pixels of a PNG (or of an SVG drawn by librsvg through sharp), the text a
// decoder reads from them, and the parts of the SVG the server writes (modules across, colours).
import jsQRModule from "jsqr";
import sharp from "sharp";

// jsqr is CommonJS with its function on `default` too; under NodeNext the import is the module object.
const jsQR = (jsQRModule as unknown as { default: typeof jsQRModule.default }).default;

export interface Pixels {
  width: number;
  height: number;
  /** `#rrggbb` of the pixel at (x, y). */
  at(x: number, y: number): string;
  /** Every colour present, sorted. */
  colours(): string[];
  data: Uint8ClampedArray;
}

const hex = (r: number, g: number, b: number) => `#${[r, g, b].map((c) => c.toString(16).padStart(2, "0")).join("")}`;

/** RGBA pixels of a PNG, or of an SVG drawn at `svgPx` pixels across. */
export async function pixels(img: Buffer, svgPx = 512): Promise<Pixels> {
  const src = img.subarray(0, 5).toString() === "<svg " ? sharp(img, { density: (72 * svgPx) / svgWidth(img.toString()) }) : sharp(img);
  const { data, info } = await src.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const px = new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);
  return {
    width: info.width,
    height: info.height,
    data: px,
    at(x, y) {
      const i = (y * info.width + x) * 4;
      return hex(px[i] as number, px[i + 1] as number, px[i + 2] as number);
    },
    colours() {
      const seen = new Set<string>();
      for (let i = 0; i < px.length; i += 4) seen.add(hex(px[i] as number, px[i + 1] as number, px[i + 2] as number));
      return [...seen].sort();
    },
  };
}

/** The text a QR decoder reads in the image (dark modules on a light ground only), or null. */
export async function decodeQr(img: Buffer): Promise<string | null> {
  const p = await pixels(img);
  return jsQR(p.data, p.width, p.height, { inversionAttempts: "dontInvert" })?.data ?? null;
}

function svgWidth(svg: string): number {
  return Number(/^<svg [^>]*width="(\d+)"/.exec(svg)?.[1] ?? 256);
}

/** Units across the SVG's viewBox: the modules plus twice the quiet zone. */
export function svgUnits(svg: string): number {
  const m = /viewBox="0 0 (\d+) (\d+)"/.exec(svg);
  if (!m || m[1] !== m[2]) throw new Error(`no square viewBox in ${svg.slice(0, 200)}`);
  return Number(m[1]);
}

/** The background fill and the modules' stroke colour of an SVG the server drew. */
export function svgColours(svg: string): { bg: string | undefined; fg: string | undefined } {
  return { bg: /<path fill="(#[0-9a-f]{6})"/.exec(svg)?.[1], fg: /<path stroke="(#[0-9a-f]{6})"/.exec(svg)?.[1] };
}

/** A square picture in one colour, as PNG, JPEG or WebP bytes. */
export function solidPicture(colour: string, format: "png" | "jpeg" | "webp", px = 64): Promise<Buffer> {
  const picture = sharp({ create: { width: px, height: px, channels: 3, background: colour } });
  return picture[format]().toBuffer();
}
