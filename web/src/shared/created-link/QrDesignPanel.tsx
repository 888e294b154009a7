// The "Design" panel under a QR code: colours (a picker and the hex value), quiet zone, error-correction
// level and the owner's picture as a logo; each problem is shown at its field.
import { parseQrColour, QR_ECLS, QR_LOGO_ECLS, QR_MARGIN_MAX, type QrEcl } from "../../../../src/contract/form-rules";
import type { ReactNode } from "react";
import { Field } from "../ui";
import type { QrDesignValues } from "./qr-design";

/** Short enough for half of a phone-wide panel; the share is what the level restores of a damaged code. */
const ECL_LABELS: Record<QrEcl, string> = { L: "L · 7%", M: "M · 15%", Q: "Q · 25%", H: "H · 30%" };

function ColourField(props: { id: string; label: string; value: string; error?: string; fallback: string; onChange: (v: string) => void }) {
  return (
    <Field id={props.id} label={props.label} error={props.error}>
      <div className="colour-input">
        <input
          type="color"
          aria-label={`${props.label} picker`}
          value={parseQrColour(props.value) ?? props.fallback}
          onChange={(e) => props.onChange(e.target.value)}
          data-testid={`${props.id}-picker`}
        />
        <input
          type="text"
          id={props.id}
          value={props.value}
          maxLength={7}
          spellCheck={false}
          autoComplete="off"
          aria-invalid={props.error ? true : undefined}
          aria-describedby={props.error ? `${props.id}-error` : undefined}
          onChange={(e) => props.onChange(e.target.value.trim())}
          data-testid={props.id}
        />
      </div>
    </Field>
  );
}

export interface QrDesignPanelProps {
  design: QrDesignValues;
  problems: Record<string, string>;
  onChange: (change: Partial<QrDesignValues>) => void;
  onReset: () => void;
  /** Whether the logo can be asked for (a signed-in owner or member of an owned link). */
  canLogo: boolean;
  /** A note under the logo box (e.g. no picture to draw). */
  logoNote?: ReactNode;
  /** Opened at first (the link page's QR dialog opens to design). */
  open?: boolean;
}

export function QrDesignPanel({ design, problems, onChange, onReset, canLogo, logoNote, open = false }: QrDesignPanelProps) {
  return (
    <details className="qr-design" data-testid="qr-design" open={open}>
      <summary data-testid="qr-design-toggle">Design</summary>
      <div className="qr-design-grid">
        <ColourField id="qr-fg" label="Foreground" value={design.fg} error={problems.fg} fallback="#000000" onChange={(fg) => onChange({ fg })} />
        <ColourField id="qr-bg" label="Background" value={design.bg} error={problems.bg} fallback="#ffffff" onChange={(bg) => onChange({ bg })} />
        <Field id="qr-margin" label="Margin" hint="In modules" error={problems.margin}>
          <input
            type="number"
            id="qr-margin"
            min={0}
            max={QR_MARGIN_MAX}
            step={1}
            inputMode="numeric"
            value={design.margin}
            onChange={(e) => onChange({ margin: e.target.value })}
            data-testid="qr-margin"
          />
        </Field>
        <Field id="qr-ecl" label="Error correction" hint="Share restored" error={problems.ecl}>
          <select id="qr-ecl" value={design.ecl} onChange={(e) => onChange({ ecl: e.target.value as QrEcl })} data-testid="qr-ecl">
            {QR_ECLS.map((l) => (
              <option key={l} value={l} disabled={design.logo && !QR_LOGO_ECLS.includes(l)}>
                {ECL_LABELS[l]}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {canLogo ? (
        <label className="checkbox qr-logo-choice">
          <input type="checkbox" checked={design.logo} onChange={(e) => onChange({ logo: e.target.checked })} data-testid="qr-logo" />
          Profile picture in the centre
        </label>
      ) : null}
      {logoNote ? (
        <p className="field-hint qr-logo-note" data-testid="qr-logo-note">
          {logoNote}
        </p>
      ) : null}
      <button type="button" className="btn btn-secondary btn-sm" onClick={onReset} data-testid="qr-design-reset">
        Reset design
      </button>
    </details>
  );
}
