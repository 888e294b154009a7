// Listens for the palette's key (Cmd-K, Ctrl-K) and the "Search or jump to…" buttons on every signed-in page, and
// loads the palette itself the first time it opens.
import { Suspense, lazy, useEffect, useState } from "react";
import { isPaletteKey, onOpenPalette } from "./open";

const Palette = lazy(() => import("./Palette"));

export function PaletteHost() {
  const [open, setOpen] = useState(false);
  const [from, setFrom] = useState<HTMLElement | null>(null);
  useEffect(() => {
    const show = () => {
      setFrom(document.activeElement instanceof HTMLElement ? document.activeElement : null);
      setOpen(true);
    };
    const onKey = (e: KeyboardEvent) => {
      if (!isPaletteKey(e)) return;
      e.preventDefault();
      // Pressed again while open: closes it, as in most palettes.
      if (document.querySelector("[data-testid=palette]")) setOpen(false);
      else show();
    };
    window.addEventListener("keydown", onKey);
    // Loaded ahead once the page is idle, so what is typed right after Ctrl-K is not lost.
    const preload = window.setTimeout(() => void import("./Palette").catch(() => undefined), 3000);
    const stop = onOpenPalette(show);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.clearTimeout(preload);
      stop();
    };
  }, []);
  // Closed: the focus returns to where it was (once the dialog is gone, and when that is still on the page).
  useEffect(() => {
    if (!open && from?.isConnected) from.focus();
  }, [open, from]);
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      <Palette onClose={() => setOpen(false)} />
    </Suspense>
  );
}
