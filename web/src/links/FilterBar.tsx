// The list's filter bar: search, filter chips (tags, domain, state, password, health), the sort menu and "Clear filters".
// On a phone the chips fold behind a "Filters" button.
import { useEffect, useState, type FormEvent } from "react";
import type { TagListItem } from "@contract/tags";
import { TagDot } from "../shared/tag-chip";
import { ChipMenu, Choice } from "./ChipMenu";
import { HEALTHS } from "../shared/link-health";
import { CLEARED, PASSWORDS, SORTS, STATES, filterCount, type ListFilters, type SortChoice } from "./filters";
import { MAX_TAG_FILTERS } from "@contract/tables";
import { formatNumber } from "../shared/numbers";

type SetFilters = (change: Partial<ListFilters>, opts?: { replace?: boolean }) => void;

export interface FilterBarProps {
  filters: ListFilters;
  set: SetFilters;
  /** The owner's tags (null while loading). */
  tags: TagListItem[] | null;
  /** Hostnames links can be on: the main host first, then custom domains. */
  domains: string[];
}

export function FilterBar({ filters, set, tags, domains }: FilterBarProps) {
  const [open, setOpen] = useState(false);
  const count = filterCount(filters);
  return (
    <section className="filter-panel card" aria-label="Search and filters" data-testid="links-filters">
      <div className="filter-top">
        <SearchBox q={filters.q} set={set} />
        <label className="sort-menu">
          <span className="sort-label">Sort</span>
          <select value={filters.sort} onChange={(e) => set({ sort: e.target.value as SortChoice })} data-testid="links-sort">
            {SORTS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="filter-bottom">
        <button type="button" className="btn btn-secondary filters-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="filters-toggle">
          Filters{count > 0 ? ` (${count})` : ""}
        </button>
        <div className={`filter-chips${open ? " filter-chips-open" : ""}`} data-testid="filter-chips">
          <TagChipMenu filters={filters} set={set} tags={tags} />
          {oneOfChips(domains).map(([label, key, name, choices]) => (
            <OneOf
              key={key}
              label={label}
              testId={`filter-${label.toLowerCase()}`}
              name={name}
              value={filters[key]}
              choices={choices}
              onChange={(v) => set({ [key]: v })}
            />
          ))}
          {count > 0 || filters.q ? (
            <button type="button" className="btn-link clear-filters" onClick={() => set(CLEARED)} data-testid="clear-filters">
              Clear filters
            </button>
          ) : null}
        </div>
      </div>
    </section>
  );
}

/** The chips of one choice each: label (its test id is filter-<label>), the filter, its query name, its choices. */
type OneOfKey = "domain" | "state" | "hasPassword" | "health";
function oneOfChips(domains: string[]): [string, OneOfKey, string, readonly (readonly [string, string])[]][] {
  return [
    ["Domain", "domain", "domain", domains.map((d) => [d, d] as const)],
    ["State", "state", "state", STATES],
    ["Password", "hasPassword", "has_password", PASSWORDS],
    ["Health", "health", "health", HEALTHS],
  ];
}

/** Search as you type, a little after the last keystroke; the box follows the address (Back, "Clear filters"). */
function SearchBox({ q, set }: { q: string; set: SetFilters }) {
  const [text, setText] = useState(q);
  useEffect(() => setText((t) => (t.trim() === q ? t : q)), [q]);
  const apply = (value: string) => {
    const next = value.trim();
    if (next === q) return;
    // Refining a search replaces its history entry; starting or ending one is a step of its own.
    set({ q: next }, { replace: q !== "" && next !== "" });
  };
  useEffect(() => {
    if (text.trim() === q) return;
    const t = window.setTimeout(() => apply(text), 350);
    return () => window.clearTimeout(t);
  }, [text]);
  return (
    <form
      className="search-bar"
      role="search"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        apply(text);
      }}
    >
      <label htmlFor="links-search" className="visually-hidden">
        Search links
      </label>
      <input
        id="links-search"
        data-testid="links-search"
        type="search"
        aria-keyshortcuts="/"
        placeholder="Search alias, URL, title, note or tag…"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit" className="btn btn-secondary" data-testid="links-search-submit">
        Search
      </button>
    </form>
  );
}

function TagChipMenu({ filters, set, tags }: { filters: ListFilters; set: SetFilters; tags: TagListItem[] | null }) {
  const chosen = filters.tags;
  const label = chosen.length === 0 ? "Tags" : chosen.length <= 2 ? `Tags: ${chosen.join(", ")}` : `Tags: ${chosen[0]} +${chosen.length - 1}`;
  const toggle = (name: string) => set({ tags: chosen.includes(name) ? chosen.filter((t) => t !== name) : [...chosen, name] });
  // Tags named in the address but gone from the list (deleted since) can still be unticked.
  const missing = chosen.filter((n) => !(tags ?? []).some((t) => t.name === n));
  return (
    <ChipMenu label={label} active={chosen.length > 0} testId="filter-tags">
      {() => (
        <fieldset className="chip-fieldset">
          <legend className="visually-hidden">Links with all of these tags</legend>
          {tags === null ? <p className="muted small">Loading tags…</p> : null}
          {tags?.length === 0 && missing.length === 0 ? (
            <p className="muted small">No tags yet: add them to links in the link form or with the selection.</p>
          ) : null}
          <div className="chip-choices">
            {(tags ?? []).map((t) => (
              <Choice
                key={t.id}
                type="checkbox"
                name="tag"
                checked={chosen.includes(t.name)}
                disabled={chosen.length >= MAX_TAG_FILTERS && !chosen.includes(t.name)}
                onChange={() => toggle(t.name)}
                testId="filter-tag-option"
              >
                <TagDot color={t.color} />
                <span className="chip-choice-text">{t.name}</span>
                <span className="muted small">{formatNumber(t.link_count)}</span>
              </Choice>
            ))}
            {missing.map((n) => (
              <Choice key={n} type="checkbox" name="tag" checked onChange={() => toggle(n)} testId="filter-tag-option">
                <span className="chip-choice-text">{n}</span>
              </Choice>
            ))}
          </div>
          {chosen.length > 1 ? (
            <p className="muted small chip-note">
              Links with all {chosen.length} tags{chosen.length >= MAX_TAG_FILTERS ? ` (${MAX_TAG_FILTERS} at most)` : ""}.
            </p>
          ) : null}
        </fieldset>
      )}
    </ChipMenu>
  );
}

/** A chip with "Any" and one choice of several. */
function OneOf({
  label,
  testId,
  name,
  value,
  choices,
  onChange,
}: {
  label: string;
  testId: string;
  name: string;
  value: string;
  choices: readonly (readonly [string, string])[];
  onChange: (value: string) => void;
}) {
  const current = choices.find(([v]) => v === value);
  return (
    <ChipMenu label={current ? `${label}: ${current[1]}` : label} active={current !== undefined} testId={testId}>
      {(close) => (
        <fieldset className="chip-fieldset">
          <legend className="visually-hidden">{label}</legend>
          <div className="chip-choices">
            {[["", `Any ${label.toLowerCase()}`] as const, ...choices].map(([v, text]) => (
              <Choice
                key={v || "any"}
                type="radio"
                name={name}
                checked={v === value || (v === "" && !current)}
                onChange={() => {
                  onChange(v);
                  close();
                }}
                testId={`${testId}-option`}
              >
                <span className="chip-choice-text">{text}</span>
              </Choice>
            ))}
          </div>
        </fieldset>
      )}
    </ChipMenu>
  );
}
