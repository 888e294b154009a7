// Waiting on the event itself instead of sleeping: polling a condition with a deadline, a child's log line.
import type { Readable } from "node:stream";

/** How often a condition is probed again: short, so that a test goes on as soon as it holds. */
export const POLL_MS = 20;

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until check() is true or the time is up; returns the last value seen. */
export async function within<T>(ms: number, probe: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + ms;
  let v = await probe();
  while (!check(v) && Date.now() < deadline) {
    await pause(POLL_MS);
    v = await probe();
  }
  return v;
}

export interface WaitOptions {
  /** Give up after this long (a bound for a broken build, not a measure). */
  timeoutMs?: number;
  /** Named in the error when the time is up. */
  what?: string;
}

/** Polls until probe() returns a truthy value and returns it; throws when the time is up. */
export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitOptions = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${opts.timeoutMs ?? 10_000} ms waiting for ${opts.what ?? "a condition"}`);
    await pause(POLL_MS);
  }
}

/** Until a server on this loopback port answers /healthz with 200 (a child process that logs nothing). */
export async function healthy(port: number, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    { timeoutMs, what: `/healthz on port ${port}` },
  );
}

/** Resolves once `text` has appeared in a stream (a child's stdout); rejects if it ends first or the time is up. */
export function outputContains(stream: Readable, text: string, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const done = (err?: Error) => {
      clearTimeout(timer);
      stream.off("data", onData);
      stream.off("end", onEnd);
      if (err) reject(err);
      else resolve();
    };
    const onData = (d: Buffer | string) => {
      seen += d.toString();
      if (seen.includes(text)) done();
    };
    const onEnd = () => done(new Error(`the output ended without ${JSON.stringify(text)}:\n${seen}`));
    const timer = setTimeout(() => done(new Error(`no ${JSON.stringify(text)} in ${timeoutMs} ms:\n${seen}`)), timeoutMs);
    stream.on("data", onData);
    stream.on("end", onEnd);
  });
}
