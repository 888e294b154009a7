// QR code images of short URLs: drawn in worker threads (qr-pool.ts), kept in an LRU bounded in bytes,
// coalesced while drawing, bounded per client address (qr-throttle.ts). The redirect's event loop
// never draws: a 2048-pixel PNG costs about half a second of CPU.
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { invalid } from "../shared/errors.js";
import { type QrPoolOptions, QrRenderPool } from "./qr-pool.js";
import { type QrFormat, type QrJob, QR_RENDER_VERSION } from "./qr-render.js";
import { AddressThrottle, type ThrottleOptions } from "./qr-throttle.js";

export type { QrFormat } from "./qr-render.js";

export const QR_MIN = 128;
export const QR_MAX = 2048;
export const QR_DEFAULT = 256;
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

/** Units of the per-address bound: the pixels drawn, in 512 x 512 squares (at least 1). */
export function qrCost(format: QrFormat, size: number): number {
  return format === "png" ? Math.max(1, Math.ceil((size * size) / (512 * 512))) : 1;
}

/** The strong ETag of an image, known before it is drawn (drawing is deterministic). */
export function qrEtag(job: QrJob): string {
  return `"${createHash("sha256").update(`${QR_RENDER_VERSION}\n${job.format}\n${job.size}\n${job.text}`).digest("base64url").slice(0, 27)}"`;
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
   */
  async image(job: QrJob, address: string): Promise<QrImage> {
    QrService.validate(job);
    const key = `${job.format}:${job.size}:${job.text}`;
    const cached = this.cache.get(key) ?? this.drawing.get(key);
    if (cached) return cached;
    const cost = qrCost(job.format, job.size);
    this.throttle.take(address, cost, "Too many QR codes drawn from this address; retry later");
    let body: Promise<Buffer>;
    try {
      body = this.pool.render(job);
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

  close(): Promise<void> {
    return this.pool.close();
  }
}
