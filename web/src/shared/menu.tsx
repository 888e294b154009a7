// A row's "…" menu: the actions on one item (a link, an account) behind one button instead of a stack of buttons.
import { useEffect, useId, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type ReactNode } from "react";

export interface MenuItem {
  label: string;
  onSelect: () => void;
  testId: string;
  danger?: boolean;
  disabled?: boolean;
  /** Shown on hover: what the action does. */
  title?: string;
}

/**
 * Opens below its button (fixed, so a table's scroll box does not clip it) and follows it when the page or the
 * table scrolls; closes on a choice, Escape or a click elsewhere.
 */
// eslint-disable-next-line max-lines-per-function -- a menu button: its focus, keyboard and outside-click handling share one state.
export function RowMenu({
  label,
  items,
  testId = "row-menu",
  busy = false,
}: {
  label: string;
  items: (MenuItem | null | false)[];
  testId?: string;
  busy?: boolean;
}) {
  const [pos, setPos] = useState<{ top: number; right: number } | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const id = useId();
  const shown = items.filter((i): i is MenuItem => !!i);

  const open = pos !== null;
  useEffect(() => {
    if (!open) return;
    const close = (e: Event) => {
      if (e.type === "keydown" && (e as KeyboardEvent).key !== "Escape") return;
      if (e.type === "pointerdown" && (menu.current?.contains(e.target as Node) || button.current?.contains(e.target as Node))) return;
      setPos(null);
      if (e.type === "keydown") button.current?.focus();
    };
    const follow = () => setPos(place());
    window.addEventListener("pointerdown", close);
    window.addEventListener("keydown", close);
    window.addEventListener("resize", follow);
    window.addEventListener("scroll", follow, true);
    menu.current?.querySelector<HTMLButtonElement>("button:not(:disabled)")?.focus();
    return () => {
      window.removeEventListener("pointerdown", close);
      window.removeEventListener("keydown", close);
      window.removeEventListener("resize", follow);
      window.removeEventListener("scroll", follow, true);
    };
  }, [open]);

  /** Arrow keys move between the items, as in any menu. */
  function moveFocus(e: ReactKeyboardEvent) {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    e.preventDefault();
    const items = [...(menu.current?.querySelectorAll<HTMLButtonElement>("button:not(:disabled)") ?? [])];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    items[(at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length]?.focus();
  }

  /** Under the button, its right edge on the button's (kept inside the window). */
  function place() {
    const r = button.current?.getBoundingClientRect();
    return r ? { top: r.bottom + 4, right: Math.max(8, window.innerWidth - r.right) } : null;
  }

  return (
    <>
      <button
        ref={button}
        type="button"
        className="btn btn-secondary btn-sm row-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={pos ? id : undefined}
        aria-label={label}
        title={label}
        disabled={busy}
        data-testid={testId}
        onClick={() => setPos(open ? null : place())}
      >
        {busy ? "…" : <span aria-hidden="true">⋯</span>}
      </button>
      {pos ? (
        <div
          ref={menu}
          id={id}
          role="menu"
          className="row-menu"
          style={{ top: pos.top, right: pos.right }}
          data-testid={`${testId}-items`}
          onKeyDown={moveFocus}
        >
          {shown.map((item) => (
            <button
              key={item.testId}
              type="button"
              role="menuitem"
              className={item.danger ? "row-menu-item danger" : "row-menu-item"}
              disabled={item.disabled}
              title={item.title}
              data-testid={item.testId}
              onClick={() => {
                setPos(null);
                item.onSelect();
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      ) : null}
    </>
  );
}

/** A row's selection box for the bulk actions above a list. */
export function SelectBox({ checked, onChange, label, testId }: { checked: boolean; onChange: (checked: boolean) => void; label: ReactNode; testId: string }) {
  return (
    <label className="select-box">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />
      <span className="visually-hidden">{label}</span>
    </label>
  );
}
