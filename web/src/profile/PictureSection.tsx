// Profile picture: upload (PNG, JPEG or WebP, 2 MiB at most), preview, removal.
import { profileApi } from "./profile-api";
import { useRef, useState } from "react";
import { MAX_PICTURE_BYTES } from "@contract/tables";
import type { User } from "@contract/accounts";
import { Alert } from "../shared/ui";
import { useSubmit } from "../shared/submit";

const PICTURE_TYPES = ["image/png", "image/jpeg", "image/webp"];

function initials(user: User): string {
  const src = (user.name || user.email).trim();
  const parts = src.split(/[\s@._-]+/).filter(Boolean);
  const s = parts.length >= 2 ? `${parts[0]![0]}${parts[1]![0]}` : src.slice(0, 2);
  return s.toUpperCase();
}

/** Adds a cache-busting `v` after an upload unless the server already versions the address. */
function withVersion(url: string, version: number): string {
  if (!version) return url;
  try {
    const u = new URL(url, window.location.origin);
    if (u.searchParams.has("v")) return url;
    u.searchParams.set("v", String(version));
    return u.origin === window.location.origin ? u.pathname + u.search : u.toString();
  } catch {
    return url;
  }
}

export function PictureSection({ user, onUser }: { user: User; onUser: (u: User) => void }) {
  const [done, setDone] = useState(false);
  const [version, setVersion] = useState(0);
  const [broken, setBroken] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const { busy, error, setError, run } = useSubmit(async (file: File) => {
    try {
      onUser((await profileApi.uploadPicture(file)).user);
      setVersion(Date.now());
      setBroken(false);
      setDone(true);
    } finally {
      if (input.current) input.current.value = "";
    }
  });

  async function upload(file: File) {
    setError(null);
    setDone(false);
    if (!PICTURE_TYPES.includes(file.type)) {
      setError("Choose a PNG, JPEG or WebP image.");
      return;
    }
    if (file.size > MAX_PICTURE_BYTES) {
      setError("The picture is larger than 2 MiB. Choose a smaller one.");
      return;
    }
    await run(file);
  }

  const src = user.picture_url && !broken ? withVersion(user.picture_url, version) : null;
  return (
    <section className="card section" data-testid="section-picture" aria-labelledby="h-picture">
      <h2 id="h-picture">Picture</h2>
      <div className="picture-row">
        {src ? (
          <img className="avatar" src={src} alt="Your profile picture" width={72} height={72} onError={() => setBroken(true)} data-testid="avatar-image" />
        ) : (
          <div className="avatar avatar-initials" aria-label="No picture yet" data-testid="avatar-initials">
            {initials(user)}
          </div>
        )}
        <div>
          <input
            ref={input}
            id="picture-file"
            data-testid="picture-file"
            className="visually-hidden"
            type="file"
            accept="image/png,image/jpeg,image/webp"
            disabled={busy}
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void upload(f);
            }}
          />
          <label htmlFor="picture-file" className="btn btn-secondary" aria-disabled={busy}>
            {busy ? "Uploading…" : user.picture_url ? "Change picture" : "Upload picture"}
          </label>
          <p className="field-hint">PNG, JPEG or WebP, up to 2 MiB.</p>
        </div>
      </div>
      {error ? <Alert testId="picture-error">{error}</Alert> : null}
      {done ? (
        <Alert kind="success" testId="picture-done">
          Picture updated.
        </Alert>
      ) : null}
    </section>
  );
}
