// Export of every link of the account (a team owner's with `owner`): CSV or snip's JSON, which an import
// here or in another snip reads back.
import type { EXPORT_FORMATS } from "@contract/imports";

export function ExportButtons({ owner, compact = false }: { owner?: string | null; compact?: boolean }) {
  const size = compact ? " btn-sm" : "";
  return (
    <span className="row gap-sm export-buttons" role="group" aria-label="Export links">
      {compact ? <span className="muted small">Export:</span> : null}
      <a className={`btn btn-secondary${size}`} href={exportHref("csv", owner)} download data-testid="export-csv">
        {compact ? "CSV" : "Export CSV"}
      </a>
      <a className={`btn btn-secondary${size}`} href={exportHref("json", owner)} download data-testid="export-json">
        {compact ? "JSON" : "Export JSON"}
      </a>
    </span>
  );
}

export function ExportCard() {
  return (
    <section className="card export-card" data-testid="export-card">
      <h2>Export links</h2>
      <p className="muted">
        Every link of your account with all its fields, tags and click totals. The JSON file imports back into snip (here or on another server) as it was; the
        CSV opens in a spreadsheet.
      </p>
      <ExportButtons />
    </section>
  );
}

/** The export of every link of the account (a team owner's with `owner`), as a file download. */
function exportHref(format: (typeof EXPORT_FORMATS)[number], owner?: string | null): string {
  const p = new URLSearchParams({ format });
  if (owner) p.set("owner", owner);
  return `/api/links/export?${p}`;
}
