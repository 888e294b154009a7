// Dashboard: the signed-in user's links with search, paging, copy, QR, edit, stats and delete; with
// `shared`, a team owner's links for a member ("Shared with me": edit and statistics, no delete).
import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { useParams, useSearchParams } from "react-router";
import { api, qrUrl, type Link, type Membership } from "../api";
import { useSession } from "../session";
import { A, Alert, ConfirmDialog, CopyButton, EmptyState, ModerationBadges, ModerationNotice, Spinner, errorMessage, formatDate, useConfirmedDelete, useTitle } from "../ui";

export function LinksPage({ shared = false }: { shared?: boolean }) {
  useTitle(shared ? "Shared with me" : "Dashboard");
  const { user } = useSession();
  const { ownerId } = useParams();
  const owner = shared ? ownerId : undefined;
  const [team, setTeam] = useState<Membership | null>(null);
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const welcome = params.get("welcome") === "1";
  const [search, setSearch] = useState(q);
  const [links, setLinks] = useState<Link[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [qrFor, setQrFor] = useState<Link | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const requestId = useRef(0);

  const load = useCallback(async (query: string) => {
    const id = ++requestId.current;
    setLoading(true);
    setError(null);
    try {
      const page = await api.listLinks(query, null, 20, owner);
      if (id !== requestId.current) return;
      setLinks(page.links);
      setCursor(page.next_cursor ?? null);
    } catch (e) {
      if (id === requestId.current) setError(errorMessage(e));
    } finally {
      if (id === requestId.current) setLoading(false);
    }
  }, [owner]);

  useEffect(() => {
    setSearch(q);
    void load(q);
  }, [q, load]);

  useEffect(() => {
    if (!owner) return;
    api
      .team()
      .then((t) => setTeam(t.memberships.find((m) => m.owner_id === owner) ?? null))
      .catch(() => undefined);
  }, [owner]);

  // Search as you type, a little after the last keystroke.
  useEffect(() => {
    if (search === q) return;
    const t = window.setTimeout(() => applySearch(search), 350);
    return () => window.clearTimeout(t);
  }, [search]);

  function applySearch(value: string) {
    const next = new URLSearchParams(params);
    if (value.trim()) next.set("q", value.trim());
    else next.delete("q");
    next.delete("welcome");
    setParams(next, { replace: true });
  }

  async function loadMore() {
    if (!cursor) return;
    setLoadingMore(true);
    setError(null);
    try {
      const page = await api.listLinks(q, cursor, 20, owner);
      setLinks((prev) => {
        const seen = new Set(prev.map((l) => l.id));
        return [...prev, ...page.links.filter((l) => !seen.has(l.id))];
      });
      setCursor(page.next_cursor ?? null);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setLoadingMore(false);
    }
  }

  const del = useConfirmedDelete(async (link: Link) => {
    await api.deleteLink(link.id);
    setLinks((prev) => prev.filter((l) => l.id !== link.id));
    setNotice(`Deleted ${link.short_url}.`);
  });
  const toDelete = del.item;

  return (
    <div className="links-page">
      <div className="page-head">
        {shared ? (
          <div>
            <p className="breadcrumb">
              <A to="/app/team">← Team</A>
            </p>
            <h1 data-testid="shared-title">{team ? `Links of ${team.owner_name || team.owner_email}` : "Shared with me"}</h1>
            <p className="muted">You can edit these links and see their statistics; they stay their owner's, who alone can delete them.</p>
          </div>
        ) : (
          <div>
            <h1>Your links</h1>
            <p className="muted">Everything you have shortened while signed in.</p>
          </div>
        )}
        <div className={shared ? "visually-hidden" : "row gap"}>
          <A to="/app/links/bulk" className="btn btn-secondary">
            Bulk create
          </A>
          <A to="/app/links/new" className="btn btn-primary" testId="new-link-button">
            + New link
          </A>
        </div>
      </div>

      {welcome && user && !user.email_verified ? (
        <Alert kind="info" testId="welcome-notice">
          Welcome to snip! We sent a verification link to <strong>{user.email}</strong>. Please confirm your address.
        </Alert>
      ) : null}
      {notice ? <Alert kind="success">{notice}</Alert> : null}

      <form
        className="search-bar"
        role="search"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          applySearch(search);
        }}
      >
        <label htmlFor="links-search" className="visually-hidden">
          Search links
        </label>
        <input
          id="links-search"
          data-testid="links-search"
          type="search"
          placeholder="Search by alias or destination…"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <button type="submit" className="btn btn-secondary" data-testid="links-search-submit">
          Search
        </button>
      </form>

      {error ? (
        <Alert testId="links-error">
          {shared ? "Could not load this team's links (your access may have ended): " : "Could not load your links: "}
          {error}{" "}
          <button type="button" className="btn-link" onClick={() => void load(q)}>
            Try again
          </button>
        </Alert>
      ) : null}

      {loading ? (
        <Spinner label="Loading your links…" />
      ) : links.length === 0 && !error ? (
        q ? (
          <EmptyState title="No links match your search" testId="links-empty">
            <p className="muted">Nothing found for “{q}”.</p>
            <button type="button" className="btn btn-secondary" onClick={() => applySearch("")}>
              Clear search
            </button>
          </EmptyState>
        ) : (
          <EmptyState title="No links yet" testId="links-empty">
            {shared ? (
              <p className="muted">This team has no links yet.</p>
            ) : (
              <>
                <p className="muted">Create your first short link: it will show up here with its click count.</p>
                <A to="/app/links/new" className="btn btn-primary">
                  Create a link
                </A>
              </>
            )}
          </EmptyState>
        )
      ) : (
        <>
          <ul className="link-list" data-testid="link-list">
            {links.map((l) => (
              <li key={l.id} className={`link-item card${l.disabled ? " link-item-disabled" : l.destination_blocked ? " link-item-blocked" : ""}`} data-testid="link-row" data-link-id={l.id}>
                <div className="link-info">
                  <a className="link-short" href={l.short_url} target="_blank" rel="noopener noreferrer" data-testid="link-short-url">
                    {l.short_url.replace(/^https?:\/\//, "")}
                  </a>
                  <p className="link-dest truncate" title={l.url} data-testid="link-destination">
                    {l.url}
                  </p>
                  <p className="link-meta">
                    <span data-testid="link-clicks" className="clicks">
                      <strong>{l.click_count.toLocaleString()}</strong> {l.click_count === 1 ? "click" : "clicks"}
                    </span>
                    <ModerationBadges link={l} />
                    <span>Created {formatDate(l.created_at)}</span>
                    {l.domain ? (
                      <span className="badge link-domain" data-testid="link-domain" title="On your custom domain">
                        {l.domain}
                      </span>
                    ) : null}
                    {l.has_password ? <span className="badge">Password</span> : null}
                    {l.expires_at ? <span className="badge">{new Date(l.expires_at) < new Date() ? "Expired" : `Expires ${formatDate(l.expires_at)}`}</span> : null}
                    {l.max_clicks != null ? <span className="badge">Max {l.max_clicks} clicks</span> : null}
                    {l.updated_by && l.updated_by_email ? (
                      <span data-testid="link-updated-by">Last edited by {l.updated_by === user?.id ? "you" : l.updated_by_email}</span>
                    ) : null}
                  </p>
                  <ModerationNotice link={l} compact />
                </div>
                <div className="link-actions">
                  <CopyButton text={l.short_url} testId="link-copy" />
                  <button type="button" className="btn btn-secondary btn-sm" data-testid="link-qr" onClick={() => setQrFor(l)}>
                    QR
                  </button>
                  <A to={`/app/links/${encodeURIComponent(l.id)}/edit`} className="btn btn-secondary btn-sm" testId="link-edit">
                    Edit
                  </A>
                  <A to={`/app/links/${encodeURIComponent(l.id)}/stats`} className="btn btn-secondary btn-sm" testId="link-stats">
                    Statistics
                  </A>
                  {shared ? null : (
                    <button
                      type="button"
                      className="btn btn-danger-ghost btn-sm"
                      data-testid="link-delete"
                      onClick={() => del.ask(l)}
                    >
                      Delete
                    </button>
                  )}
                </div>
              </li>
            ))}
          </ul>
          {cursor ? (
            <div className="center">
              <button type="button" className="btn btn-secondary" onClick={loadMore} disabled={loadingMore} data-testid="load-more">
                {loadingMore ? "Loading…" : "Load more"}
              </button>
            </div>
          ) : null}
        </>
      )}

      <ConfirmDialog {...del.dialog} title="Delete this link?" confirmLabel="Delete link" danger>
        <p>
          <strong>{toDelete?.short_url}</strong> will stop working immediately (visitors get “not found”). Its statistics are
          deleted too. This cannot be undone.
        </p>
      </ConfirmDialog>

      <QrDialog link={qrFor} onClose={() => setQrFor(null)} />
    </div>
  );
}

function QrDialog({ link, onClose }: { link: Link | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (link && !d.open) d.showModal();
    if (!link && d.open) d.close();
  }, [link]);
  return (
    <dialog
      ref={ref}
      className="dialog qr-dialog"
      data-testid="qr-dialog"
      aria-label="QR code"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {link ? (
        <>
          <h2>QR code</h2>
          <img src={qrUrl(link)} alt={`QR code for ${link.short_url}`} width={220} height={220} className="qr" data-testid="qr-image" />
          <p className="muted center">{link.short_url}</p>
          <div className="dialog-actions">
            <a className="btn btn-secondary" href={qrUrl(link)} download={`${link.alias}-qr.svg`}>
              Download
            </a>
            <button type="button" className="btn btn-primary" onClick={onClose}>
              Close
            </button>
          </div>
        </>
      ) : null}
    </dialog>
  );
}
