// Opening the command palette from anywhere (the header's and the sidebar's "Search or jump to…" buttons), and the
// shortcut's name on this system: Cmd-K on macOS, Ctrl-K elsewhere.
const EVENT = "snip:palette";

export function openPalette(): void {
  window.dispatchEvent(new Event(EVENT));
}

export function onOpenPalette(listener: () => void): () => void {
  window.addEventListener(EVENT, listener);
  return () => window.removeEventListener(EVENT, listener);
}

export function isMac(): boolean {
  const data = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData;
  return /mac|iphone|ipad/i.test(data?.platform ?? navigator.platform ?? "");
}

/** "⌘K" on macOS, "Ctrl K" elsewhere. */
export function shortcutLabel(): string {
  return isMac() ? "⌘K" : "Ctrl K";
}

/** True for the palette's key: Cmd-K on macOS, Ctrl-K elsewhere (either works everywhere), without Shift or Alt. */
export function isPaletteKey(e: KeyboardEvent): boolean {
  return (e.metaKey || e.ctrlKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === "k";
}
