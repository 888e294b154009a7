// Home: shorten a link, signed in or not; shows the short address, a copy button and its QR code.
import { withScheme } from "../shared/with-scheme";
import { linkApi } from "../shared/link-api";
import { Suspense, lazy, useState } from "react";
import { fieldsOrMessage, useSubmit } from "../shared/submit";
import type { CreateLinkFields, Link } from "@contract/links";
import { useSession } from "../shared/session";
import { A, Alert, Field, Spinner, useTitle } from "../shared/ui";

// The created link's card and its QR code: loaded once a link is made, so the home page's first script stays small.
const CreatedLink = lazy(() => import("./HomeCreated"));

// eslint-disable-next-line max-lines-per-function -- the signed-out creation form and its result share the page's state.
export function HomePage() {
  useTitle("");
  const { user } = useSession();
  const [url, setUrl] = useState("");
  const [alias, setAlias] = useState("");
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<Link | null>(null);
  const {
    busy,
    error,
    onSubmit: submit,
  } = useSubmit(
    async () => {
      setFieldErrors({});
      // example.com/page is taken as https://example.com/page, as Bitly and Dub take it.
      const full = withScheme(url);
      setUrl(full);
      const body: CreateLinkFields = { url: full };
      if (alias.trim()) body.alias = alias.trim();
      const link = await linkApi.create(body, true);
      setCreated(link);
      setUrl("");
      setAlias("");
    },
    fieldsOrMessage(["url", "alias"], setFieldErrors),
  );

  return (
    <div className="home">
      <section className="hero">
        <h1>Short links, made simple.</h1>
        <p className="lead">Paste a long address, get a short one you can share, with a QR code to go.</p>
      </section>

      <section className="card shorten-card">
        <form onSubmit={submit} noValidate data-testid="shorten-form">
          <div className="shorten-row">
            <Field id="home-url" label="Long URL" error={fieldErrors.url} className="grow">
              <input
                id="home-url"
                data-testid="home-url"
                type="text"
                inputMode="url"
                autoComplete="url"
                spellCheck={false}
                placeholder="https://example.com/a/very/long/address"
                value={url}
                required
                aria-invalid={!!fieldErrors.url}
                onChange={(e) => setUrl(e.target.value)}
              />
            </Field>
            <Field id="home-alias" label="Alias (optional)" error={fieldErrors.alias} className="alias-field">
              <input
                id="home-alias"
                data-testid="home-alias"
                type="text"
                placeholder="my-link"
                value={alias}
                autoCapitalize="off"
                autoCorrect="off"
                spellCheck={false}
                aria-invalid={!!fieldErrors.alias}
                onChange={(e) => setAlias(e.target.value)}
              />
            </Field>
            <div className="shorten-submit">
              <button type="submit" className="btn btn-primary btn-lg" disabled={busy || !url.trim()} data-testid="home-submit">
                {busy ? "Shortening…" : "Shorten"}
              </button>
            </div>
          </div>
          {error ? <Alert>{error}</Alert> : null}
          {!user ? (
            <p className="notice" data-testid="anon-notice">
              <strong>Signed out:</strong> this link lasts five minutes. <A to="/app/signup">Sign up</A> to keep links, see statistics and manage them from your
              dashboard.
            </p>
          ) : (
            <p className="notice notice-quiet">
              Links you create here appear in your <A to="/app">dashboard</A>. More options (expiry, password, device destinations) are on the{" "}
              <A to="/app/links/new">New link</A> page.
            </p>
          )}
        </form>
      </section>

      {created ? (
        <Suspense fallback={<Spinner label="Loading your link…" />}>
          <CreatedLink link={created} anonymous={!user} />
        </Suspense>
      ) : null}
    </div>
  );
}
