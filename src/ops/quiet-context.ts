// The context manager of tracing (issue 42): AsyncLocalStorage only while a sampled span is active. On
// Node 20 and 22 an AsyncLocalStorage once entered keeps async_hooks on for the whole process (every
// promise and socket pays an init hook); a request the sampler left out never enters it, and once no
// sampled work is left the storage is disabled, its hooks with it (entered again by the next sampled
// request). Node 24's AsyncContextFrame has no hooks; there this costs nothing either way.
import { type Context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";

export class QuietContextManager extends AsyncLocalStorageContextManager {
  /** Sampled work that may still read the context (requests until answered, async callbacks until settled). */
  private holds = 0;
  /** Times the storage was switched off for want of sampled work (tests). */
  quieted = 0;

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    // No recording span to carry, and nothing active to hide: entering would only switch the hooks on.
    if (this.holds === 0 && trace.getSpan(ctx)?.isRecording() !== true) return fn.apply(thisArg, args);
    const release = this.hold();
    let result: ReturnType<F>;
    try {
      result = super.with(ctx, fn, thisArg, ...args);
    } catch (err) {
      release();
      throw err;
    }
    if (result instanceof Promise) result.then(release, release);
    else release();
    return result;
  }

  /** Keeps the storage on until the answer is released (a sampled request: until its response closed). */
  hold(): () => void {
    this.holds++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.holds === 0) {
        this.disable();
        this.quieted++;
      }
    };
  }

  /** Whether the storage holds a context now (tests: an unsampled request must find none). */
  get entered(): boolean {
    return this.active() !== ROOT_CONTEXT;
  }
}
