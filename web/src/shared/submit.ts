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

/**
 * Actions on the rows of a list (enable, dismiss, send a test): `busyId` is the row whose action runs (its buttons
 * say so and are disabled), `errors` each row's last failure (shown on that row), `error` the last failure of any
 * row (for a page that shows one message above the list). `run(id, work)` clears both before it starts.
 */
export function useRowSubmit() {
  const [busyId, setBusyId] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);

  async function run(id: string, work: () => Promise<unknown>): Promise<void> {
    setBusyId(id);
    setError(null);
    setErrors(({ [id]: _, ...rest }) => rest);
    try {
      await work();
    } catch (e) {
      const message = errorMessage(e);
      setError(message);
      setErrors((all) => ({ ...all, [id]: message }));
    } finally {
      setBusyId(null);
    }
  }

  return { busyId, errors, error, setErrors, run };
}

/** For a form with one field: the server's message about that field, else the error's message. */
export function fieldOrMessage(field: string): (e: unknown) => string {
  return (e) => (e instanceof ApiError ? (e.fieldErrors()[field] ?? e.message) : errorMessage(e));
}

/**
 * For a form with several fields: the server's messages about the `known` fields go to `show` (beside each field),
 * the rest is the message to show (null when every message went to a field).
 */
export function fieldsOrMessage(known: readonly string[], show: (fields: Record<string, string>) => void): (e: unknown) => string | null {
  return (e) => {
    if (!(e instanceof ApiError)) return errorMessage(e);
    const f = e.forFields(known);
    show(f.fields);
    return f.general;
  };
}

/** The message of whatever a call threw. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
