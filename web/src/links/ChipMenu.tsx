// A filter chip that opens a small panel of choices under it; closes on Escape, a click elsewhere, or a choice.
import { useEffect, useId, useRef, useState, type ReactNode } from "react";

export function ChipMenu({
  label,
  active,
  testId,
  children,
}: {
  label: ReactNode;
  active: boolean;
  testId: string;
  children: (close: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const id = useId();

  useEffect(() => {
    if (!open) return;
    const close = (e: Event) => {
      if (e.type === "keydown" && (e as KeyboardEvent).key !== "Escape") return;
      if (e.type === "click" && box.current?.contains(e.target as Node)) return;
      setOpen(false);
      if (e.type === "keydown") button.current?.focus();
    };
    window.addEventListener("click", close);
    window.addEventListener("keydown", close);
    box.current?.querySelector<HTMLElement>(".chip-panel input, .chip-panel button")?.focus();
    return () => {
      window.removeEventListener("click", close);
      window.removeEventListener("keydown", close);
    };
  }, [open]);

  return (
    <div className="chip-menu" ref={box}>
      <button
        ref={button}
        type="button"
        className={`chip filter-chip${active ? " chip-active" : ""}`}
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        data-testid={testId}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="filter-chip-label">{label}</span>
        <span aria-hidden="true" className="filter-chip-caret">
          ▾
        </span>
      </button>
      {open ? (
        <div className="chip-panel" id={id} data-testid={`${testId}-panel`}>
          {children(() => setOpen(false))}
        </div>
      ) : null}
    </div>
  );
}

/** One choice of a panel: a radio button (one of several) or a checkbox (any of several). */
export function Choice({
  type,
  name,
  checked,
  onChange,
  children,
  testId,
  disabled = false,
}: {
  type: "radio" | "checkbox";
  name: string;
  checked: boolean;
  onChange: () => void;
  children: ReactNode;
  testId?: string;
  disabled?: boolean;
}) {
  return (
    <label className={disabled ? "chip-choice chip-choice-disabled" : "chip-choice"}>
      <input type={type} name={name} checked={checked} onChange={onChange} disabled={disabled} data-testid={testId} />
      {children}
    </label>
  );
}
