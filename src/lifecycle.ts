// The context's lifecycle parts: each started in order, run, and stopped in reverse (context.ts composes them), and the
// hourly housekeeping part.
import type { Logger } from "pino";
import type { AppContext } from "./context-types.js";

export interface LifecyclePart {
  name: string;
  start?: () => Promise<void> | void;
  run?: () => void;
  stop: () => Promise<void> | void;
}

/** The lifecycle of a list of parts: started in its order, run in its order, stopped in its reverse (each stop awaited). */
export function lifecycleOf(parts: readonly LifecyclePart[]): Pick<AppContext, "start" | "run" | "close"> {
  let started: Promise<void> | null = null;
  let closed: Promise<void> | null = null;
  return {
    start: () =>
      (started ??= (async () => {
        for (const part of parts) await part.start?.();
      })()),
    run: () => parts.forEach((part) => part.run?.()),
    close: () =>
      (closed ??= (async () => {
        for (const part of [...parts].reverse()) await part.stop();
      })()),
  };
}

/** Housekeeping: expired sessions, old throttle events, raw clicks past retention, expired pending matches of deep links, every hour once started; a failure is logged. */
export function everyHour(log: Logger, tasks: () => Promise<unknown>[]): LifecyclePart {
  let timer: NodeJS.Timeout | undefined;
  return {
    name: "housekeeping",
    start() {
      timer ??= setInterval(() => {
        void Promise.all(tasks()).catch((err: unknown) => log.warn({ err }, "housekeeping failed"));
      }, 3_600_000);
      timer.unref();
    },
    stop: () => clearInterval(timer),
  };
}
