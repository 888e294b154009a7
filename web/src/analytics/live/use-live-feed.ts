// The live feed's connection: an EventSource on GET /api/analytics/live, the latest clicks newest first
// (at most MAX_KEPT), and the state the page shows: connecting, live, reconnecting, or refused (plan, access).
import { useEffect, useState } from "react";
import type { LiveClick } from "@contract/live";
import type { ApiError } from "../../shared/api";
import { liveFeedRefusal, liveFeedUrl } from "./live-api";

/** Clicks kept on the page, newest first. */
export const MAX_KEPT = 100;
/** Waits before connecting again after a refusal that may pass (network, server restart, 429). */
const RETRY_MS = [1_000, 2_000, 5_000, 10_000];

export type LiveState = { kind: "connecting" } | { kind: "live" } | { kind: "reconnecting"; reason: string } | { kind: "refused"; error: ApiError };

export interface LiveItem extends LiveClick {
  /** Unique on the page (two clicks may share every field). */
  key: number;
}

let nextKey = 0;

export function useLiveFeed(ownerId: string | null, enabled: boolean): { state: LiveState; clicks: LiveItem[]; skipped: number } {
  const [state, setState] = useState<LiveState>({ kind: "connecting" });
  const [clicks, setClicks] = useState<LiveItem[]>([]);
  const [skipped, setSkipped] = useState(0);

  useEffect(() => {
    if (!enabled) return;
    setState({ kind: "connecting" });
    setClicks([]);
    setSkipped(0);
    let source: EventSource | null = null;
    let timer: number | undefined;
    let attempt = 0;
    let stopped = false;
    const connect = () => {
      // A reconnection sends the backlog again: the page starts from it.
      let fresh = true;
      source = new EventSource(liveFeedUrl(ownerId));
      source.onopen = () => {
        attempt = 0;
        setState({ kind: "live" });
      };
      source.addEventListener("click", (e) => {
        const click = JSON.parse((e as MessageEvent<string>).data) as LiveClick;
        const item = { ...click, key: ++nextKey };
        setClicks((prev) => [item, ...(fresh ? [] : prev)].slice(0, MAX_KEPT));
        fresh = false;
      });
      source.addEventListener("skipped", (e) => setSkipped((n) => n + (JSON.parse((e as MessageEvent<string>).data) as { count: number }).count));
      source.onerror = () => {
        // CONNECTING: the browser reconnects by itself (the server ended the stream, or the network dropped).
        if (source?.readyState === EventSource.CONNECTING) return setState({ kind: "reconnecting", reason: "The connection was lost." });
        source?.close();
        source = null;
        void refused();
      };
    };
    // The browser gives up on an answer other than a stream: ask why, and try again unless it will not pass.
    const refused = async () => {
      const error = await liveFeedRefusal(ownerId);
      if (stopped) return;
      if (error && [401, 403, 404].includes(error.httpStatus)) return setState({ kind: "refused", error });
      setState({ kind: "reconnecting", reason: error ? error.message : "The connection was lost." });
      timer = window.setTimeout(connect, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]);
    };
    connect();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      source?.close();
    };
  }, [ownerId, enabled]);

  return { state, clicks, skipped };
}
