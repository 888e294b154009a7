// Freshness of click counts: one visit to a probe link of its own, then GET /api/links/{id}
// until its click_count includes it; the lag is from the 302's arrival to the answer that shows it.
// Samples run every quarter second or so while the load runs (each one visit, so the probe adds a few
// clicks per second to the load), and a few after it.
import { request } from "node:http";
import { BROWSER_HEADERS } from "./load.js";

/** What the snip child sets up for the prober: a signed-in session and a link of that user. */
export interface FreshnessProbe {
  cookie: string;
  linkId: string;
  path: string;
}

/** A sample that has not shown its click after this long counts as lost (reported, fails the goal). */
const GIVE_UP_MS = 10_000;
const POLL_MS = 20;
/**
 * Pause between samples while the load runs: each poll is a signed-in API read (session, access check,
 * fresh read asking the writer thread), and polled back to back they took about a tenth of the event
 * loop in a profile of the hot link, which the rate then charged to the redirect.
 */
const GAP_MS = 250;

function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "GET", headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

export class FreshnessSampler {
  private count: number | null = null;
  /** Every 302 the probe received (the harness adds them to the clicks it expects stored). */
  redirects = 0;

  constructor(
    private readonly url: string,
    private readonly probe: FreshnessProbe,
  ) {}

  private async clickCount(): Promise<number> {
    const r = await get(`${this.url}/api/links/${this.probe.linkId}`, { cookie: this.probe.cookie });
    if (r.status !== 200) throw new Error(`freshness probe: GET /api/links/{id} answered ${r.status}`);
    return (JSON.parse(r.body) as { link: { click_count: number } }).link.click_count;
  }

  /** One visit, then the wait until the API shows it: the lag in ms, or null when it never did (GIVE_UP_MS). */
  async sample(): Promise<number | null> {
    this.count ??= await this.clickCount();
    // The probe link is on the main host, whatever Host header the scenario's load sends (domain-hot).
    const { host: _scenarioHost, ...headers } = BROWSER_HEADERS as Record<string, string>;
    const visit = await get(this.url + this.probe.path, headers);
    if (visit.status !== 302) throw new Error(`freshness probe: the probe link answered ${visit.status}`);
    this.redirects++;
    const answered = performance.now();
    const want = this.count + 1;
    for (;;) {
      const seen = await this.clickCount();
      if (seen >= want) {
        this.count = seen;
        return performance.now() - answered;
      }
      if (performance.now() - answered > GIVE_UP_MS) {
        this.count = want;
        return null;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Samples back to back until the returned stop() is called; stop() resolves with the lags (null: lost). */
  during(): { stop(): Promise<Array<number | null>> } {
    const lags: Array<number | null> = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        lags.push(await this.sample());
        if (running) await new Promise((r) => setTimeout(r, GAP_MS));
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
        return lags;
      },
    };
  }
}
