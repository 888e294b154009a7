// The link form's tag input: chips of the chosen tags in their colours, and a text box that offers the
// owner's tags as the user types; Enter or a comma adds what was typed (a new tag is created on saving).
import "../../shared/tags.css";
import { useId, useMemo, useState, type KeyboardEvent } from "react";
import type { TagListItem } from "@contract/tags";
import { MAX_TAGS_PER_LINK } from "../../../../src/contract/form-rules";

/** A name as the server stores it: trimmed, inner runs of spaces made one. */
export function cleanTagName(raw: string): string {
  return raw.trim().replace(/\s+/g, " ");
}

/** Most suggestions shown at once (the rest appear as the user types more). */
const MAX_SUGGESTIONS = 8;

interface Option {
  key: string;
  name: string;
  color: string | null;
  create: boolean;
}

function suggestions(draft: string, chosen: string[], known: TagListItem[]): Option[] {
  const q = cleanTagName(draft).toLowerCase();
  const taken = new Set(chosen.map((n) => n.toLowerCase()));
  const free = known.filter((t) => !taken.has(t.name.toLowerCase()) && t.name.toLowerCase().includes(q));
  // Names that start with what was typed first, then the others that contain it.
  free.sort((a, b) => Number(!a.name.toLowerCase().startsWith(q)) - Number(!b.name.toLowerCase().startsWith(q)));
  const out: Option[] = free.slice(0, MAX_SUGGESTIONS).map((t) => ({ key: t.id, name: t.name, color: t.color, create: false }));
  const exact = known.some((t) => t.name.toLowerCase() === q) || taken.has(q);
  if (q && !exact) out.push({ key: "create", name: cleanTagName(draft), color: null, create: true });
  return out;
}

export function TagChip({ name, color, onRemove, testId = "tag-chip" }: { name: string; color: string | null; onRemove?: () => void; testId?: string }) {
  return (
    <span className={`lf-tag lf-tag-${color ?? "new"}`} data-testid={testId} data-color={color ?? "new"}>
      <span className="lf-tag-dot" aria-hidden="true" />
      <span className="lf-tag-name">{name}</span>
      {color ? null : <span className="lf-tag-newmark">new</span>}
      {onRemove ? (
        <button type="button" className="lf-tag-remove" onClick={onRemove} aria-label={`Remove the tag ${name}`} data-testid="tag-remove">
          ×
        </button>
      ) : null}
    </span>
  );
}

// eslint-disable-next-line max-lines-per-function -- a combobox: typing, suggestions and keyboard handling share one state.
export function TagInput(props: { id: string; names: string[]; known: TagListItem[] | null; onChange: (names: string[]) => void; invalid: boolean }) {
  const { id, names, onChange } = props;
  const known = useMemo(() => props.known ?? [], [props.known]);
  const listId = useId();
  const [draft, setDraft] = useState("");
  const [open, setOpen] = useState(false);
  // The highlighted suggestion (arrow keys), -1 for none: Enter then adds what was typed.
  const [active, setActive] = useState(-1);
  const full = names.length >= MAX_TAGS_PER_LINK;
  const options = open && !full ? suggestions(draft, names, known) : [];
  const colorOf = (name: string) => known.find((t) => t.name.toLowerCase() === name.toLowerCase())?.color ?? null;

  /** Adds the names (the owner's spelling for a known one), skipping empty ones, repeats and any past the limit. */
  function add(raw: string[]) {
    const next = [...names];
    for (const r of raw) {
      const name = cleanTagName(r);
      if (!name || next.some((n) => n.toLowerCase() === name.toLowerCase()) || next.length >= MAX_TAGS_PER_LINK) continue;
      next.push(known.find((t) => t.name.toLowerCase() === name.toLowerCase())?.name ?? name);
    }
    if (next.length !== names.length) onChange(next);
    setDraft("");
    setActive(-1);
  }

  function typed(value: string) {
    // A comma ends a name (typed or pasted): what precedes the last comma is added.
    const parts = value.split(",");
    if (parts.length > 1) add(parts.slice(0, -1));
    setDraft(parts[parts.length - 1] ?? "");
    setActive(-1);
    setOpen(true);
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      setOpen(true);
      const n = options.length;
      const down = e.key === "ArrowDown";
      if (n) setActive((a) => (down ? (a + 1) % n : a <= 0 ? n - 1 : a - 1));
    } else if (e.key === "Enter" && (draft.trim() || options[active])) {
      // Enter picks the highlighted tag, else adds what was typed; the form is not sent.
      e.preventDefault();
      add([options[active]?.name ?? draft]);
    } else if (e.key === "Escape" && open) {
      e.preventDefault();
      setOpen(false);
    } else if (e.key === "Backspace" && draft === "" && names.length > 0) {
      onChange(names.slice(0, -1));
    }
  }

  const activeId = options[active] ? `${listId}-${active}` : undefined;
  return (
    <div className={`lf-tags${props.invalid ? " lf-tags-invalid" : ""}`} data-testid="tag-input">
      {names.map((n) => (
        <TagChip key={n.toLowerCase()} name={n} color={colorOf(n)} onRemove={() => onChange(names.filter((x) => x !== n))} />
      ))}
      <div className="lf-tags-entry">
        <input
          id={id}
          data-testid="link-tags"
          type="text"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={options.length > 0}
          aria-controls={listId}
          aria-activedescendant={activeId}
          aria-describedby={`${id}-count`}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          disabled={full}
          placeholder={full ? "" : names.length ? "Add another…" : "Type to find or add a tag"}
          value={draft}
          onChange={(e) => typed(e.target.value)}
          onKeyDown={onKeyDown}
          onFocus={() => setOpen(true)}
          onBlur={() => {
            setOpen(false);
            if (draft.trim()) add([draft]);
          }}
        />
        {options.length > 0 ? (
          <ul className="lf-tags-list" role="listbox" id={listId} data-testid="tag-options">
            {options.map((o, i) => (
              <li
                key={o.key}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                className={i === active ? "lf-tags-option lf-tags-option-active" : "lf-tags-option"}
                data-testid="tag-option"
                // Keeps the focus in the text box, so choosing does not first add the draft on blur.
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => add([o.name])}
              >
                {o.create ? (
                  <span>
                    Create <strong>“{o.name}”</strong>
                  </span>
                ) : (
                  <TagChip name={o.name} color={o.color} testId="tag-option-chip" />
                )}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <span className="lf-tags-count" id={`${id}-count`} data-testid="tag-count">
        {names.length} of {MAX_TAGS_PER_LINK}
      </span>
    </div>
  );
}
