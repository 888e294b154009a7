// link_click deliveries off the request path: the redirect hands over a click (linkClicked), each active
// webhook of the link's owner gets it through a bounded queue with bounded concurrency; what does not fit
// is dropped and counted (a slow or dead receiver never piles up work or memory).
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { type CountryResolver, describeUserAgent, referrerHost } from "../clicks/describe.js";
import { shortUrl } from "../links/public-link.js";
import { iso } from "../shared/clock.js";
import type { DeliveryLog } from "./delivery-log.js";
import type { WebhookDirectory } from "./directory.js";
import type { LinkClickEvent } from "./payload.js";
import type { DeliveryTarget, WebhookSender } from "./send.js";

export interface QueueLimits {
  /** Events waiting per webhook beyond those being sent. */
  queue: number;
  /** Deliveries in flight per webhook. */
  concurrency: number;
}

export const DEFAULT_QUEUE_LIMITS: QueueLimits = { queue: 200, concurrency: 4 };

/** What the redirect knows about the clicked link and the visit (raw: described only when delivered). */
export interface ClickedLink {
  id: string;
  url: string;
  /** The cached link's folder (absent in a cache written before migration 050: none). */
  folder_id?: string | null;
}
export interface ClickVisit {
  alias: string;
  userAgent: string;
  referer: string;
  ip: string;
  country: string | null;
  /** The visit came from a QR code (the marker qr=1). */
  qr: boolean;
}

/** One click, shared by the owner's webhooks; its description is computed once, when first delivered. */
class ClickJob {
  private described: Omit<LinkClickEvent, "id" | "created_at"> | null = null;

  constructor(
    private readonly link: ClickedLink,
    private readonly domain: string,
    private readonly visit: ClickVisit,
    private readonly at: number,
    private readonly destination: string,
  ) {}

  event(origin: string, countries: CountryResolver, now: number): LinkClickEvent {
    if (!this.described) {
      const v = this.visit;
      const ua = describeUserAgent(v.userAgent);
      const country = countries.resolve(v.country, v.ip);
      const ref = referrerHost(v.referer);
      this.described = {
        version: 1,
        type: "link_click",
        test: false,
        link: {
          id: this.link.id,
          alias: v.alias,
          domain: this.domain || null,
          short_url: shortUrl(origin, this.domain, v.alias),
          url: this.link.url,
          folder_id: this.link.folder_id ?? null,
        },
        click: {
          at: iso(this.at) as string,
          country: country === "unknown" ? null : country,
          device: ua.device,
          os: ua.os === "unknown" ? null : ua.os,
          browser: ua.browser === "unknown" ? null : ua.browser,
          referrer_host: ref === "direct" || ref === "unknown" ? null : ref,
          bot: ua.isBot,
          destination: this.destination,
          source: v.qr ? "qr" : "link",
        },
      };
    }
    const d = this.described;
    return { version: 1, id: randomUUID(), type: "link_click", created_at: iso(now) as string, test: false, link: d.link, click: d.click };
  }
}

interface Lane {
  waiting: { target: DeliveryTarget; job: ClickJob }[];
  running: number;
}

export interface ClickDeliveriesDeps {
  directory: WebhookDirectory;
  sender: WebhookSender;
  deliveryLog: DeliveryLog;
  countries: CountryResolver;
  origin: string;
  now: () => number;
  log: Logger;
  limits: QueueLimits;
}

export class ClickDeliveries {
  private readonly lanes = new Map<string, Lane>();
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;
  private pumpScheduled = false;
  /** Events dropped by this instance since it started (the operator console's health). */
  private droppedTotal = 0;

  constructor(private readonly deps: ClickDeliveriesDeps) {}

  /** Owners with an active webhook: the redirect path calls linkClicked only for these. */
  get owners(): ReadonlyMap<string, readonly DeliveryTarget[]> {
    return this.deps.directory.owners;
  }

  /**
   * A click on a link of `ownerId`: queued for each of the owner's active webhooks; returns at once.
   * `destination`: where it went (default, rule:N, ios, android, variant:N).
   */
  linkClicked(ownerId: string, link: ClickedLink, domain: string, visit: ClickVisit, at: number, destination: string): void {
    const targets = this.deps.directory.owners.get(ownerId);
    if (!targets || this.closed) return;
    const { queue, concurrency } = this.deps.limits;
    let job: ClickJob | null = null;
    for (const target of targets) {
      let lane = this.lanes.get(target.id);
      if (!lane) this.lanes.set(target.id, (lane = { waiting: [], running: 0 }));
      // Room for what can be sent now plus the queue; the rest is dropped and counted (and costs no more).
      if (lane.waiting.length + lane.running >= queue + concurrency) {
        this.deps.deliveryLog.dropped(target.id);
        this.droppedTotal++;
        continue;
      }
      job ??= new ClickJob(link, domain, visit, at, destination);
      lane.waiting.push({ target, job });
    }
    // Describing and sending start after the redirect has been answered.
    if (job !== null && !this.pumpScheduled) {
      this.pumpScheduled = true;
      setImmediate(() => this.pump());
    }
  }

  /** Events waiting or in flight for a webhook (tests and the bench watch it drain). */
  backlog(webhookId: string): number {
    const lane = this.lanes.get(webhookId);
    return lane ? lane.waiting.length + lane.running : 0;
  }

  /** Click events this instance delivered since it started: answered with a 2xx, or not (metrics). */
  readonly delivered = { ok: 0, failed: 0 };

  /** This instance's queues: events waiting or in flight, and events dropped since it started. */
  queueState(): { queued: number; dropped: number } {
    let queued = 0;
    for (const lane of this.lanes.values()) queued += lane.waiting.length + lane.running;
    return { queued, dropped: this.droppedTotal };
  }

  /** Stops taking clicks and waits for the deliveries in flight (each bounded by its timeout). */
  async close(): Promise<void> {
    this.closed = true;
    for (const lane of this.lanes.values()) lane.waiting.length = 0;
    await Promise.all([...this.inflight]);
  }

  private pump(): void {
    this.pumpScheduled = false;
    for (const lane of this.lanes.values()) this.fill(lane);
  }

  private fill(lane: Lane): void {
    while (lane.running < this.deps.limits.concurrency && lane.waiting.length > 0) {
      const { target, job } = lane.waiting.shift() as Lane["waiting"][number];
      lane.running++;
      const p = this.deliver(target, job).finally(() => {
        this.inflight.delete(p);
        lane.running--;
        if (lane.waiting.length > 0) this.fill(lane);
        else if (lane.running === 0 && this.lanes.get(target.id) === lane) this.lanes.delete(target.id);
      });
      this.inflight.add(p);
    }
  }

  private async deliver(target: DeliveryTarget, job: ClickJob): Promise<void> {
    try {
      // A plan change, suspension, deletion or a removed webhook since the click was queued: nothing is owed.
      if (!(await this.deps.directory.confirm(target))) return;
      const event = job.event(this.deps.origin, this.deps.countries, this.deps.now());
      const result = await this.deps.sender.send(target, event);
      this.delivered[result.error === null ? "ok" : "failed"]++;
      this.deps.deliveryLog.add(result);
    } catch (err) {
      this.deps.log.warn({ err, webhook: target.id }, "webhook delivery failed unexpectedly");
    }
  }
}
