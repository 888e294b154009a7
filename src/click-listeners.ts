// Every listener of a click, in one place. A click is two events:
// - "clicked" (redirect/click-event.ts): the redirect answered a visit of an owned link and recorded it;
//   handed over once, from memory, before anything is stored. Each listener first says whether it wants
//   the owner's clicks (one check: a listener nobody needs costs a click that and nothing more), then
//   takes the click and returns at once; one that throws is logged and stops neither the others nor the
//   redirect. What it sends may be lost with the process: at most once.
// - "stored" (clicks/stored.ts): a click writer committed a chunk of clicks; its listeners write inside
//   that transaction, on the writer's connection (the main thread, the writer thread of CLICK_WRITER=worker,
//   or with WORKERS=N on SQLite the primary's), so what they write exists exactly when the clicks do and is
//   read from the database afterwards: at least once for whoever reads it.
// Where a later listener plugs in: conversions (a visit joined to a later sale) read stored clicks, a
// "stored" listener writing rows of its own; link health (destinations that stop answering) wants
// clicked links without a database write, a "clicked" listener whose `wants` is one Set lookup of the
// links it watches. Adding one: its entry in LISTENERS, its adapter below, the registry's test.
import type { Logger } from "pino";
import type { ClickedListener, ClickedListeners } from "./redirect/click-event.js";
import type { StoredListener, StoredListeners } from "./clicks/stored.js";
import type { ClickDeliveries } from "./webhooks/click-deliveries.js";
import type { LiveFeed } from "./analytics/live-feed.js";
import { streamOutbox } from "./streams/outbox.js";
import { trackedClicksListener } from "./conversions/tracked-clicks.js";
import { pendingMatchesListener } from "./deeplinks/pending-matches.js";

export interface ListenerEntry {
  event: "clicked" | "stored";
  name: string;
  /** What a click's reader can count on, and what it costs a click the listener does not want. */
  guarantee: string;
}

/** Each listener of each event, in the order it is called. */
export const LISTENERS: readonly ListenerEntry[] = [
  {
    event: "clicked",
    name: "webhooks",
    guarantee:
      "link_click webhooks (webhooks/click-deliveries.ts): at most once, from memory, through a bounded queue per webhook; " +
      "a click that does not fit is dropped and counted. Unwanted: one Map lookup (does the owner have an active webhook).",
  },
  {
    event: "clicked",
    name: "live feed",
    guarantee:
      "GET /api/analytics/live (analytics/live-feed.ts): at most once, from memory, only owners someone watches, a bounded " +
      "share per second (the rest counted as skipped). Unwanted: one boolean while nobody watches, else one Set lookup.",
  },
  {
    event: "stored",
    name: "stream outbox",
    guarantee:
      "the click stream (streams/outbox.ts, docs/stream.md): at least once, one outbox row per active sink written in the " +
      "writer's transaction and published from there. Unwanted: one SELECT of active sinks per chunk, nothing written.",
  },
  {
    event: "stored",
    name: "tracked clicks",
    guarantee:
      "the click ids of links that track conversions (conversions/tracked-clicks.ts, docs/conversions.md): at least once, one " +
      "tracked_clicks row per click id written in the writer's transaction, so it exists exactly when its click does (a replayed " +
      "journal's id stored once). Unwanted: one property read per stored click, nothing written.",
  },
  {
    event: "stored",
    name: "pending matches",
    guarantee:
      "the pending matches of store visits (deeplinks/pending-matches.ts, docs/deep-links.md): at least once, one deeplink_matches " +
      "row per store visit written in the writer's transaction, keyed by its click id (a replayed journal's stored once). " +
      "Unwanted: one property read per stored click, nothing written.",
  },
];

/** The services the "clicked" listeners hand clicks to. */
export interface ClickedServices {
  clickDeliveries: Pick<ClickDeliveries, "owners" | "linkClicked">;
  live: Pick<LiveFeed, "active" | "watches" | "clicked">;
  log: Pick<Logger, "warn">;
}

/** The "clicked" listeners, in LISTENERS' order, as the redirect is given them. */
export function clickedListeners(s: ClickedServices): ClickedListeners {
  const hooks = s.clickDeliveries;
  const live = s.live;
  const listeners: ClickedListener[] = [
    {
      name: "webhooks",
      wants: (owner) => hooks.owners.has(owner),
      clicked: (e) => hooks.linkClicked(e.owner, e.link, e.domain, e.visit, e.at, e.destination ?? "default"),
    },
    {
      name: "live feed",
      wants: (owner) => live.active && live.watches(owner),
      clicked: (e) => {
        const v = e.visit;
        live.clicked({
          owner: e.owner,
          at: e.at,
          linkId: e.link.id,
          alias: v.alias,
          domain: e.domain,
          userAgent: v.userAgent,
          referer: v.referer,
          ip: v.ip,
          country: v.country,
          qr: v.qr,
          destination: e.destination,
        });
      },
    },
  ];
  return { listeners, failed: (name, err) => s.log.warn({ err, listener: name }, "a click listener failed") };
}

/** The "stored" listeners, in LISTENERS' order, as every click writer is given them. */
export const STORED_LISTENERS: readonly StoredListener[] = [streamOutbox, trackedClicksListener, pendingMatchesListener];

/** The same with the writer thread's entry, which imports them (a thread cannot be sent functions). */
export const STORED: StoredListeners = {
  listeners: STORED_LISTENERS,
  thread: new URL(import.meta.url.endsWith(".ts") ? "./click-writer-thread-tsx.mjs" : "./click-writer-thread.js", import.meta.url),
};
