// Where the account is signed in: one row per session (this device marked), "Sign out" per row and
// "Sign out everywhere else".
import { useCallback, useEffect, useState } from "react";
import type { SessionView } from "@contract/security";
import { securityApi } from "./security-api";
import { Alert, Spinner, errorMessage } from "../shared/ui";
import { useSubmit } from "../shared/submit";
import { formatDateTime } from "../shared/dates";
import { wayInWords } from "./activity-words";

export function SessionsSection() {
  const [sessions, setSessions] = useState<SessionView[] | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // One message above the list: the sessions that could not be read, or the sign-out that failed.
  const {
    busy,
    error,
    setError,
    run: act,
  } = useSubmit(async (work: () => Promise<unknown>, done: string) => {
    await work();
    setNotice(done);
    load();
  });
  const load = useCallback(() => {
    securityApi.sessions().then(setSessions, (e: unknown) => setError(errorMessage(e)));
  }, [setError]);
  useEffect(load, [load]);

  return (
    <section className="card section" data-testid="section-sessions" aria-labelledby="h-sessions">
      <h2 id="h-sessions">Where you are signed in</h2>
      {error ? <Alert>{error}</Alert> : null}
      {notice ? <Alert kind="success">{notice}</Alert> : null}
      {sessions === null ? (
        <Spinner />
      ) : (
        <ul className="session-list" data-testid="session-list">
          {sessions.map((s) => (
            <li key={s.id} className="session-row" data-testid="session-row">
              <div>
                <strong>{s.browser ?? "Unknown browser"}</strong> on {s.os ?? "an unknown system"}
                {s.country ? <span className="muted"> · {s.country}</span> : null}
                {s.current ? (
                  <span className="badge" data-testid="session-current">
                    {" "}
                    This device
                  </span>
                ) : null}
                <div className="muted small" data-testid="session-signed-in">
                  Signed in {wayInWords(s.way) ? `${wayInWords(s.way)} on ` : ""}
                  {formatDateTime(s.created_at)} · last seen {formatDateTime(s.last_seen_at)}
                </div>
              </div>
              {s.current ? null : (
                <button
                  type="button"
                  className="btn btn-secondary btn-sm"
                  data-testid="session-sign-out"
                  disabled={busy}
                  onClick={() => void act(() => securityApi.signOutSession(s.id), "That session is signed out.")}
                >
                  Sign out
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {sessions && sessions.length > 1 ? (
        <button
          type="button"
          className="btn btn-secondary"
          data-testid="sessions-sign-out-others"
          disabled={busy}
          onClick={() => void act(() => securityApi.signOutOthers(), "Every other session is signed out.")}
        >
          Sign out everywhere else
        </button>
      ) : null}
    </section>
  );
}
