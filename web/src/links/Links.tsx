// Dashboard: the signed-in user's links with filters, search and sort kept in the page address, the total, paging,
// 7-day sparklines, multi-select actions (archive, tag, delete), copy, QR, edit, duplicate, stats and delete; with
// `shared`, a team owner's links for a member ("Shared with me": edit and delete as the member's role allows).
import { FolderHead } from "./FolderHead";
import { reloadFolders, useFolders } from "../shared/folders";
import { linkApi } from "../shared/link-api";
import { accountApi } from "../shared/account-api";
import { startTransition, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useNavigate, useParams } from "react-router";

import type { Link } from "@contract/links";
import type { Membership } from "@contract/teams";
import type { TagListItem } from "@contract/tags";
import { useSession } from "../shared/session";
import { A, Alert, ConfirmDialog, EmptyState, Spinner, useConfirmedDelete, useTitle } from "../shared/ui";
import { LoadMore, usePagedList, useSelection } from "../shared/lists";
import { LinkItem } from "./LinkItem";
import { QrDialog } from "./QrDialog";
import { FilterBar } from "./FilterBar";
import { BulkBar, plural } from "./BulkBar";
import { CLEARED, filterCount, listQuery, useListFilters } from "./filters";
import { linksApi } from "./links-api";
import { ExportButtons } from "../shared/ExportLinks";
import { NavMark } from "../shared/nav-mark";
import { useLinkBuilder } from "./form/BuilderDialog";
import { useListKeys } from "./list-keys";
import "./links.css";
import { formatNumber } from "../shared/numbers";
import { type RoleCan, roleCan } from "../shared/team-role";
import { can } from "../shared/plan-gate";
import { ROLE_LABELS } from "@contract/tables";

/** Rows per page (the API allows up to 100); "Load more" reads the next page by its cursor. */
const PAGE = 50;

