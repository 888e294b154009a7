// The click stream as the service builds it (docs/stream.md): the publisher of every instance, and the
// service behind /api/streams. Broker URLs are sealed under their own key derived from SESSION_SECRET.
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import type { Clock } from "../shared/clock.js";
import { SealedBox } from "../shared/secret-box.js";
import type { ReceiverCheck } from "../webhooks/receiver-check.js";
import { StreamPublisher } from "./publisher.js";
import { StreamService } from "./streams.js";
import type { EventSubscriber } from "../shared/events.js";
import { subscribeOutward } from "./event-outbox.js";

export interface StreamsDeps {
  settings: Pick<Config, "origin" | "sessionSecret" | "stream">;
  storage: Storage;
  caps: OwnerCaps;
  clock: Clock;
  log: Logger;
  check: ReceiverCheck;
  /** Subscribes to lead.created, sale.created and link.split_decided (written to the outbox with their transaction). */
  events: EventSubscriber;
}

export interface Streams {
  streams: StreamService;
  publisher: StreamPublisher;
  /** Starts publishing: the streams' table loaded, the outbox read (before the first request). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createStreams(deps: StreamsDeps): Streams {
  const { settings, storage, clock, log, check } = deps;
  const box = new SealedBox(settings.sessionSecret, "stream urls v1");
  const publisher = new StreamPublisher({ db: storage.db, settings: settings.stream, box, check, origin: settings.origin, log, now: () => clock.now() });
  subscribeOutward(deps.events, () => clock.now());
  const streams = new StreamService({ db: storage.db, caps: deps.caps, clock, check, box });
  return { streams, publisher, start: () => publisher.start(), close: () => publisher.close() };
}
