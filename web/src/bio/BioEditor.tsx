// The bio page editor (docs/bio-pages.md): title, description, picture, theme, blocks added, removed and moved with
// buttons, link blocks chosen from the account's links, beside a live preview in a phone-sized frame (below it on a phone).
import { useEffect, useState, type FormEvent } from "react";
import { useNavigate, useParams } from "react-router";
import type { BioColors, BioPage, BioTheme } from "@contract/bio-pages";
import { BIO_SOCIAL_LABELS, BIO_SOCIAL_NETWORKS, MAX_BIO_BLOCKS } from "@contract/tables";
import { A, Alert, Field, Spinner, errorMessage, useTitle } from "../shared/ui";
import { ListError } from "../shared/lists";
import { linkApi } from "../shared/link-api";
import { isDarkTheme } from "../shared/theme";
import { bioApi } from "./bio-api";
import { BioContrastNote, BioPreview, type PreviewBlock } from "./BioPreview";
import { count } from "./BioPages";
import "./bio.css";

type EditBlock = PreviewBlock & { link_id?: string };
interface LinkChoice {
  id: string;
  short_url: string;
  title: string | null;
}

const DEFAULT_COLORS: BioColors = { background: "#fef3c7", text: "#1f2937", button: "#b45309", button_text: "#ffffff" };

function toInput(b: EditBlock) {
  if (b.type === "link") return { type: "link" as const, link_id: b.link_id ?? "", label: b.label ?? "" };
  if (b.type === "social") return { type: "social" as const, network: b.network ?? "website", url: b.url ?? "" };
  return { type: b.type, text: b.text ?? "" };
}

