// The link list's keyboard: "/" focuses the search box, "c" opens the link builder, the arrow keys (and j, k) move
// the current row, Enter opens the current row's link page. Keys typed in a field, with a modifier held, or while a
// dialog or menu is open are left alone.
import { useCallback, useEffect, useRef, useState } from "react";

export interface ListKeys {
  /** The ids of the rows shown, top to bottom. */
  ids: readonly string[];
  focusSearch: () => void;
  openBuilder: () => void;
  openLink: (id: string) => void;
}

/** True when a key pressed in `target` belongs to what the user is typing in or to an open menu or dialog. */
export function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target.closest("input, textarea, select, [role=menu], [role=listbox]")) return true;
  return document.querySelector("dialog[open]") !== null;
}

/** The current row's id and a ref setter for each row element (the current row takes the focus when it moves). */
export function useListKeys({ ids, focusSearch, openBuilder, openLink }: ListKeys) {
  const [current, setCurrent] = useState<string | null>(null);
  const rows = useRef(new Map<string, HTMLLIElement>());
  const state = useRef({ ids, current, focusSearch, openBuilder, openLink });
  state.current = { ids, current, focusSearch, openBuilder, openLink };

  const move = useCallback((by: number) => {
    const { ids: list, current: now } = state.current;
    if (list.length === 0) return;
    const at = now === null ? -1 : list.indexOf(now);
    const next = at === -1 ? (by > 0 ? 0 : list.length - 1) : Math.min(list.length - 1, Math.max(0, at + by));
    const id = list[next]!;
    setCurrent(id);
    const el = rows.current.get(id);
    el?.focus({ preventScroll: true });
    el?.scrollIntoView({ block: "nearest" });
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      const s = state.current;
      const onRowOrPage = e.target === document.body || (e.target instanceof HTMLElement && e.target.matches("[data-testid=link-row]"));
      if (e.key === "/") s.focusSearch();
      else if (e.key === "c") s.openBuilder();
      else if (e.key === "ArrowDown" || e.key === "j") move(1);
      else if (e.key === "ArrowUp" || e.key === "k") move(-1);
      else if (e.key === "Enter" && onRowOrPage && s.current !== null && s.ids.includes(s.current)) s.openLink(s.current);
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [move]);

  // One ref setter per row, kept: a new function on each render would detach and attach every row's ref.
  const setters = useRef(new Map<string, (el: HTMLLIElement | null) => void>());
  const rowRef = useCallback((id: string) => {
    let set = setters.current.get(id);
    if (!set) {
      set = (el: HTMLLIElement | null) => {
        if (el) rows.current.set(id, el);
        else {
          rows.current.delete(id);
          setters.current.delete(id);
        }
      };
      setters.current.set(id, set);
    }
    return set;
  }, []);
  return { current, rowRef };
}
