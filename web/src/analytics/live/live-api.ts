// The live feed's address for an EventSource, and why it refused when it did (an EventSource is not told).
import { ApiError, errorOf } from "../../shared/api";

/** The live feed's address (GET /api/analytics/live), for an EventSource; `ownerId` a team owner's. */
export function liveFeedUrl(ownerId: string | null): string {
  return ownerId ? `/api/analytics/live?owner=${encodeURIComponent(ownerId)}` : "/api/analytics/live";
}

/**
 * Why the live feed refused (an EventSource is not told): its error, or null when it streams again (the
 * stream is then left at once). A 401 sends the user to the sign-in page like any call.
 */
export async function liveFeedRefusal(ownerId: string | null): Promise<ApiError | null> {
  const abort = new AbortController();
  try {
    const res = await fetch(liveFeedUrl(ownerId), { headers: { Accept: "application/json" }, credentials: "same-origin", signal: abort.signal });
    if (res.ok) {
      abort.abort();
      return null;
    }
    return errorOf(res.status, await res.json().catch(() => null), false);
  } catch {
    return new ApiError(0, "network_error", "The server could not be reached.");
  }
}