// eslint-disable-next-line max-lines-per-function -- the filters, the paged list, selection and the dialogs share the page's state.
export function LinksPage({ shared = false }: { shared?: boolean }) {
  const navigate = useNavigate();
  useTitle(shared ? "Shared with me" : "Dashboard");
  const { user } = useSession();
  const { ownerId } = useParams();
  const owner = shared ? ownerId : undefined;
  const team = useTeam(owner);
  // On a team's links, what the user's role there allows (nothing until the role is known); on its own, everything.
  const access = roleCan(shared ? (team?.role ?? null) : "owner");
  const { filters, set, welcome } = useListFilters();
  const key = JSON.stringify([filters, owner]);
  const [total, setTotal] = useState<{ key: string; total: number } | null>(null);
  const list = usePagedList(
    (cursor) =>
      linksApi.list({ ...listQuery(filters), limit: PAGE, ...(owner ? { owner } : {}), ...(cursor ? { cursor } : {}) }).then((p) => {
        if (!cursor) setTotal({ key, total: p.total });
        return { items: p.links, next: p.next_cursor ?? null };
      }),
    key,
  );
  const links = list.items;
  const [tags, reloadTags] = useOwnerTags(owner);
  const folders = useFolders(owner ?? null);
  const domains = useDomains(shared, links);
  const sparks = useSparklines(links, key);
  const { selected, select, clear } = useSelection();
  const [qrFor, setQrFor] = useState<Link | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  // The builder over the list (its button, `c`): the new link joins the list where it stands.
  const builder = useLinkBuilder((link) => {
    list.update((prev) => [link, ...prev.filter((l) => l.id !== link.id)]);
    setTotal((t) => (t ? { ...t, total: t.total + 1 } : t));
  });
  const keys = useListKeys({
    ids: (links ?? []).map((l) => l.id),
    focusSearch: () => document.getElementById("links-search")?.focus(),
    openBuilder: builder.open,
    openLink: (id) => navigate(`/app/links/${encodeURIComponent(id)}`),
  });

  // A new view starts with nothing selected.
  useEffect(clear, [key, clear]);

  const del = useConfirmedDelete(async (link: Link) => {
    await linksApi.deleteLink(link.id);
    list.update((prev) => prev.filter((l) => l.id !== link.id));
    setTotal((t) => (t ? { ...t, total: Math.max(0, t.total - 1) } : t));
    setNotice(`Deleted ${link.short_url}.`);
  });

  const chosen = (links ?? []).filter((l) => selected.has(l.id));
  // The rows' callbacks are the same functions on every render, so a row redraws only when its own props change.
  const selectRow = useCallback((id: string, on: boolean) => select([id], on), [select]);
  const askDelete = useRef(del.ask);
  askDelete.current = del.ask;
  const deleteRow = useCallback((link: Link) => askDelete.current(link), []);
  const filtered = filterCount(filters) > 0 || filters.q !== "";

  return (
    <div className="links-page">
      <PageHead shared={shared} team={team} access={access} openBuilder={builder.open} />

      {welcome && user && !user.email_verified ? (
        <Alert kind="info" testId="welcome-notice">
          Welcome to snip! We sent a verification link to <strong>{user.email}</strong>. Please confirm your address.
        </Alert>
      ) : null}
      {notice ? (
        <Alert kind="success" testId="links-notice">
          {notice}
        </Alert>
      ) : null}

      <FolderHead
        folder={filters.folder}
        folders={folders}
        canManage={!shared}
        canAccess={!shared && !!user && can(user.plan, "team_roles")}
        shareOwner={shared ? (access.can("links.edit") ? (owner ?? null) : undefined) : user && can(user.plan, "shares") ? null : undefined}
        onLeave={() => set({ folder: "" })}
        onChanged={setNotice}
      />
      <FilterBar filters={filters} set={set} tags={tags} domains={domains} />

      {list.error ? (
        <Alert testId="links-error">
          {shared ? "Could not load this team's links (your access may have ended): " : "Could not load your links: "}
          {list.error}{" "}
          <button type="button" className="btn-link" onClick={list.reload}>
            Try again
          </button>
        </Alert>
      ) : null}

      {chosen.length > 0 ? (
        <BulkBar
          selected={chosen}
          tags={tags}
          folders={folders}
          canEdit={access.can("links.edit")}
          canDelete={access.can("links.delete")}
          onClear={() => clear()}
          onDone={(message) => {
            setNotice(message);
            clear();
            reloadTags();
            reloadFolders();
            list.reload();
          }}
        />
      ) : null}

      {links === null ? (
        list.error ? null : (
          <Spinner label="Loading your links…" />
        )
      ) : links.length === 0 ? (
        <EmptyList filtered={filtered} shared={shared} onClear={() => set(CLEARED)} />
      ) : (
        <>
          <div className="links-list-head">
            <label className="checkbox select-all">
              <input
                type="checkbox"
                checked={chosen.length === links.length}
                ref={(el) => {
                  if (el) el.indeterminate = chosen.length > 0 && chosen.length < links.length;
                }}
                onChange={(e) =>
                  select(
                    links.map((l) => l.id),
                    e.target.checked,
                  )
                }
                data-testid="links-select-all"
              />
              Select all {formatNumber(links.length)} on this page
            </label>
            <p className="links-total" aria-live="polite" data-testid="links-total">
              {total?.key === key ? plural(total.total) : "\u00a0"}
            </p>
            <ExportButtons compact owner={owner} />
          </div>
          <ul className="link-list" data-testid="link-list">
            {links.map((l) => (
              <LinkItem
                key={l.id}
                link={l}
                canEdit={access.can("links.edit")}
                canDelete={access.can("links.delete")}
                selfId={user?.id}
                selected={selected.has(l.id)}
                onSelect={selectRow}
                sparkline={sparks[l.id]}
                onQr={setQrFor}
                onDelete={deleteRow}
                current={keys.current === l.id}
                rowRef={keys.rowRef(l.id)}
              />
            ))}
          </ul>
          <LoadMore next={list.next} busy={list.loadingMore} onClick={() => void list.loadMore()} testId="load-more" />
        </>
      )}

      <ConfirmDialog {...del.dialog} title="Delete this link?" confirmLabel="Delete link" danger>
        <p>
          <strong>{del.item?.short_url}</strong> will stop working immediately (visitors get “not found”). Its statistics are deleted too. This cannot be
          undone.
        </p>
      </ConfirmDialog>

      <QrDialog link={qrFor} onClose={() => setQrFor(null)} />
      {builder.dialog}
    </div>
  );
}

