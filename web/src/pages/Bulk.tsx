// Bulk creation: one URL per line, one result per line (Business and above).
import { useState, type FormEvent } from "react";
import { api, ApiError, planAtLeast, type BulkResult } from "../api";
import { useSession } from "../session";
import { A, Alert, CopyButton, Field, UpgradeHint, errorMessage, useTitle } from "../ui";

export function BulkPage() {
  useTitle("Bulk create");
  const { user } = useSession();
  const allowed = planAtLeast(user?.plan, "business");
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [results, setResults] = useState<BulkResult[] | null>(null);

  const lineCount = text.split(/\r?\n/).filter((l) => l.trim()).length;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setResults(await api.bulkCreate(text));
    } catch (err) {
      setError(err instanceof ApiError ? (err.details[0] ? `${err.message} ${err.details[0].message}` : err.message) : errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  const created = results?.filter((r) => r.status === "created").length ?? 0;

  return (
    <div className="bulk-page">
      <p className="breadcrumb">
        <A to="/app">← Your links</A>
      </p>
      <h1>Bulk create</h1>
      {!allowed ? (
        <div className="card upgrade-card" data-testid="bulk-upgrade">
          <h2>Create many links at once</h2>
          <p>Paste a list of addresses, one per line, and get a short link for each with a result per line.</p>
          <p>
            <UpgradeHint plan="Business">Bulk creation is available on Business and Enterprise.</UpgradeHint>
          </p>
          <p className="muted small">Your plan: {user?.plan ?? "free"}.</p>
        </div>
      ) : (
        <>
          <form className="card form-card" onSubmit={submit} data-testid="bulk-form">
            <Field id="bulk-urls" label="Addresses, one complete URL per line" hint={`${lineCount} ${lineCount === 1 ? "line" : "lines"}. Empty lines are ignored; a faulty line does not stop the others.`}>
              <textarea
                id="bulk-urls"
                data-testid="bulk-urls"
                rows={10}
                spellCheck={false}
                placeholder={"https://example.com/first\nhttps://example.com/second"}
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

          {results ? (
            <section className="card" data-testid="bulk-results">
              <h2>
                Results <span className="muted small">{created} created, {results.length - created} with errors</span>
              </h2>
              {results.length === 0 ? (
                <p className="muted">No lines to process.</p>
              ) : (
                <div className="table-wrap">
                  <table className="table">
                    <thead>
                      <tr>
                        <th scope="col">Line</th>
                        <th scope="col">URL</th>
                        <th scope="col">Result</th>
                      </tr>
                    </thead>
                    <tbody>
                      {results.map((r) => (
                        <tr key={r.line} data-testid="bulk-result-row" className={r.status === "error" ? "row-error" : ""}>
                          <td>{r.line}</td>
                          <td className="truncate cell-url" title={r.url}>
                            {r.url}
                          </td>
                          <td>
                            {r.status === "created" && r.link ? (
                              <span className="row gap-sm">
                                <a href={r.link.short_url} target="_blank" rel="noopener noreferrer">
                                  {r.link.short_url}
                                </a>
                                <CopyButton text={r.link.short_url} />
                              </span>
                            ) : (
                              <span className="text-error">{r.message ?? r.code ?? "Error"}</span>
                            )}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
          ) : null}
        </>
      )}
    </div>
  );
}
