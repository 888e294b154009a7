// QR code images of short URLs: drawn in worker threads (qr-pool.ts), kept in an LRU bounded in bytes,
// coalesced while drawing, bounded per client address (qr-throttle.ts). The redirect's event loop
// never draws: a 2048-pixel PNG costs about half a second of CPU.
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { DomainError, invalid } from "../shared/errors.js";
import { type QrPoolOptions, QrRenderPool } from "./qr-pool.js";
import { parseQrColour, QR_DEFAULT_DESIGN, QR_DEFAULT_PX, QR_MAX_PX, QR_MIN_PX, qrDesignProblems } from "../contract/form-rules.js";
import type { QrQueryInput } from "../contract/qr.js";
import { type QrDesign, type QrFormat, type QrJob, QR_RENDER_VERSION } from "./qr-render.js";
import { AddressThrottle, type ThrottleOptions } from "./qr-throttle.js";

export type { QrDesign, QrFormat, QrJob } from "./qr-render.js";

export const QR_MIN = QR_MIN_PX;
export const QR_MAX = QR_MAX_PX;
export const QR_DEFAULT = QR_DEFAULT_PX;
/** Bytes of images kept (a 2048-pixel PNG is about 20 KB, an SVG under 2 KB). */
export const QR_CACHE_BYTES = 32 * 1024 * 1024;
/** Per address: 64 units at once, one more each second (an SVG or a PNG up to 512 px is 1 unit, 2048 px 16). */
export const QR_THROTTLE = { capacity: 64, perSecond: 1 };

export interface QrImage {
  type: string;
  body: Buffer;
  etag: string;
}

export interface QrServiceOptions {
  now: () => number;
  cacheBytes?: number;
  pool?: QrPoolOptions;
  throttle?: Partial<Omit<ThrottleOptions, "now">>;
}

/** The design a query asks for, every problem at once as invalid_request; with a logo the level is H unless Q or H was asked. */
export function qrDesign(query: Pick<QrQueryInput, "fg" | "bg" | "margin" | "ecl" | "logo">): QrDesign {
  const logo = query.logo === "1";
  const problems = qrDesignProblems({ fg: query.fg, bg: query.bg, ecl: query.ecl, logo });
  if (problems.length > 0) {
    throw new DomainError("invalid_request", problems.map((p) => `${p.field}: ${p.message}`).join("; "), problems);
  }
  return {
    fg: query.fg === undefined ? QR_DEFAULT_DESIGN.fg : (parseQrColour(query.fg) as string),
    bg: query.bg === undefined ? QR_DEFAULT_DESIGN.bg : (parseQrColour(query.bg) as string),
    margin: query.margin ?? QR_DEFAULT_DESIGN.margin,
    ecl: query.ecl ?? (logo ? "H" : QR_DEFAULT_DESIGN.ecl),
  };
}

/** Units of the per-address bound: the pixels drawn, in 512 x 512 squares (at least 1), and 1 more for reading a logo. */
export function qrCost(format: QrFormat, size: number, logo = false): number {
  return (format === "png" ? Math.max(1, Math.ceil((size * size) / (512 * 512))) : 1) + (logo ? 1 : 0);
}

/** What tells two images apart: every option and the logo picture's identity. */
function qrKey(job: QrJob): string {
  const d = job.design;
  return [job.format, job.size, d.fg, d.bg, d.margin, d.ecl, job.logo ?? "", job.text].join("\n");
}

/** The strong ETag of an image, known before it is drawn (drawing is deterministic). */
export function qrEtag(job: QrJob): string {
  return `"${createHash("sha256")
    .update(`${QR_RENDER_VERSION}\n${qrKey(job)}`)
    .digest("base64url")
    .slice(0, 27)}"`;
}

/** True when an If-None-Match header names this ETag (or is `*`). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === etag || tag === "*";
  });
}

export class QrService {
  private readonly cache: LRUCache<string, QrImage>;
  private readonly drawing = new Map<string, Promise<QrImage>>();
  private readonly throttle: AddressThrottle;
  readonly pool: QrRenderPool;

  constructor(opts: QrServiceOptions) {
    this.cache = new LRUCache<string, QrImage>({
      maxSize: opts.cacheBytes ?? QR_CACHE_BYTES,
      sizeCalculation: (img, key) => img.body.length + key.length * 2 + 64,
    });
    this.throttle = new AddressThrottle({ ...QR_THROTTLE, ...opts.throttle, now: opts.now });
    this.pool = new QrRenderPool(opts.pool);
  }

  static validate(job: QrJob): void {
    if (!Number.isInteger(job.size) || job.size < QR_MIN || job.size > QR_MAX) throw invalid("size", `must be from ${QR_MIN} to ${QR_MAX} pixels`);
  }

  /**
   * The image, from the cache or drawn once however many ask for it at the same time; a new drawing
   * is charged to `address` (rate_limited when it has drawn too much, or when the threads are full).
   * `logoData` reads the picture that `job.logo` names, only when the image is drawn.
   */
  async image(job: QrJob, address: string, logoData?: () => Promise<Uint8Array | null>): Promise<QrImage> {
    QrService.validate(job);
    const key = qrKey(job);
    const cached = this.cache.get(key) ?? this.drawing.get(key);
    if (cached) return cached;
    const cost = qrCost(job.format, job.size, job.logo !== null);
    this.throttle.take(address, cost, "Too many QR codes drawn from this address; retry later");
    let body: Promise<Buffer>;
    try {
      body = this.draw(job, logoData);
    } catch (err) {
      this.throttle.refund(address, cost);
      throw err;
    }
    const img = body.then((b) => {
      const out = { type: job.format === "png" ? "image/png" : "image/svg+xml", body: b, etag: qrEtag(job) };
      this.cache.set(key, out);
      return out;
    });
    this.drawing.set(key, img);
    return img.finally(() => this.drawing.delete(key));
  }

  /** Throws at once when the threads are full (before the picture is read); the picture is read only for a logo. */
  private draw(job: QrJob, logoData?: () => Promise<Uint8Array | null>): Promise<Buffer> {
    if (job.logo === null || !logoData) return this.pool.render(job);
    this.pool.checkRoom(job);
    return logoData().then((data) => this.pool.render(data ? { ...job, logoData: data } : job));
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
