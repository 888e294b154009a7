// A link's health on its page (docs/health.md): each destination (the main one, devices, rules, split variants,
// fallback) with its state, its last check (answer and status, final address, response time, the certificate's end)
// and the last checks, newest first; loading, a failed read, checks off and "not checked yet" each have their words.
import { type ReactNode, useEffect, useState } from "react";
import type { Link } from "@contract/links";
import type { DestinationHealth } from "@contract/health";
import { linkHealth, type LinkHealthReport } from "./link-page-api";
import { DataTable, errorMessage, formatDate, formatDateTime } from "../../shared/ui";
import { formatRelative } from "../../shared/dates";
import { formatNumber } from "../../shared/numbers";
import { destinationLabel } from "../../shared/destination-label";
import { RESULT_WORDS, STATE_KIND, STATE_WORDS } from "../health";
import { Breakable } from "./Breakable";

type Load = { kind: "loading" } | { kind: "ok"; report: LinkHealthReport } | { kind: "error"; message: string };

/** The link's health, read again after an edit (a new address starts over) and on "Try again". */
function useHealth(link: Link, attempt: number): Load {
  const [load, setLoad] = useState<Load>({ kind: "loading" });
  useEffect(() => {
    let live = true;
    setLoad({ kind: "loading" });
    linkHealth(link.id).then(
      (report) => live && setLoad({ kind: "ok", report }),
      (e: unknown) => live && setLoad({ kind: "error", message: errorMessage(e) }),
    );
    return () => {
      live = false;
    };
  }, [link.id, link.updated_at, attempt]);
  return load;
}

function Fact({ label, children, wide = false, testId }: { label: string; children: ReactNode; wide?: boolean; testId?: string }) {
  return (
    <div className={wide ? "fact-wide" : undefined}>
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

/** "Answered (200)", "Not found (404)", "No answer in time". */
function answer(d: Pick<DestinationHealth, "last_result" | "status_code">): string {
  if (d.last_result === null) return "—";
  return d.status_code === null ? RESULT_WORDS[d.last_result] : `${RESULT_WORDS[d.last_result]} (${d.status_code})`;
}

function certificate(validTo: string | null): string {
  if (validTo === null) return "—";
  return Date.parse(validTo) <= Date.now() ? `Expired ${formatDate(validTo)}` : `Valid until ${formatDate(validTo)}`;
}

function History({ d }: { d: DestinationHealth }) {
  return (
    <details className="dest-health-history" open={d.state === "failing" || d.state === "broken"} data-testid="dest-health-history">
      <summary>Last {d.history.length === 1 ? "check" : `${d.history.length} checks`}</summary>
      <DataTable
        className="table link-page-table"
        frame="none"
        caption={`Last checks of ${destinationLabel(d.destination)}`}
        columns={["Checked", "Result", { label: "Time", className: "num" }]}
      >
        {d.history.map((h) => (
          <tr key={h.at} data-testid="dest-health-check">
            <td>{formatDateTime(h.at)}</td>
            <td>{answer({ last_result: h.result, status_code: h.status_code })}</td>
            <td className="num">{h.response_ms === null ? "—" : `${formatNumber(h.response_ms)} ms`}</td>
          </tr>
        ))}
      </DataTable>
    </details>
  );
}

function Destination({ d }: { d: DestinationHealth }) {
  return (
    <div className="dest-health" data-testid="dest-health" data-destination={d.destination} data-state={d.state}>
      <div className="dest-health-head">
        <h3>{destinationLabel(d.destination)}</h3>
        <span className={`badge ${STATE_KIND[d.state]}`} data-testid="dest-health-state">
          {STATE_WORDS[d.state]}
        </span>
      </div>
      <p className="dest-health-url" data-testid="dest-health-url">
        <Breakable text={d.url} />
      </p>
      {d.last_checked_at === null ? null : (
        <dl className="facts facts-compact dest-health-facts">
          <Fact label="Last check" testId="dest-health-checked">
            <span title={formatDateTime(d.last_checked_at)}>{formatRelative(d.last_checked_at)}</span>
          </Fact>
          <Fact label="Answer" testId="dest-health-answer">
            {answer(d)}
          </Fact>
          <Fact label="Response time" testId="dest-health-time">
            {d.response_ms === null ? "—" : `${formatNumber(d.response_ms)} ms`}
          </Fact>
          <Fact label="Certificate" testId="dest-health-tls">
            {certificate(d.tls_valid_to)}
          </Fact>
          {d.broken_since ? (
            <Fact label="Broken since" testId="dest-health-broken-since">
              {formatDateTime(d.broken_since)}
            </Fact>
          ) : null}
          <Fact label="Final address" wide testId="dest-health-final">
            {d.final_url === null ? "—" : d.final_url === d.url ? "The destination itself (no redirect)" : <Breakable text={d.final_url} />}
          </Fact>
          {/* An HTTP answer says it all already ("Server error (500)"); a timeout or a TLS problem says more here. */}
          {d.error && d.status_code === null ? (
            <Fact label="Error" wide testId="dest-health-error">
              {d.error}
            </Fact>
          ) : null}
        </dl>
      )}
      {d.history.length > 0 ? <History d={d} /> : null}
    </div>
  );
}

function HealthBody({ load, retry }: { load: Load; retry: () => void }) {
  if (load.kind === "loading")
    return (
      <p className="muted" role="status" data-testid="link-health-loading">
        Loading the checks…
      </p>
    );
  if (load.kind === "error")
    return (
      <p className="field-error" role="alert" data-testid="link-health-error">
        Could not load the checks: {load.message}{" "}
        <button type="button" className="btn btn-secondary btn-sm" onClick={retry} data-testid="link-health-retry">
          Try again
        </button>
      </p>
    );
  const { checks_enabled, destinations } = load.report;
  if (!checks_enabled)
    return (
      <p className="muted" data-testid="link-health-off">
        This server does not check destinations: its operator turned link checks off.
      </p>
    );
  if (destinations.every((d) => d.last_checked_at === null))
    return (
      <p className="muted" data-testid="link-health-empty">
        Not checked yet: each destination is checked soon after it is saved, then on a schedule.
      </p>
    );
  return (
    <>
      <p className="muted small">
        Each destination is checked on a schedule. Three failed checks in a row make it broken; the owner's daily email says which destinations broke or
        recovered.
      </p>
      {destinations.map((d) => (
        <Destination key={d.destination} d={d} />
      ))}
    </>
  );
}

export function LinkHealth({ link }: { link: Link }) {
  const [attempt, setAttempt] = useState(0);
  const load = useHealth(link, attempt);
  return (
    <section
      className="card link-health"
      id="health"
      aria-labelledby="link-health-heading"
      aria-busy={load.kind === "loading"}
      data-testid="link-health-section"
    >
      <h2 id="link-health-heading">Health</h2>
      <HealthBody load={load} retry={() => setAttempt((n) => n + 1)} />
    </section>
  );
}