function PageHead({ shared, team, access, openBuilder }: { shared: boolean; team: Membership | null; access: RoleCan; openBuilder: () => void }) {
  return (
    <div className="page-head">
      {shared ? (
        <div>
          <p className="breadcrumb">
            <A to="/app/team">← Team</A>
          </p>
          <h1 data-testid="shared-title">{team ? `Links of ${team.owner_name || team.owner_email}` : "Shared with me"}</h1>
          <p className="muted" data-testid="shared-role-note">
            {team ? `Your role here: ${ROLE_LABELS[team.role]}. ` : null}
            {access.can("links.delete")
              ? "You can create, edit and delete these links and see their statistics; they stay their owner's."
              : access.can("links.edit")
                ? "You can create and edit these links and see their statistics; they stay their owner's, who alone can delete them."
                : "You can see these links and their statistics; changing them is for the team's members and admins."}
          </p>
        </div>
      ) : (
        <h1>Your links</h1>
      )}
      {/* A team's links: "New link" creates in the owner's account for a role with links.create (docs/roles.md). */}
      <div className={shared && !access.can("links.create") ? "visually-hidden" : "row gap"}>
        {shared ? null : (
          <>
            <A to="/app/links/bulk" className="btn btn-secondary" testId="links-bulk-create">
              Bulk create
              <NavMark to="/app/links/bulk" testId="links-bulk-create-plan-mark" />
            </A>
            {/* Here rather than in the header: the header has no room left at 1280 px for free and Pro accounts. */}
            <A to="/app/links/import" className="btn btn-secondary" testId="links-import">
              Import
            </A>
          </>
        )}
        {/* Opens the builder over the list; a new tab (Ctrl/Cmd-click) gets the full page. */}
        <a
          href="/app/links/new"
          className="btn btn-primary"
          data-testid="new-link-button"
          aria-keyshortcuts="c"
          title="New link (c)"
          onClick={(e) => {
            if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
            e.preventDefault();
            openBuilder();
          }}
        >
          + New link
        </a>
      </div>
    </div>
  );
}

function EmptyList({ filtered, shared, onClear }: { filtered: boolean; shared: boolean; onClear: () => void }) {
  if (filtered) {
    return (
      <EmptyState title="No links match these filters" testId="links-empty">
        <p className="muted">Try other filters or another search.</p>
        <button type="button" className="btn btn-secondary" onClick={onClear} data-testid="links-empty-clear">
          Clear filters
        </button>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No links yet" testId="links-empty">
      {shared ? (
        <p className="muted">This team has no links yet.</p>
      ) : (
        <>
          <p className="muted">Create your first short link: it will show up here with its click count. Links elsewhere? Bring them along.</p>
          <span className="row gap empty-actions">
            <A to="/app/links/new" className="btn btn-primary">
              Create a link
            </A>
            <A to="/app/links/import" className="btn btn-secondary" testId="links-empty-import">
              Import links
            </A>
          </span>
        </>
      )}
    </EmptyState>
  );
}

/** The membership whose links a member looks at (its owner's name for the heading). */
function useTeam(owner: string | undefined): Membership | null {
  const [team, setTeam] = useState<Membership | null>(null);
  useEffect(() => {
    if (!owner) return;
    accountApi
      .team()
      .then((t) => setTeam(t.memberships.find((m) => m.owner_id === owner) ?? null))
      .catch(() => undefined);
  }, [owner]);
  return team;
}

/** The owner's tags, for the filter and the bulk actions; read again after an action may have created one. */
function useOwnerTags(owner: string | undefined): [TagListItem[] | null, () => void] {
  const [tags, setTags] = useState<TagListItem[] | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    linkApi
      .tags(owner)
      .then((t) => live && setTags(t))
      .catch(() => live && setTags((prev) => prev ?? []));
    return () => {
      live = false;
    };
  }, [owner, version]);
  return [tags, () => setVersion((v) => v + 1)];
}

/** Hostnames to filter by: the main host, the owner's custom domains (a member: those the links show). */
function useDomains(shared: boolean, links: Link[] | null): string[] {
  const [own, setOwn] = useState<string[]>([]);
  useEffect(() => {
    if (shared) return;
    linkApi
      .domains()
      .then((list) => setOwn(list.map((d) => d.hostname)))
      .catch(() => undefined);
  }, [shared]);
  const seen = (links ?? []).flatMap((l) => (l.domain ? [l.domain] : []));
  const main = window.location.hostname;
  return useMemo(() => [main, ...[...new Set([...own, ...seen])].sort()], [main, own, seen.join(" ")]);
}

/** The 7-day sparklines of the links shown, read for each new link once per view (a hundred per request). */
function useSparklines(links: Link[] | null, key: string): Record<string, number[]> {
  const [sparks, setSparks] = useState<{ key: string; values: Record<string, number[]> }>({ key, values: {} });
  const current = sparks.key === key ? sparks.values : {};
  useEffect(() => {
    const missing = (links ?? []).map((l) => l.id).filter((id) => !(id in current));
    if (missing.length === 0) return;
    let live = true;
    linksApi
      .sparklines(missing)
      .then((values) => {
        // Fifty small charts at once: drawn in a transition, in slices (as the rows are: shared/lists.tsx).
        if (live) startTransition(() => setSparks((prev) => ({ key, values: { ...(prev.key === key ? prev.values : {}), ...values } })));
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [links, key]);
  return current;
}
