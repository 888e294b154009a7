// The link form's social preview: the card link-preview crawlers (Slack, X, LinkedIn…) get for the short
// link, its three fields, and a live picture of the card as those apps draw it (plan-gated).
import { useState } from "react";
import { Field } from "../../shared/ui";
import type { OptionProps } from "./Options";

/** An image address worth asking the browser for: https, with a host and a path (not half typed). */
function showableImage(raw: string): string | null {
  const v = raw.trim();
  return /^https:\/\/[^/?#\s]+\.[^/?#\s]+\/\S+$/i.test(v) ? v : null;
}

/** The card as Slack and X draw it: image on top, then title, description and the short link's host. */
export function PreviewCard(props: { title: string; description: string; image: string; shortUrl: string; host: string }) {
  const image = showableImage(props.image);
  const [failed, setFailed] = useState<string | null>(null);
  return (
    <figure className="lf-card" data-testid="preview-card">
      {image && failed !== image ? (
        <img className="lf-card-image" src={image} alt="" referrerPolicy="no-referrer" onError={() => setFailed(image)} data-testid="preview-card-image" />
      ) : (
        <div className="lf-card-image lf-card-noimage" data-testid="preview-card-noimage">
          {image ? "The image could not be loaded" : "No image"}
        </div>
      )}
      <figcaption className="lf-card-body">
        {/* The crawler page's title falls back to the short URL, as the apps then show it. */}
        <p className="lf-card-title" data-testid="preview-card-title">
          {props.title.trim() || props.shortUrl}
        </p>
        {props.description.trim() ? (
          <p className="lf-card-description" data-testid="preview-card-description">
            {props.description.trim()}
          </p>
        ) : null}
        <p className="lf-card-host" data-testid="preview-card-host">
          {props.host}
        </p>
      </figcaption>
    </figure>
  );
}

export function PreviewOptions({ values, errors, set, allowed, host, shortUrl }: OptionProps & { allowed: boolean; host: string; shortUrl: string }) {
  const given = [values.preview_title, values.preview_description, values.preview_image].some((v) => v.trim() !== "");
  return (
    <div className="lf-preview" data-testid="preview-options">
      <div className="lf-preview-grid">
        <div className="lf-preview-fields">
          <Field id="link-preview-title" label="Preview title" error={errors["preview.title"]}>
            <input
              id="link-preview-title"
              data-testid="link-preview-title"
              type="text"
              disabled={!allowed}
              value={values.preview_title}
              onChange={(e) => set("preview_title", e.target.value)}
            />
          </Field>
          <Field id="link-preview-description" label="Preview description" className="lf-note" error={errors["preview.description"]}>
            <textarea
              id="link-preview-description"
              data-testid="link-preview-description"
              rows={3}
              disabled={!allowed}
              value={values.preview_description}
              onChange={(e) => set("preview_description", e.target.value)}
            />
          </Field>
          <Field
            id="link-preview-image"
            label="Preview image URL"
            error={errors["preview.image"]}
            hint="An https:// address of an image, about 1200 × 630 pixels."
          >
            <input
              id="link-preview-image"
              data-testid="link-preview-image"
              type="url"
              inputMode="url"
              placeholder="https://example.com/card.png"
              disabled={!allowed}
              value={values.preview_image}
              onChange={(e) => set("preview_image", e.target.value)}
            />
          </Field>
        </div>
        <div className="lf-preview-side">
          {given ? (
            <PreviewCard title={values.preview_title} description={values.preview_description} image={values.preview_image} shortUrl={shortUrl} host={host} />
          ) : (
            <div className="lf-card lf-card-empty" data-testid="preview-card-empty">
              Without a preview, apps show the card of the destination page.
            </div>
          )}
          <p className="field-hint">
            {given
              ? "How Slack and X show the short link when it is pasted."
              : allowed
                ? "Fill in a field to see the card Slack and X will show."
                : "Available on Pro"}
          </p>
        </div>
      </div>
    </div>
  );
}
