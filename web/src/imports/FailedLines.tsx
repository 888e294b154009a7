// The failed lines of a finished import on its page, each with its code and reason (the report CSV has every line).
import { useEffect, useState } from "react";
import type { FailedLine } from "@contract/imports";
import { Alert, errorMessage } from "../shared/ui";
import { codeReason } from "./sources";
import { importsApi } from "./imports-api";
import { formatNumber } from "../shared/numbers";

export function FailedLines({ id, count }: { id: string; count: number }) {
  const [lines, setLines] = useState<{ failed: FailedLine[]; more: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    importsApi.failed(id).then(
      (r) => live && setLines(r),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [id, count]);
  if (error) return <Alert testId="import-failed-error">The failed lines could not be read: {error}</Alert>;
  if (!lines) return null;
  return (
    <section className="import-failed" data-testid="import-failed" aria-labelledby={`failed-${id}`}>
      <h3 id={`failed-${id}`}>
        {formatNumber(count)} failed {count === 1 ? "line" : "lines"}
        {lines.more ? `: the first ${lines.failed.length} (the report has them all)` : ""}
      </h3>
      <ul className="import-failed-list">
        {lines.failed.map((l) => (
          <li key={l.line} data-testid="import-failed-line">
            <span className="import-failed-where">
              Line {l.line}
              {l.alias ? ` · ${l.alias}` : ""}
            </span>{" "}
            <span className="import-failed-url">{l.url || "(no URL)"}</span>
            <span className="import-failed-why">
              <code className="import-code">{l.code}</code> {codeReason(l.code)} {l.notes}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
