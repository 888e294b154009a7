// The preview of an import: the first rows of the source as they would be imported (nothing written yet),
// each with its action and notes; one card per row on a phone.
import type { PreviewReply, PreviewRow } from "@contract/imports";
import { ACTION_LABELS, codeReason } from "./sources";
import { DataTable } from "../shared/ui";
import { formatNumber } from "../shared/numbers";

const COLUMNS = ["Line", "Short link", "Destination", "Title and tags", "Action", "Notes"];

export function PreviewTable({ preview }: { preview: PreviewReply }) {
  const { rows, total } = preview;
  const count = (a: PreviewRow["action"]) => rows.filter((r) => r.action === a).length;
  return (
    <div data-testid="import-preview">
      <p className="muted small" data-testid="import-preview-summary">
        {total === null ? "The source does not say how many links it holds." : `${formatNumber(total)} ${total === 1 ? "link" : "links"} in the source.`}{" "}
        {rows.length > 0
          ? `${total !== null && total <= rows.length ? "All" : "The first"} ${rows.length}: ${count("create")} to create, ${count("generate")} with a new alias, ${count("skip")} skipped, ${count("fail")} failing.`
          : null}
      </p>
      <DataTable
        className="table import-preview-table"
        frame="none"
        columns={COLUMNS}
        empty={
          <p className="import-preview-empty" data-testid="import-preview-empty">
            No links found in this source.
          </p>
        }
      >
        {rows.map((r) => (
          <PreviewLine key={`${r.line}-${r.source_id}`} row={r} />
        ))}
      </DataTable>
    </div>
  );
}

function PreviewLine({ row }: { row: PreviewRow }) {
  const action = ACTION_LABELS[row.action];
  const reason = codeReason(row.code);
  const notes = reason ? [reason, ...row.notes] : row.notes;
  return (
    <tr data-testid="import-preview-row" data-action={row.action} className={row.action === "fail" ? "row-error" : row.action === "skip" ? "row-muted" : ""}>
      <td className="cell-line">{row.line}</td>
      <td className="cell-short" data-testid="import-preview-short">
        <ShortCell row={row} />
      </td>
      <td className="cell-dest truncate" title={row.url}>
        {row.url}
      </td>
      <td className="cell-title">
        {row.title ? <span className="import-title">{row.title}</span> : null}
        {row.tags.length ? (
          <span className="import-tags">
            {row.tags.map((t) => (
              <span key={t} className="badge">
                {t}
              </span>
            ))}
          </span>
        ) : null}
        {!row.title && !row.tags.length ? <span className="muted">—</span> : null}
      </td>
      <td className="cell-action">
        <span className={`badge ${action.badge}`} data-testid="import-preview-action">
          {action.label}
        </span>
      </td>
      <td className="cell-notes small" data-testid="import-preview-notes">
        {/* A failing line says its code and the server's words (the field and why), as the job's report will. */}
        {row.action === "fail" && row.code ? (
          <code className="import-code" data-testid="import-preview-code">
            {row.code}
          </code>
        ) : null}{" "}
        {notes.length ? notes.join(" ") : <span className="muted">—</span>}
      </td>
    </tr>
  );
}

/** Where the link will live; a generated alias is not known before the import. */
function ShortCell({ row }: { row: PreviewRow }) {
  if (row.short_url) return <>{row.short_url}</>;
  if (row.action === "generate") return <span className="muted">{row.alias ? `generated (${row.alias} taken)` : "generated"}</span>;
  if (row.alias) return <span className="muted">{row.alias}</span>;
  return <span className="muted">{row.action === "create" ? "generated" : "—"}</span>;
}
