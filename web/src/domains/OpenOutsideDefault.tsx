// The account's default way out of in-app browsers (docs/deep-links.md): links whose `open_outside` is not set follow
// it. Every plan has it; a change is saved at once.
import { useEffect, useState } from "react";
import { Alert, errorMessage } from "../shared/ui";
import { domainsApi } from "./domains-api";

export function OpenOutsideDefault() {
  const [value, setValue] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    domainsApi.deepLinkSettings().then(
      (s) => setValue(s.open_outside),
      (e: unknown) => setError(errorMessage(e)),
    );
  }, []);

  /** Shown at once, put back when the server refuses. */
  async function change(next: boolean) {
    setValue(next);
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      setValue((await domainsApi.setDeepLinkSettings({ open_outside: next })).open_outside);
      setSaved(true);
    } catch (e) {
      setValue(!next);
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card section" data-testid="open-outside" aria-labelledby="h-open-outside">
      <h2 id="h-open-outside">In-app browsers</h2>
      <p className="muted small">
        Instagram, Facebook, Messenger, TikTok, LinkedIn, Snapchat and X open links in their own browser, where apps do not open and people are not signed in.
        With this on, their visitors get a way out: Android opens the app or the system browser, iPhones get a page with an Open in Safari button. A link can
        choose for itself in its builder.
      </p>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={value === true}
          disabled={value === null || busy}
          onChange={(e) => void change(e.target.checked)}
          data-testid="open-outside-default"
        />
        Offer a way out of in-app browsers for my links by default
      </label>
      {saved ? (
        <Alert kind="success" testId="open-outside-saved">
          Saved: {value ? "links offer a way out unless they say otherwise." : "links open in place unless they say otherwise."}
        </Alert>
      ) : null}
      {error ? (
        <Alert kind="error" testId="open-outside-error">
          {error}
        </Alert>
      ) : null}
    </section>
  );
}
