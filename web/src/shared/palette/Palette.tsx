// The command palette (Cmd-K, Ctrl-K): a dialog with one search box over every page and action; the arrow keys move
// through the results, Enter runs the chosen one, Escape closes and the focus returns to where it was. A combobox
// with a listbox (aria-activedescendant), as the ARIA practices describe.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useNavigate } from "react-router";
import { useSession } from "../session";
import { isDarkTheme, toggleTheme } from "../theme";
import { allCommands, matchCommands, type Command } from "./commands";
import "./palette.css";

export default function Palette({ onClose }: { onClose: () => void }) {
  const { user, beginSignOut } = useSession();
  const navigate = useNavigate();
  const dialog = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState("");
  const [active, setActive] = useState(0);
  const id = useId();
  const commands = useMemo(() => (user ? allCommands(user, isDarkTheme()) : []), [user]);
  const shown = useMemo(() => matchCommands(commands, text), [commands, text]);
  const at = Math.min(active, shown.length - 1);

  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);

  const run = (c: Command | undefined) => {
    if (!c) return;
    onClose();
    if (c.run.kind === "theme") toggleTheme();
    else if (c.run.kind === "sign-out") {
      beginSignOut();
      navigate("/app/logout");
    } else navigate(c.run.to);
  };

  const onKey = (e: KeyboardEvent) => {
    const n = shown.length;
    if (e.key === "ArrowDown") setActive((at + 1) % n);
    else if (e.key === "ArrowUp") setActive((at - 1 + n) % n);
    else if (e.key === "Home" && e.ctrlKey) setActive(0);
    else if (e.key === "End" && e.ctrlKey) setActive(n - 1);
    else if (e.key === "Enter") run(shown[at]);
    else return;
    e.preventDefault();
  };

  return (
    <dialog
      ref={dialog}
      className="palette"
      aria-label="Search or jump to"
      data-testid="palette"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => e.target === dialog.current && onClose()}
    >
      <div className="palette-box">
        <input
          className="palette-input"
          type="text"
          role="combobox"
          aria-expanded="true"
          aria-controls={`${id}-list`}
          aria-autocomplete="list"
          aria-activedescendant={shown.length ? `${id}-opt-${at}` : undefined}
          aria-label="Search pages and actions"
          placeholder="Search pages, actions or links…"
          autoComplete="off"
          spellCheck={false}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setActive(0);
          }}
          onKeyDown={onKey}
          data-testid="palette-input"
          autoFocus
        />
        <Options shown={shown} at={at} id={id} onHover={setActive} onRun={run} />
        <p className="palette-help" aria-hidden="true">
          <kbd>↑</kbd> <kbd>↓</kbd> to move · <kbd>Enter</kbd> to open · <kbd>Esc</kbd> to close
        </p>
      </div>
    </dialog>
  );
}

/** The results as a listbox; the active one kept in view. */
function Options({ shown, at, id, onHover, onRun }: { shown: Command[]; at: number; id: string; onHover: (i: number) => void; onRun: (c: Command) => void }) {
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    list.current?.querySelector(`[data-index="${at}"]`)?.scrollIntoView({ block: "nearest" });
  }, [at]);
  return (
    <ul ref={list} className="palette-list" role="listbox" id={`${id}-list`} aria-label="Pages and actions" data-testid="palette-list">
      {shown.map((c, i) => (
        <li
          key={c.id}
          id={`${id}-opt-${i}`}
          role="option"
          aria-selected={i === at}
          data-index={i}
          data-testid="palette-option"
          data-command={c.id}
          className={`palette-option${i === at ? " palette-option-active" : ""}`}
          onMouseMove={() => i !== at && onHover(i)}
          onClick={() => onRun(c)}
        >
          <span className="palette-label">{c.label}</span>
          {c.locked ? (
            <span className="badge badge-plan palette-lock" data-testid="palette-locked" title={`Needs the ${c.locked} plan`}>
              {c.locked}
            </span>
          ) : null}
          <span className="palette-group">{c.group}</span>
        </li>
      ))}
    </ul>
  );
}
