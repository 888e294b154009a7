// What every form and action button does around its call: busy while it runs (the button says so and cannot be
// pressed twice), the message of its failure, and the try/finally that ends busy whatever happened.
import { useRef, useState, type FormEvent } from "react";
import { ApiError } from "./api";

/**
 * `work` does the call and what follows it; `failure` turns what it threw into the message to show (default: the
 * error's message; a form that shows field errors takes them here and answers the general message, or nothing).
 * `run(...args)` starts it (a button), `onSubmit` starts it from a form without reloading the page; `setError`
 * shows a message found before sending (checks in the browser).
 */
export function useSubmit<A extends unknown[] = []>(work: (...args: A) => Promise<unknown>, failure: (e: unknown) => string | null | void = errorMessage) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef({ work, failure });
  latest.current = { work, failure };

  async function run(...args: A): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await latest.current.work(...args);
    } catch (e) {
      setError(latest.current.failure(e) ?? null);
    } finally {
      setBusy(false);
    }
  }

  return {
    busy,
    error,
    setError,
    run,
    onSubmit(e: FormEvent) {
      e.preventDefault();
      void run(...([] as unknown[] as A));
    },
  };
}

/** For a form with one field: the server's message about that field, else the error's message. */
export function fieldOrMessage(field: string): (e: unknown) => string {
  return (e) => (e instanceof ApiError ? (e.fieldErrors()[field] ?? e.message) : errorMessage(e));
}

/** The message of whatever a call threw. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
