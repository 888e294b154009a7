// A link's own page (/app/links/{id}): everything it does, its QR code and the ways on. The form comes here
// after a creation (?created=1), so a reload keeps the new link in view.
import { useEffect, useState } from "react";
import { useNavigate, useParams, useSearchParams } from "react-router";
import type { Link } from "@contract/links";
import { linkApi } from "../../shared/link-api";
import { CreatedLinkView } from "../../shared/created-link/CreatedLinkView";
import { A, Alert, Spinner, errorMessage, useTitle } from "../../shared/ui";

export function LinkPage() {
  const { id = "" } = useParams();
  const [params] = useSearchParams();
  const created = params.get("created") === "1";
  const navigate = useNavigate();
  const [link, setLink] = useState<Link | null>(null);
  const [error, setError] = useState<string | null>(null);
  useTitle(created ? "Link created" : (link?.title ?? link?.alias ?? "Link"));

  useEffect(() => {
    let live = true;
    setLink(null);
    setError(null);
    linkApi.get(id).then(
      (l) => live && setLink(l),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [id]);

  if (error)
    return (
      <div className="narrow">
        <Alert testId="link-page-error">Could not load this link: {error}</Alert>
        <A to="/app" className="btn btn-secondary">
          Back to your links
        </A>
      </div>
    );
  if (!link) return <Spinner label="Loading the link…" />;
  return <CreatedLinkView link={link} created={created} onAnother={() => navigate("/app/links/new")} />;
}
