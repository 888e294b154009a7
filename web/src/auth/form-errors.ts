// What the sign-in pages share: a safe `next` address, and field errors from the server or from checks before sending.
import { useState } from "react";
import { ApiError } from "../shared/api";

/** Only same-site dashboard paths are accepted as a post-sign-in destination. */
export function safeNext(next: string | null): string {
  if (next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/app/login") && !next.startsWith("/app/logout")) return next;
  return "/app";
}

export function useFormErrors() {
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  function take(err: unknown) {
    if (err instanceof ApiError) {
      const { fields, general } = err.forFields(["email", "password", "name", "confirm"]);
      setFieldErrors(fields);
      setError(general);
    } else setError(String(err));
  }
  function clear() {
    setFieldErrors({});
    setError(null);
  }
  return { fieldErrors, error, take, clear };
}
