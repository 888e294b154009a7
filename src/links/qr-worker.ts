// Worker thread that draws QR images (qr-render.ts), so that a 2048-pixel PNG (about half a second of
// CPU) never holds the event loop that answers redirects. One job at a time, at a lower CPU priority,
// so that redirects win the cores while it draws.
import { parentPort } from "node:worker_threads";
import { lowerThreadPriority } from "../shared/thread-priority.js";
import { type QrDrawJob, renderQrBytes } from "./qr-render.js";
import type { QrReply } from "./qr-pool.js";

/** Nice 10: about a tenth of a core when the redirect wants both (19 would starve drawing under load). */
const QR_THREAD_NICE = 10;

const port = parentPort;
if (!port) throw new Error("qr-worker must run as a worker thread");

// Elsewhere than Linux the thread keeps the process's priority; the pool's bounds still hold.
lowerThreadPriority(QR_THREAD_NICE);

port.on("message", (msg: QrDrawJob & { id: number }) => {
  renderQrBytes(msg).then(
    // A copy, not a transfer: small Buffers share a pooled ArrayBuffer.
    (body) => port.postMessage({ id: msg.id, ok: true, body: new Uint8Array(body) } satisfies QrReply),
    (err: unknown) => port.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies QrReply),
  );
});
