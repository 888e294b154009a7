// The QR load of bench/redirect.ts's `qr` scenario, in a child process of its own (so its work never
// shares the load generator's event loop): parallel loops on GET /api/qr/<alias>, most asking for an
// image never drawn before (distinct alias, size and X-Forwarded-For, so that neither the cache nor
// the per-address bound hides the work), the others for images already cached.
// IPC: {type:"start", url, aliases, drawLoops, cachedLoops} -> {type:"started"}; {type:"stop"} -> {type:"report", ...}.
import { Agent, request } from "undici";

interface Start {
  type: "start";
  url: string;
  aliases: string[];
  drawLoops: number;
  cachedLoops: number;
}

export interface HammerReport {
  type: "report";
  /** Answers by kind: new images drawn (200), refused (429), cached images (200), anything else. */
  drawn: number;
  refused: number;
  cached: number;
  other: number;
  /** The slowest drawn image, and the mean, in ms (waiting in the queue included). */
  drawMaxMs: number;
  drawMeanMs: number;
  seconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let running = false;
const report: HammerReport = { type: "report", drawn: 0, refused: 0, cached: 0, other: 0, drawMaxMs: 0, drawMeanMs: 0, seconds: 0 };
let drawTotalMs = 0;
let loops: Promise<void>[] = [];
let t0 = 0;

async function get(dispatcher: Agent, url: string, headers: Record<string, string>): Promise<number> {
  const res = await request(url, { dispatcher, headers });
  await res.body.arrayBuffer();
  return res.statusCode;
}

function start(msg: Start): void {
  running = true;
  t0 = performance.now();
  const dispatcher = new Agent({ connections: msg.drawLoops + msg.cachedLoops });
  let n = 0;
  for (let l = 0; l < msg.drawLoops; l++) {
    loops.push(
      (async () => {
        while (running) {
          const k = n++;
          // A new (alias, size) pair every time, sizes 1024..2048 px, from an address of its own.
          const alias = msg.aliases[k % msg.aliases.length] as string;
          const size = 1024 + (Math.floor(k / msg.aliases.length) % 1025);
          const t = performance.now();
          const status = await get(dispatcher, `${msg.url}/api/qr/${alias}?format=png&size=${size}`, {
            "x-forwarded-for": `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`,
          }).catch(() => 0);
          if (status === 200) {
            const ms = performance.now() - t;
            report.drawn++;
            drawTotalMs += ms;
            report.drawMaxMs = Math.max(report.drawMaxMs, ms);
          } else if (status === 429) {
            report.refused++;
            await sleep(100); // an impatient client: asks again long before Retry-After
          } else {
            report.other++;
            await sleep(100);
          }
        }
      })(),
    );
  }
  const cachedPaths = msg.aliases.slice(0, 8).map((a) => `${msg.url}/api/qr/${a}?format=png&size=512`);
  for (let l = 0; l < msg.cachedLoops; l++) {
    loops.push(
      (async () => {
        let i = l;
        while (running) {
          const status = await get(dispatcher, cachedPaths[i++ % cachedPaths.length] as string, { "x-forwarded-for": "10.255.255.1" }).catch(() => 0);
          if (status === 200) report.cached++;
          else report.other++;
          await sleep(20);
        }
      })(),
    );
  }
}

process.on("message", (msg: Start | { type: "stop" }) => {
  if (msg.type === "start") {
    start(msg);
    process.send?.({ type: "started" });
  } else if (msg.type === "stop") {
    running = false;
    void Promise.all(loops).then(() => {
      loops = [];
      report.seconds = (performance.now() - t0) / 1000;
      report.drawMeanMs = report.drawn ? drawTotalMs / report.drawn : 0;
      process.send?.(report);
      process.exit(0);
    });
  }
});
process.once("disconnect", () => process.exit(0));
