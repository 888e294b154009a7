// The live feed: the latest clicks on the links shown (the user's own, or a team owner's picked in the
// header), newest on top, as they happen (Server-Sent Events), on Business and above.
import { useSession } from "../../shared/session";
import { ownerLabel, useTeamView } from "../../shared/team-view";
import { Alert, EmptyState, Spinner, formatDateTime, useTitle } from "../../shared/ui";
import { PlanGate, can } from "../../shared/plan-gate";
import { MAX_KEPT, type LiveItem, type LiveState, useLiveFeed } from "./use-live-feed";
import { countryName } from "../../shared/charts/parts";
import "./live.css";
import { formatNumber } from "../../shared/numbers";

const TIME = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });

function StatusPill({ state }: { state: LiveState }) {
  const [text, cls] =
    state.kind === "live"
      ? ["Live", "live-pill-on"]
      : state.kind === "refused"
        ? ["Stopped", "live-pill-off"]
        : state.kind === "connecting"
          ? ["Connecting…", "live-pill-wait"]
          : ["Reconnecting…", "live-pill-wait"];
  return (
    <span className={`live-pill ${cls}`} role="status" data-testid="live-status" data-state={state.kind}>
      <span className="live-dot" aria-hidden="true" />
      {text}
    </span>
  );
}

function ClickRow({ c }: { c: LiveItem }) {
  return (
    <li className="live-row" data-testid="live-row">
      <time className="live-time" dateTime={c.at} title={formatDateTime(c.at)}>
        {TIME.format(new Date(c.at))}
      </time>
      <span className="live-link" title={`${c.domain}/${c.alias}`}>
        <strong data-testid="live-alias">{c.alias}</strong>
        <span className="muted small live-domain">{c.domain}</span>
      </span>
      <span className="live-source">
        {c.source === "qr" ? (
          <span className="badge badge-qr" data-testid="live-source">
            QR
          </span>
        ) : (
          <span className="badge" data-testid="live-source">
            Link
          </span>
        )}
        {c.bot ? (
          <span className="badge badge-muted" data-testid="live-bot">
            Bot
          </span>
        ) : null}
      </span>
      {/* One line on a phone; three columns of the grid on wider screens. */}
      <span className="live-facts">
        <span className="live-country" data-testid="live-country" title={countryName(c.country)}>
          {c.country || <span className="muted">—</span>}
        </span>
        <span className="live-device" data-testid="live-device">
          {c.device.charAt(0).toUpperCase() + c.device.slice(1)}
          <span className="muted"> · {c.browser}</span>
        </span>
        <span className="live-referrer" data-testid="live-referrer" title={c.referrer || "No referrer"}>
          {c.referrer || <span className="muted">Direct</span>}
        </span>
      </span>
    </li>
  );
}

export function LivePage() {
  useTitle("Live");
  const { user } = useSession();
  const { memberships, ownerId } = useTeamView();
  const team = memberships?.find((m) => m.owner_id === ownerId);
  // The user's own feed follows the user's plan; a team owner's follows the owner's, which the server checks.
  const allowed = ownerId !== null || can(user?.plan ?? "free", "account_analytics");
  const { state, clicks, skipped } = useLiveFeed(ownerId, allowed && memberships !== null);
  const whose = team ? ownerLabel(team) : "your links";

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Live</h1>
          <p className="muted">
            Clicks on {whose} as they happen: the latest {MAX_KEPT} are kept here, newest on top. No visitor's address is shown or kept.
          </p>
        </div>
        {allowed ? <StatusPill state={state} /> : null}
      </div>
      {!allowed ? (
        <PlanGate feature="The live feed of clicks" capability="account_analytics" testId="live-gate" />
      ) : state.kind === "refused" ? (
        state.error.code === "plan_required" ? (
          <PlanGate feature={`The live feed of ${whose}`} capability="account_analytics" testId="live-gate" />
        ) : (
          <Alert testId="live-refused">The live feed could not be opened: {state.error.message}</Alert>
        )
      ) : (
        <>
          {state.kind === "reconnecting" ? (
            <Alert kind="warning" testId="live-reconnecting">
              {state.reason} Reconnecting… Clicks made meanwhile are not lost: they show in the statistics.
            </Alert>
          ) : null}
          {skipped > 0 ? (
            <p className="muted small" data-testid="live-skipped">
              {formatNumber(skipped)} {skipped === 1 ? "click was" : "clicks were"} not listed: they came faster than the feed shows them. The statistics count
              every click.
            </p>
          ) : null}
          {state.kind === "connecting" && clicks.length === 0 ? (
            <Spinner label="Connecting to the live feed…" />
          ) : clicks.length === 0 ? (
            <EmptyState title="Waiting for clicks…" testId="live-empty" icon="live">
              <p className="muted">Open one of {whose} in another tab or scan its QR code: the visit shows here within a second.</p>
            </EmptyState>
          ) : (
            <div className="card card-flush live-card">
              <div className="live-head" aria-hidden="true">
                <span>Time</span>
                <span>Link</span>
                <span>Source</span>
                <span>Country</span>
                <span>Device</span>
                <span>Referrer</span>
              </div>
              <ol className="live-list" data-testid="live-list" aria-live="polite" aria-label="Latest clicks, newest first">
                {clicks.map((c) => (
                  <ClickRow key={c.key} c={c} />
                ))}
              </ol>
            </div>
          )}
        </>
      )}
    </>
  );
}
