// Recent security activity: the account's sign-ins (refusals too) and changes of how it signs in over the last
// 90 days, newest first, so its owner can spot what was not them.
import { useCallback, useEffect, useState } from "react";
import type { ActivityEntry } from "@contract/security";
import { securityApi } from "./security-api";
import { activityInWords, refusalInWords, wayInWords } from "./activity-words";
import { Alert, Spinner, errorMessage } from "../shared/ui";
import { formatDateTime, formatRelative } from "../shared/dates";

/** Rows shown before "Show all": a quiet account's whole list, a busy one's last days. */
const FIRST_ROWS = 20;

function deviceInWords(e: ActivityEntry): string | null {
  if (!e.browser && !e.os && !e.country) return null;
  const device = e.browser || e.os ? `${e.browser ?? "Unknown browser"} on ${e.os ?? "an unknown system"}` : "Unknown device";
  return e.country ? `${device} · ${e.country}` : device;
}

function ActivityRow({ entry }: { entry: ActivityEntry }) {
  const refusal = refusalInWords(entry);
  const way = entry.kind === "sign_in" ? wayInWords(entry.way) : null;
  const device = deviceInWords(entry);
  return (
    <li className={`activity-row${refusal ? " activity-refused" : ""}`} data-testid="activity-row" data-kind={entry.kind} data-outcome={entry.outcome}>
      <div className="activity-what">
        <div>
          <strong>{activityInWords(entry)}</strong>
          {way ? ` ${way}` : null}
          {refusal ? (
            <>
              {" "}
              <span className="badge badge-fail" data-testid="activity-refused">
                Refused
              </span>{" "}
              <span className="activity-reason">{refusal}</span>
            </>
          ) : null}
        </div>
        {device ? <div className="muted small">{device}</div> : null}
      </div>
      <div className="activity-when small">
        <time dateTime={entry.at} title={formatDateTime(entry.at)}>
          {formatRelative(entry.at)}
        </time>
        <div className="muted">{formatDateTime(entry.at)}</div>
      </div>
    </li>
  );
}

export function ActivitySection() {
  const [activity, setActivity] = useState<ActivityEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [showAll, setShowAll] = useState(false);
  const load = useCallback(() => {
    setError(null);
    securityApi.activity().then(setActivity, (e: unknown) => setError(errorMessage(e)));
  }, []);
  useEffect(load, [load]);

  const shown = activity && !showAll ? activity.slice(0, FIRST_ROWS) : activity;
  return (
    <section className="card section" data-testid="section-activity" aria-labelledby="h-activity">
      <h2 id="h-activity">Recent security activity</h2>
      <p className="muted small">
        Sign-ins and changes to how your account signs in, over the last 90 days. If something here was not you, change your password and sign out everywhere
        else.
      </p>
      {error ? (
        <Alert testId="activity-error">
          The activity could not be loaded: {error}{" "}
          <button type="button" className="btn-link" onClick={load}>
            Try again
          </button>
        </Alert>
      ) : activity === null ? (
        <Spinner label="Loading activity…" />
      ) : activity.length === 0 ? (
        <p className="placeholder" data-testid="activity-empty">
          Nothing in the last 90 days.
        </p>
      ) : (
        <ul className="activity-list" data-testid="activity-list">
          {shown?.map((e) => (
            <ActivityRow key={e.id} entry={e} />
          ))}
        </ul>
      )}
      {activity && !showAll && activity.length > FIRST_ROWS ? (
        <button type="button" className="btn btn-secondary btn-sm" data-testid="activity-show-all" onClick={() => setShowAll(true)}>
          Show all {activity.length}
        </button>
      ) : null}
    </section>
  );
}
