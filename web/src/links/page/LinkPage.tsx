// A link's own page (/app/links/{id}): its numbers first, then its actions, then what it does (its settings, and
// its rules, device destinations and split as tables) beside its QR code. The form comes here after a creation
// (?created=1), so a reload keeps the new link in view. Loading, not found and a failed read each have a state.
import { useEffect, useState } from "react";
import { useParams, useSearchParams } from "react-router";
import type { Link } from "@contract/links";
import { ApiError } from "../../shared/api";
import { linkApi } from "../../shared/link-api";
import { A, Alert, Spinner, errorMessage, useTitle } from "../../shared/ui";
import { LinkView } from "./LinkView";
import "./link-page.css";

type Load = { kind: "loading" } | { kind: "ok"; link: Link } | { kind: "missing" } | { kind: "error"; message: string };

function useLink(id: string, attempt: number): [Load, (l: Link) => void] {
  const [load, setLoad] = useState<Load>({ kind: "loading" });
  useEffect(() => {
    let live = true;
    setLoad({ kind: "loading" });
    linkApi.get(id).then(
      (link) => live && setLoad({ kind: "ok", link }),
      (e: unknown) => live && setLoad(e instanceof ApiError && e.httpStatus === 404 ? { kind: "missing" } : { kind: "error", message: errorMessage(e) }),
    );
    return () => {
      live = false;
    };
  }, [id, attempt]);
  return [load, (link) => setLoad({ kind: "ok", link })];
}

/** No such link, or not one of the caller's (the server answers 404 for both). */
function LinkNotFound() {
  return (
    <section className="narrow center-page" data-testid="link-not-found">
      <p className="big-code">404</p>
      <h1>Link not found</h1>
      <p className="muted">This link does not exist, was deleted, or belongs to an account you cannot see.</p>
      <A to="/app" className="btn btn-primary">
        Back to your links
      </A>
    </section>
  );
}

export function LinkPage() {
  const { id = "" } = useParams();
  const [params] = useSearchParams();
  const created = params.get("created") === "1";
  const [attempt, setAttempt] = useState(0);
  const [load, setLink] = useLink(id, attempt);
  const link = load.kind === "ok" ? load.link : null;
  useTitle(load.kind === "missing" ? "Link not found" : created ? "Link created" : (link?.title ?? link?.alias ?? "Link"));

  if (load.kind === "missing") return <LinkNotFound />;
  if (load.kind === "error")
    return (
      <div className="narrow">
        <Alert testId="link-page-error">Could not load this link: {load.message}</Alert>
        <div className="row gap">
          <button type="button" className="btn btn-primary" onClick={() => setAttempt((n) => n + 1)} data-testid="link-page-retry">
            Try again
          </button>
          <A to="/app" className="btn btn-secondary">
            Back to your links
          </A>
        </div>
      </div>
    );
  if (!link) return <Spinner label="Loading the link…" />;
  return <LinkView link={link} created={created} onChange={setLink} />;
}
