// Bio pages (docs/bio-pages.md): the list of the account's pages with their address, views and clicks (BioEditor.tsx
// edits one).
import { useCallback, useEffect, useState } from "react";
import type { BioPage } from "@contract/bio-pages";
import { useSession } from "../shared/session";
import { A, ConfirmDialog, CopyButton, EmptyState, Spinner, errorMessage, useConfirmedDelete, useTitle } from "../shared/ui";
import { PlanGate, can } from "../shared/plan-gate";
import { ListError } from "../shared/lists";
import { bioApi } from "./bio-api";
import "./bio.css";

const fmt = new Intl.NumberFormat("en");
/** "1 view", "2 views". */
export const count = (n: number, one: string) => `${fmt.format(n)} ${one}${n === 1 ? "" : "s"}`;

// eslint-disable-next-line max-lines-per-function -- the list's states, rows and delete dialog share the page's state.
export function BioPagesPage() {
  useTitle("Bio pages");
  const { user } = useSession();
  const allowed = can(user?.plan ?? "free", "bio_pages");
  const [pages, setPages] = useState<BioPage[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    setLoading(true);
    setError(null);
    try {
      setPages(await bioApi.list());
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setLoading(false);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  const del = useConfirmedDelete(async (p: BioPage) => {
    await bioApi.remove(p.id);
    setPages((prev) => prev.filter((x) => x.id !== p.id));
  });

  return (
    <div className="bio-page">
      <div className="page-head">
        <div>
          <h1>Bio pages</h1>
          <p className="muted">One page with all your links, at an address of your own: put it in your social profiles.</p>
        </div>
        {allowed ? (
          <A to="/app/bio/new" className="btn btn-primary" testId="bio-new">
            New bio page
          </A>
        ) : null}
      </div>
      {allowed ? null : (
        <div className="card" data-testid="bio-gated">
          <PlanGate feature="Bio pages" capability="bio_pages" />
        </div>
      )}
      {error ? <ListError what="your bio pages" error={error} onRetry={() => void load()} testId="bio-error" /> : null}
      {loading ? (
        <Spinner label="Loading your bio pages…" />
      ) : pages.length === 0 && !error ? (
        <EmptyState title="No bio pages yet" testId="bio-empty">
          <p className="muted">{allowed ? "Make one: a title, a picture and buttons to your links." : "Bio pages need the Pro plan."}</p>
        </EmptyState>
      ) : (
        <ul className="bio-list" data-testid="bio-list">
          {pages.map((p) => (
            <li key={p.id} className="card bio-row" data-testid="bio-row">
              <div className="bio-row-main">
                <A to={`/app/bio/${p.id}`} className="bio-row-title">
                  {p.title}
                </A>
                <a className="muted bio-row-url" href={p.url}>
                  {p.url}
                </a>
              </div>
              <div className="bio-row-figures muted">
                <span data-testid="bio-views">{count(p.views, "view")}</span>
                <span>{count(p.clicks, "click")}</span>
              </div>
              <div className="bio-row-actions">
                <CopyButton text={p.url} label="Copy address" />
                <button type="button" className="btn btn-danger-ghost btn-sm" onClick={() => del.ask(p)} data-testid="bio-delete">
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog {...del.dialog} title={`Delete ${del.item?.title ?? "this page"}?`} confirmLabel="Delete page" danger>
        <p>Its address stops answering at once. The links on it stay.</p>
      </ConfirmDialog>
    </div>
  );
}
