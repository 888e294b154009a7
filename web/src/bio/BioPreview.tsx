// The editor's live preview: the page as visitors will see it (src/http/bio-page.ts draws the same parts), in a
// phone-sized frame. React escapes every piece of text; links are not followed from the preview.
import type { BioColors, BioTheme } from "@contract/bio-pages";
import { type BIO_BLOCK_TYPES, BIO_SOCIAL_LABELS } from "@contract/tables";
import type { CSSProperties } from "react";
import { BIO_MIN_CONTRAST, readableBioColours } from "@contract/form-rules";

export interface PreviewBlock {
  type: (typeof BIO_BLOCK_TYPES)[number];
  label?: string;
  text?: string;
  network?: keyof typeof BIO_SOCIAL_LABELS;
  url?: string;
}

const SCHEMES: Record<"light" | "dark", BioColors & { muted: string }> = {
  light: { background: "#f6f7fb", text: "#171a2b", button: "#4f46e5", button_text: "#ffffff", muted: "#5d6378" },
  dark: { background: "#0f1218", text: "#e7e9f1", button: "#5b55e8", button_text: "#ffffff", muted: "#a3a9ba" },
};

export function BioPreview(props: {
  title: string;
  description: string;
  picture: string;
  theme: BioTheme;
  colors: BioColors;
  blocks: PreviewBlock[];
  scheme: "light" | "dark";
}) {
  // The owner's colours as the page draws them: a text colour too faint on its ground is black or white there.
  const custom = readableBioColours(props.colors).colours;
  const base = props.theme === "custom" ? { ...custom, muted: custom.text } : SCHEMES[props.theme === "auto" ? props.scheme : props.theme];
  const style = {
    "--pv-bg": base.background,
    "--pv-text": base.text,
    "--pv-btn": base.button,
    "--pv-btn-text": base.button_text,
    "--pv-muted": base.muted,
  } as CSSProperties;
  const socials = props.blocks.filter((b) => b.type === "social");
  return (
    <div className="bio-phone" data-testid="bio-preview" style={style} aria-label="Preview of the page" role="region">
      <div className="bio-phone-screen">
        {props.picture ? <img className="bio-pv-pic" src={props.picture} alt="" width={80} height={80} /> : null}
        <h2 className="bio-pv-title" data-testid="bio-preview-title">
          {props.title || "Your title"}
        </h2>
        {props.description ? <p className="bio-pv-desc">{props.description}</p> : null}
        <ul className="bio-pv-blocks">
          {props.blocks.map((b, i) =>
            b.type === "link" ? (
              <li key={i}>
                <span className="bio-pv-btn">{b.label || "Button"}</span>
              </li>
            ) : b.type === "heading" ? (
              <li key={i}>
                <strong className="bio-pv-heading">{b.text}</strong>
              </li>
            ) : b.type === "text" ? (
              <li key={i}>
                <p className="bio-pv-text">{b.text}</p>
              </li>
            ) : null,
          )}
          {socials.length > 0 ? (
            <li className="bio-pv-social">
              {socials.map((b, i) => (
                <span key={i}>{BIO_SOCIAL_LABELS[b.network ?? "website"]}</span>
              ))}
            </li>
          ) : null}
        </ul>
      </div>
    </div>
  );
}

/** Under the colour fields: which text colour the page draws black or white instead, and why (nothing when none). */
export function BioContrastNote(props: { colors: BioColors }) {
  const { adjusted } = readableBioColours(props.colors);
  if (adjusted.length === 0) return null;
  return (
    <div className="bio-contrast-note" role="status" data-testid="bio-contrast-note">
      {adjusted.map((a) => (
        <p key={a.field}>
          {a.field === "text" ? "Text on the background" : "Button text on the button colour"}: contrast {(Math.floor(a.ratio * 10) / 10).toFixed(1)}:1, below
          the {BIO_MIN_CONTRAST}:1 people need to read it. Visitors see it in {a.shown === "#000000" ? "black" : "white"}.
        </p>
      ))}
    </div>
  );
}
