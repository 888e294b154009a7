// The results of a bulk creation: one row per line sent, and the whole table as a CSV download.
import { useEffect, useMemo } from "react";
import type { BulkResult } from "@contract/links";
import { CopyButton, DataTable } from "../../shared/ui";
import { resultsCsv, type BulkLine } from "./bulk-lines";
import { BreakAt } from "../../shared/break-at";

export function BulkResults({ results, rows }: { results: BulkResult[]; rows: BulkLine[] }) {
  const created = results.filter((r) => r.status === "created").length;
  const href = useMemo(() => URL.createObjectURL(new Blob([resultsCsv(results, rows)], { type: "text/csv;charset=utf-8" })), [results, rows]);
  useEffect(() => () => URL.revokeObjectURL(href), [href]);
  return (
    <section className="card" data-testid="bulk-results">
      <div className="row gap space-between">
        <h2>
          Results{" "}
          <span className="muted small">
            {created} created, {results.length - created} with errors
          </span>
        </h2>
        <a className="btn btn-secondary btn-sm" href={href} download="bulk-results.csv" data-testid="bulk-results-csv">
          Download CSV
        </a>
      </div>
      <DataTable frame="none" columns={["Line", "URL", "Alias", "Result"]}>
        {results.map((r) => (
          <tr key={r.line} data-testid="bulk-result-row" className={r.status === "error" ? "row-error" : ""}>
            <td>{rows[r.line - 1]?.first ?? r.line}</td>
            <td className="truncate cell-url" title={r.url}>
              {r.url}
            </td>
            <td>{r.alias ?? ""}</td>
            <td>
              {r.status === "created" ? (
                <span className="row gap-sm">
                  <a href={r.link.short_url} target="_blank" rel="noopener noreferrer">
                    <BreakAt text={r.link.short_url} />
                  </a>
                  <CopyButton text={r.link.short_url} />
                </span>
              ) : (
                <span className="text-error">{r.details?.map((d) => d.message).join(" ") || r.message}</span>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
