// Operator console, abuse reports: the queue (open by default) with each report's link, reason and reporter;
// dismiss, disable the link, or ban its owner (suspends the account and disables every link of theirs).
import { useState } from "react";
import { adminApi } from "./admin-api";
import type { AbuseReport, ReportState } from "@contract/reports";
import { Alert, ConfirmDialog, Field, useTitle } from "../shared/ui";
import { useRowSubmit, useSubmit } from "../shared/submit";
import { DisableDialog } from "./common";
import { ListView, usePagedList, useUrlFilters } from "../shared/lists";
import { ReportCard, STATES, reportedShort, stateLabel } from "./reports/ReportCard";

// eslint-disable-next-line max-lines-per-function -- the queue, its three actions and their dialogs share the page's state.
export function AdminReportsPage() {
  useTitle("Reports · Operator");
  const [filters, setFilters] = useUrlFilters(["state"] as const, { state: "open" });
  const list = usePagedList(
    (cursor) =>
      adminApi
        .reports({ state: filters.state === "all" ? undefined : filters.state, cursor, limit: 50 })
        .then((r) => ({ items: r.reports, next: r.next_cursor ?? null })),
    filters.state,
  );
  const [notice, setNotice] = useState<string | null>(null);
  const rows = useRowSubmit();
  const [toDisable, setToDisable] = useState<AbuseReport | null>(null);
  const [toBan, setToBan] = useState<AbuseReport | null>(null);
  const [banReason, setBanReason] = useState("");

  /**
   * The server resolves other reports along with this one (the link's other open reports; for a ban, those of every
   * link of the owner): the list is read again rather than guessed.
   */
  function resolved(message: string) {
    list.reload();
    setNotice(message);
  }

  function dismiss(r: AbuseReport) {
    setNotice(null);
    return rows.run(r.id, async () => {
      await adminApi.dismissReport(r.id);
      resolved(`Dismissed the report on ${reportedShort(r)}.`);
    });
  }

  const banning = useSubmit(async (r: AbuseReport) => {
    await adminApi.reportBanOwner(r.id, banReason.trim() ? { reason: banReason.trim() } : {});
    resolved(`Banned ${r.link?.owner_email ?? "the owner"}: the account is suspended and every link of theirs disabled.`);
    setToBan(null);
  });

  const open = filters.state === "open";
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Abuse reports</h1>
          <p className="muted">
            Reports sent from the public <a href="/report">report form</a>. Resolving a report resolves the other open reports of the same link the same way; a
            ban resolves those of every link of the owner.
          </p>
        </div>
      </div>

      <div className="presets state-chips" role="group" aria-label="Report state">
        {[...STATES, { value: "all", label: "All" }].map((s) => (
          <button
            key={s.value}
            type="button"
            className={`chip${filters.state === s.value ? " chip-active" : ""}`}
            aria-pressed={filters.state === s.value}
            data-testid={`reports-state-${s.value}`}
            onClick={() => setFilters({ state: s.value })}
          >
            {s.label}
          </button>
        ))}
      </div>

      {notice ? (
        <Alert kind="success" testId="reports-notice">
          {notice}
        </Alert>
      ) : null}
      <ListView
        list={list}
        what="the reports"
        loading="Loading reports…"
        testId="reports"
        empty={{
          title: open ? "No open reports" : filters.state === "all" ? "No reports yet" : `No reports in “${stateLabel(filters.state as ReportState)}”`,
          text: open ? <p className="muted">Nothing is waiting for review.</p> : null,
          icon: "audit",
        }}
      >
        {(items) => (
          <ul className="report-list" data-testid="report-list">
            {items.map((r) => (
              <ReportCard
                key={r.id}
                report={r}
                busy={rows.busyId === r.id}
                error={rows.errors[r.id]}
                onDismiss={() => void dismiss(r)}
                onDisable={() => setToDisable(r)}
                onBan={() => {
                  setBanReason(`Reported as ${r.reason}`);
                  banning.setError(null);
                  setToBan(r);
                }}
              />
            ))}
          </ul>
        )}
      </ListView>

      <DisableDialog
        open={toDisable !== null}
        title="Disable the reported link?"
        confirmLabel="Disable link"
        initialReason={toDisable ? `Reported as ${toDisable.reason}` : ""}
        requireReason={false}
        onCancel={() => setToDisable(null)}
        onConfirm={async (reason, status) => {
          const r = toDisable;
          if (!r) return;
          await adminApi.reportDisableLink(r.id, reason ? { reason, status } : { status });
          resolved(`Disabled ${reportedShort(r)}: visitors get ${status}.`);
          setToDisable(null);
        }}
      >
        <p>
          <strong>{toDisable ? reportedShort(toDisable) : ""}</strong> stops redirecting at once; its owner sees the reason.
        </p>
      </DisableDialog>

      <ConfirmDialog
        open={toBan !== null}
        title="Ban the owner?"
        confirmLabel="Ban owner"
        danger
        busy={banning.busy}
        error={banning.error}
        onConfirm={() => (toBan ? void banning.run(toBan) : undefined)}
        onCancel={() => setToBan(null)}
      >
        <p>
          <strong>{toBan?.link?.owner_email}</strong> is suspended (its API keys and dashboard writes are refused) and <strong>every link of theirs</strong> is
          disabled (410; links already disabled keep their reason). The open reports of all their links are resolved.
        </p>
        <Field id="ban-reason" label="Reason (shown on their links)">
          <textarea
            id="ban-reason"
            className="prose"
            data-testid="ban-reason"
            rows={2}
            maxLength={500}
            value={banReason}
            onChange={(e) => setBanReason(e.target.value)}
          />
        </Field>
      </ConfirmDialog>
    </>
  );
}
