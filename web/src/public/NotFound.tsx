// Shown for client routes the dashboard does not know.
import { useSession } from "../shared/session";
import { A, useTitle } from "../shared/ui";

export function NotFoundPage() {
  useTitle("Page not found");
  const { user } = useSession();
  return (
    <section className="narrow center-page" data-testid="not-found">
      <p className="big-code">404</p>
      <h1>Page not found</h1>
      <p className="muted">This page does not exist. Check the address, or go back to a page you know.</p>
      <A to={user ? "/app" : "/"} className="btn btn-primary">
        {user ? "Go to the dashboard" : "Go to the home page"}
      </A>
    </section>
  );
}
