// A Server-Sent Events reader for tests: opens a stream over real HTTP with a session cookie, keeps every
// event (and comment) as it arrives, with the raw text, and waits on them.
import { type IncomingMessage, request } from "node:http";
import { waitFor } from "./wait.js";

export interface SseEvent {
  event: string;
  data: any;
  /** When it was read (Date.now()). */
  at: number;
}

export interface SseStream {
  status: number;
  headers: IncomingMessage["headers"];
  /** The body of a refusal (JSON), null for a stream. */
  body: any;
  events: SseEvent[];
  comments: string[];
  raw(): string;
  /** True once the server ended the response. */
  ended(): boolean;
  /** Resolves with the first `count` events named `event`; throws after `timeoutMs`. */
  next(event: string, count?: number, timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
}

/** GETs `path` with the cookie and resolves once the answer's headers (and a refusal's body) are in. */
export function openSse(baseUrl: string, path: string, cookie: string | null, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(baseUrl + path, { headers: { accept: "text/event-stream", ...(cookie ? { cookie } : {}), ...headers } }, (res) => {
      let text = "";
      let rest = "";
      let ended = false;
      const events: SseEvent[] = [];
      const comments: string[] = [];
      res.setEncoding("utf8");
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: null,
        events,
        comments,
        raw: () => text,
        ended: () => ended,
        async next(event, count = 1, timeoutMs = 5_000) {
          return waitFor(
            () => {
              const found = events.filter((e) => e.event === event);
              return found.length >= count ? found.slice(0, count) : null;
            },
            { timeoutMs, what: `${count} "${event}" event(s) on ${path}` },
          );
        },
        close: () => req.destroy(),
      };
      res.on("end", () => (ended = true));
      res.on("close", () => (ended = true));
      if (!String(res.headers["content-type"]).startsWith("text/event-stream")) {
        res.on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ ...stream, body: text ? JSON.parse(text) : null }));
        return;
      }
      res.on("data", (d: string) => {
        text += d;
        rest += d;
        let cut: number;
        while ((cut = rest.indexOf("\n\n")) >= 0) {
          const block = rest.slice(0, cut);
          rest = rest.slice(cut + 2);
          const fields = block.split("\n");
          for (const c of fields.filter((f) => f.startsWith(":"))) comments.push(c);
          const name = fields.find((f) => f.startsWith("event: "))?.slice(7);
          const data = fields.find((f) => f.startsWith("data: "))?.slice(6);
          if (name && data !== undefined) events.push({ event: name, data: JSON.parse(data), at: Date.now() });
        }
      });
      resolve(stream);
    });
    req.on("error", reject);
    req.end();
  });
}