// eslint-disable-next-line max-lines-per-function -- the editor's fields, blocks and preview share one state.
export function BioEditorPage() {
  const { id = "new" } = useParams();
  const isNew = id === "new";
  useTitle(isNew ? "New bio page" : "Edit bio page");
  const navigate = useNavigate();
  const [loading, setLoading] = useState(!isNew);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [slug, setSlug] = useState("");
  const [title, setTitle] = useState("");
  const [description, setDescription] = useState("");
  const [picture, setPicture] = useState("");
  const [theme, setTheme] = useState<BioTheme>("auto");
  const [colors, setColors] = useState<BioColors>(DEFAULT_COLORS);
  const [blocks, setBlocks] = useState<EditBlock[]>([]);
  const [links, setLinks] = useState<LinkChoice[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState<BioPage | null>(null);
  const [busy, setBusy] = useState(false);
  const [scheme, setScheme] = useState<"light" | "dark">(isDarkTheme() ? "dark" : "light");

  useEffect(() => {
    const mq = window.matchMedia("(prefers-color-scheme: dark)");
    const on = () => setScheme(isDarkTheme() ? "dark" : "light");
    mq.addEventListener("change", on);
    const obs = new MutationObserver(on);
    obs.observe(document.documentElement, { attributes: true });
    return () => {
      mq.removeEventListener("change", on);
      obs.disconnect();
    };
  }, []);

  useEffect(() => {
    void linkApi.search("").then(
      (r) => setLinks(r.links.map((l) => ({ id: l.id, short_url: l.short_url, title: (l as { title?: string | null }).title ?? null }))),
      () => setLinks([]),
    );
    if (isNew) return;
    bioApi.get(id).then(
      (p) => {
        setSaved(p);
        setSlug(p.slug);
        setTitle(p.title);
        setDescription(p.description ?? "");
        setPicture(p.picture_url ?? "");
        setTheme(p.theme);
        if (p.colors) setColors(p.colors);
        setBlocks(p.blocks.map((b) => (b.type === "link" ? { type: "link", link_id: b.link_id, label: b.label } : b.type === "social" ? { ...b } : { ...b })));
        setLoading(false);
      },
      (e) => {
        setLoadError(errorMessage(e));
        setLoading(false);
      },
    );
  }, [id, isNew]);

  const set = (i: number, patch: Partial<EditBlock>) => setBlocks((prev) => prev.map((b, k) => (k === i ? { ...b, ...patch } : b)));
  const move = (i: number, by: number) =>
    setBlocks((prev) => {
      const next = [...prev];
      const [b] = next.splice(i, 1);
      next.splice(i + by, 0, b!);
      return next;
    });
  const add = (type: EditBlock["type"]) =>
    setBlocks((prev) => [
      ...prev,
      type === "link" ? { type, link_id: links[0]?.id ?? "", label: "" } : type === "social" ? { type, network: "instagram", url: "" } : { type, text: "" },
    ]);

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setFieldErrors({});
    const body = {
      title,
      description: description || null,
      picture_url: picture || null,
      theme,
      colors: theme === "custom" ? colors : null,
      blocks: blocks.map(toInput),
    };
    try {
      const page = isNew ? await bioApi.create({ slug, ...body }) : await bioApi.update(id, { slug, ...body });
      setSaved(page);
      if (isNew) navigate(`/app/bio/${page.id}`, { replace: true });
    } catch (err) {
      const fields = (err as { fieldErrors?: () => Record<string, string> }).fieldErrors?.() ?? {};
      setFieldErrors(fields);
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  if (loading) return <Spinner label="Loading the page…" />;
  if (loadError) return <ListError what="this bio page" error={loadError} onRetry={() => window.location.reload()} testId="bio-load-error" />;

  return (
    <div className="bio-page">
      <div className="page-head">
        <div>
          <h1>{isNew ? "New bio page" : "Edit bio page"}</h1>
          <p className="muted">
            <A to="/app/bio">All bio pages</A>
            {saved ? (
              <>
                {" · "}
                <a href={saved.url} data-testid="bio-open">
                  {saved.url}
                </a>{" "}
                · {count(saved.views, "view")}
              </>
            ) : null}
          </p>
        </div>
      </div>
      <div className="bio-editor">
        <form className="card bio-form" onSubmit={save} noValidate data-testid="bio-form">
          {error ? <Alert testId="bio-save-error">{error}</Alert> : null}
          <Field id="bio-slug" label="Address" error={fieldErrors.slug} hint="The page's path: 3 to 64 letters, digits, '-' or '_'.">
            <input
              id="bio-slug"
              data-testid="bio-slug"
              type="text"
              value={slug}
              onChange={(e) => setSlug(e.target.value)}
              autoCapitalize="off"
              spellCheck={false}
            />
          </Field>
          <Field id="bio-title" label="Title" error={fieldErrors.title}>
            <input id="bio-title" data-testid="bio-title" type="text" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={100} />
          </Field>
          <Field id="bio-description" label="Description" error={fieldErrors.description}>
            <textarea id="bio-description" data-testid="bio-description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
          </Field>
          <Field id="bio-picture" label="Picture address" error={fieldErrors.picture_url} hint="An https:// image address; it shows round at the top.">
            <input id="bio-picture" data-testid="bio-picture" type="url" value={picture} onChange={(e) => setPicture(e.target.value)} />
          </Field>
          <Field id="bio-theme" label="Theme">
            <select id="bio-theme" data-testid="bio-theme" value={theme} onChange={(e) => setTheme(e.target.value as BioTheme)}>
              <option value="auto">The visitor's light or dark setting</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
              <option value="custom">My colours</option>
            </select>
          </Field>
          {theme === "custom" ? (
            <div className="bio-colors">
              {(["background", "text", "button", "button_text"] as const).map((k) => (
                <label key={k} className="bio-color">
                  <input type="color" value={colors[k]} onChange={(e) => setColors((c) => ({ ...c, [k]: e.target.value }))} data-testid={`bio-color-${k}`} />
                  {k === "button_text" ? "Button text" : k[0]!.toUpperCase() + k.slice(1)}
                </label>
              ))}
              <BioContrastNote colors={colors} />
            </div>
          ) : null}

          <h2 className="bio-blocks-head">Blocks</h2>
          {blocks.length === 0 ? <p className="muted">No blocks yet: add buttons to your links, headings, text and social profiles.</p> : null}
          <ol className="bio-blocks" data-testid="bio-blocks">
            {blocks.map((b, i) => (
              <li key={i} className="bio-block" data-testid="bio-block">
                <div className="bio-block-head">
                  <strong>{b.type === "link" ? "Button" : b.type === "social" ? "Social" : b.type === "heading" ? "Heading" : "Text"}</strong>
                  <span className="bio-block-tools">
                    <button
                      type="button"
                      className="btn btn-secondary btn-sm"
                      onClick={() => move(i, -1)}
                      disabled={i === 0}
                      aria-label={`Move block ${i + 1} up`}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      className="btn btn-secondary btn-sm"
                      onClick={() => move(i, 1)}
                      disabled={i === blocks.length - 1}
                      aria-label={`Move block ${i + 1} down`}
                    >
                      ↓
                    </button>
                    <button
                      type="button"
                      className="btn btn-danger-ghost btn-sm"
                      onClick={() => setBlocks((p) => p.filter((_, k) => k !== i))}
                      aria-label={`Remove block ${i + 1}`}
                    >
                      Remove
                    </button>
                  </span>
                </div>
                <BlockFields i={i} b={b} links={links} errors={fieldErrors} set={(patch) => set(i, patch)} />
              </li>
            ))}
          </ol>
          <div className="bio-add">
            <button
              type="button"
              className="btn btn-secondary"
              onClick={() => add("link")}
              disabled={links.length === 0 || blocks.length >= MAX_BIO_BLOCKS}
              data-testid="bio-add-link"
            >
              Add a button
            </button>
            <button
              type="button"
              className="btn btn-secondary"
              onClick={() => add("heading")}
              disabled={blocks.length >= MAX_BIO_BLOCKS}
              data-testid="bio-add-heading"
            >
              Add a heading
            </button>
            <button type="button" className="btn btn-secondary" onClick={() => add("text")} disabled={blocks.length >= MAX_BIO_BLOCKS}>
              Add text
            </button>
            <button type="button" className="btn btn-secondary" onClick={() => add("social")} disabled={blocks.length >= MAX_BIO_BLOCKS}>
              Add a social profile
            </button>
          </div>
          <div className="bio-save">
            <button type="submit" className="btn btn-primary" disabled={busy} data-testid="bio-save">
              {busy ? "Saving…" : isNew ? "Publish page" : "Save changes"}
            </button>
            {saved && !busy && !error ? (
              <span className="muted" data-testid="bio-saved">
                Saved.
              </span>
            ) : null}
          </div>
        </form>
        <div className="bio-preview-col">
          <BioPreview
            title={title}
            description={description}
            picture={picture}
            theme={theme}
            colors={colors}
            scheme={scheme}
            blocks={blocks.map((b) => (b.type === "link" ? { ...b, label: b.label } : b))}
          />
        </div>
      </div>
    </div>
  );
}

/** One block's fields, by its type. */
function BlockFields({
  i,
  b,
  links,
  errors,
  set,
}: {
  i: number;
  b: EditBlock;
  links: LinkChoice[];
  errors: Record<string, string>;
  set: (patch: Partial<EditBlock>) => void;
}) {
  const fieldErrors = errors;
  return (
    <>
      {b.type === "link" ? (
        <>
          <Field id={`bio-b${i}-link`} label="Link" error={fieldErrors[`blocks[${i}].link_id`]}>
            <select id={`bio-b${i}-link`} data-testid="bio-block-link" value={b.link_id} onChange={(e) => set({ link_id: e.target.value })}>
              {links.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.title ? `${l.title} (${l.short_url})` : l.short_url}
                </option>
              ))}
            </select>
          </Field>
          <Field id={`bio-b${i}-label`} label="Button text" error={fieldErrors[`blocks[${i}].label`]}>
            <input
              id={`bio-b${i}-label`}
              data-testid="bio-block-label"
              type="text"
              value={b.label}
              onChange={(e) => set({ label: e.target.value })}
              maxLength={100}
            />
          </Field>
        </>
      ) : b.type === "social" ? (
        <>
          <Field id={`bio-b${i}-network`} label="Network">
            <select id={`bio-b${i}-network`} value={b.network} onChange={(e) => set({ network: e.target.value as EditBlock["network"] })}>
              {BIO_SOCIAL_NETWORKS.map((n) => (
                <option key={n} value={n}>
                  {BIO_SOCIAL_LABELS[n]}
                </option>
              ))}
            </select>
          </Field>
          <Field id={`bio-b${i}-url`} label="Address" error={fieldErrors[`blocks[${i}].url`]}>
            <input id={`bio-b${i}-url`} type="url" value={b.url} onChange={(e) => set({ url: e.target.value })} />
          </Field>
        </>
      ) : (
        <Field id={`bio-b${i}-text`} label={b.type === "heading" ? "Heading" : "Text"} error={fieldErrors[`blocks[${i}].text`]}>
          {b.type === "heading" ? (
            <input id={`bio-b${i}-text`} type="text" value={b.text} onChange={(e) => set({ text: e.target.value })} maxLength={100} />
          ) : (
            <textarea id={`bio-b${i}-text`} value={b.text} onChange={(e) => set({ text: e.target.value })} maxLength={500} />
          )}
        </Field>
      )}
    </>
  );
}
