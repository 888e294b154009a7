// The discoverable way to the command palette: "Search or jump to…" with its shortcut, in the sidebar and the
// phone's top bar.
import { openPalette, shortcutLabel } from "./open";
import "./button.css";

export function PaletteButton({ testId = "palette-open", compact = false }: { testId?: string; compact?: boolean }) {
  const key = shortcutLabel();
  return (
    <button
      type="button"
      className={`palette-button${compact ? " palette-button-compact" : ""}`}
      data-testid={testId}
      aria-keyshortcuts="Control+K Meta+K"
      aria-label={`Search or jump to… (${key})`}
      title={`Search or jump to… (${key})`}
      onClick={openPalette}
    >
      <svg viewBox="0 0 24 24" width="16" height="16" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" aria-hidden="true">
        <circle cx="11" cy="11" r="7" />
        <path d="m20 20-3.5-3.5" />
      </svg>
      <span className="palette-button-text">Search or jump to…</span>
      <kbd className="palette-kbd">{key}</kbd>
    </button>
  );
}
