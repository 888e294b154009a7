// The link builder as a page: create at /app/links/new (with ?from=<id>, a copy of that link's settings but its
// alias: "Duplicate" on the edit page; with ?alias= and ?domain=, a missing alias to create), and edit at
// /app/links/:id/edit. The builder itself is Builder.tsx, also opened as a dialog over the list.
import { useNavigate, useParams, useSearchParams } from "react-router";
import type { Link } from "@contract/links";
import { useSession } from "../../shared/session";
import { A, useTitle } from "../../shared/ui";
import { LinkBuilder } from "./Builder";
import { EMPTY } from "./values";

/** The create page with a copy of link `id`'s settings (the list's "Duplicate" links here too). */
export function duplicatePath(id: string): string {
  return `/app/links/new?${new URLSearchParams({ from: id })}`;
}

function PageHead({
  mode,
  original,
  copiedFrom,
  userId,
}: {
  mode: "create" | "edit";
  original: Link | null;
  copiedFrom: Link | null;
  userId: string | undefined;
}) {
  if (copiedFrom)
    return (
      <>
        <h1>Duplicate link</h1>
        <p className="muted" data-testid="duplicate-note">
          A copy of{" "}
          <a href={copiedFrom.short_url} target="_blank" rel="noopener noreferrer">
            {copiedFrom.short_url}
          </a>{" "}
          with all its settings but the alias: choose one, or leave it empty for a random one.
        </p>
      </>
    );
  if (!original) return <h1>{mode === "create" ? "New link" : "Edit link"}</h1>;
  return (
    <>
      <div className="lf-head">
        <h1>Edit link</h1>
        <A to={duplicatePath(original.id)} className="btn btn-secondary btn-sm" testId="link-duplicate">
          Duplicate
        </A>
      </div>
      <p className="muted lf-head-meta">
        <a href={original.short_url} target="_blank" rel="noopener noreferrer">
          {original.short_url}
        </a>{" "}
        · {original.click_count} {original.click_count === 1 ? "click" : "clicks"}
        {original.archived ? <span className="badge lf-archived">Archived</span> : null}
        {original.updated_by && original.updated_by_email ? (
          <span data-testid="link-form-updated-by"> · last edited by {original.updated_by === userId ? "you" : original.updated_by_email}</span>
        ) : null}
      </p>
    </>
  );
}

export function LinkFormPage({ mode }: { mode: "create" | "edit" }) {
  const { id } = useParams();
  const [params] = useSearchParams();
  const fromId = mode === "create" ? params.get("from") : null;
  useTitle(mode === "edit" ? "Edit link" : fromId ? "Duplicate link" : "New link");
  const { user } = useSession();
  const navigate = useNavigate();
  // "Create this alias" (orphan visits): the create page with the missing alias and its domain filled in.
  const askedAlias = mode === "create" && !fromId ? params.get("alias") : null;
  const initial = askedAlias ? { ...EMPTY, alias: askedAlias, domain: params.get("domain") ?? "" } : EMPTY;
  // A team owner's link goes back to that owner's list.
  const backOf = (original: Link | null) =>
    original?.owner_id && user && original.owner_id !== user.id ? `/app/shared/${encodeURIComponent(original.owner_id)}` : "/app";
  return (
    <div className="narrow lf-page">
      <LinkBuilder
        mode={mode}
        sourceId={mode === "edit" ? (id ?? null) : fromId}
        initial={initial}
        // The new link's own page: a reload keeps it in view.
        onCreated={(link) => navigate(`/app/links/${encodeURIComponent(link.id)}?created=1`)}
        onCancel={(original) => navigate(backOf(original))}
        head={({ original, copiedFrom }) => (
          <>
            <p className="breadcrumb">
              <A to={backOf(original)}>{backOf(original) === "/app" ? "← Your links" : "← Shared links"}</A>
            </p>
            <PageHead mode={mode} original={original} copiedFrom={copiedFrom} userId={user?.id} />
          </>
        )}
      />
    </div>
  );
}
