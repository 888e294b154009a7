// Bulk creation: lines of `url` or `url,alias` (CSV), one result per line, downloadable as CSV; the lines
// created are taken out of the text so a second submit cannot create them twice (Business and above).
import { linksApi } from "../links-api";
import { useState, type FormEvent } from "react";
import { ApiError } from "../../shared/api";
import type { BulkResult } from "@contract/links";
import { useSession } from "../../shared/session";
import { A, Alert, Field, errorMessage, useTitle } from "../../shared/ui";
import { useSubmit } from "../../shared/submit";
import { PlanGate, can } from "../../shared/plan-gate";
import { parseBulkText, withoutLines, type BulkLine } from "./bulk-lines";
import { BulkResults } from "./BulkResults";
import { withScheme } from "../../shared/with-scheme";

/** One row as sent. As the link form, example.com/page gets https:// (the API takes complete URLs only: API.md). */
function toRequest({ url, alias, details }: BulkLine) {
  return {
    url: withScheme(url),
    ...(alias ? { alias } : {}),
    ...details,
    ...(details?.expired_url ? { expired_url: withScheme(details.expired_url) } : {}),
  };
}

export function BulkPage() {
  useTitle("Bulk create");
  const { user } = useSession();
  const allowed = can(user?.plan ?? "free", "bulk_create");
  const [text, setText] = useState("");
  const [sent, setSent] = useState<{ results: BulkResult[]; rows: BulkLine[] } | null>(null);

  const parsed = parseBulkText(text);
  const lineCount = parsed.rows.length;

  const { busy, error, setError, run } = useSubmit(
    async (rows: BulkLine[]) => {
      const results = await linksApi.bulkCreate(rows.map(toRequest));
      setSent({ results, rows });
      setText(
        withoutLines(
          text,
          rows.filter((_, i) => results[i]?.status === "created"),
        ),
      );
    },
    (err) => (err instanceof ApiError ? (err.details[0]?.message ?? err.message) : errorMessage(err)),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (parsed.problems.length) setError(parsed.problems.map((p) => `Line ${p.line}: ${p.message}`).join(" "));
    else void run(parsed.rows);
  }

  return (
    <div className="bulk-page">
      <p className="breadcrumb">
        <A to="/app">← Your links</A>
      </p>
      <h1>Bulk create</h1>
      {!allowed ? (
        <div className="card upgrade-card" data-testid="bulk-upgrade">
          <h2>Create many links at once</h2>
          <p>Paste a list of addresses, one per line, optionally with an alias after a comma, and get a short link for each with a result per line.</p>
          <PlanGate feature="Bulk creation" capability="bulk_create" />
        </div>
      ) : (
        <>
          <form className="card form-card" onSubmit={submit} data-testid="bulk-form">
            <Field
              id="bulk-urls"
              label="One link per line: url, or url,alias"
              error={parsed.problems.length ? parsed.problems.map((p) => `Line ${p.line}: ${p.message}`).join(" ") : undefined}
              hint={`${lineCount} ${lineCount === 1 ? "line" : "lines"}. CSV: quote a URL that holds a comma. A first line such as url,alias,title,note,tags,expired_url names the columns of the lines below. Empty lines are ignored; a faulty line does not stop the others, and created lines leave this box.`}
            >
              <textarea
                id="bulk-urls"
                data-testid="bulk-urls"
                rows={10}
                spellCheck={false}
                placeholder={"https://example.com/first\nexample.com/second,spring-sale"}
                value={text}
                onChange={(e) => setText(e.target.value)}
              />
            </Field>
            {error ? <Alert testId="bulk-error">{error}</Alert> : null}
            <div className="form-actions">
              <button type="submit" className="btn btn-primary" disabled={busy || lineCount === 0} data-testid="bulk-submit">
                {busy ? "Creating…" : `Create ${lineCount || ""} ${lineCount === 1 ? "link" : "links"}`}
              </button>
            </div>
          </form>
          {sent ? <BulkResults results={sent.results} rows={sent.rows} /> : null}
        </>
      )}
    </div>
  );
}
