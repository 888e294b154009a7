// The account analytics' filter bar: whose links (for a team member), one link (searched by alias), a domain, a tag.
import { linkApi } from "../shared/link-api";
import { useEffect, useId, useState } from "react";

import type { Link } from "@contract/links";
import type { TagListItem } from "@contract/tags";
import { useTeamView, ownerLabel } from "../shared/team-view";
import type { AnalyticsFilters } from "./filters";

type Set = (change: Partial<AnalyticsFilters>) => void;

/** "Your links" or a team owner's (active memberships only): shown once the user belongs to a team. */
function OwnerSelect({ value, set }: { value: string; set: Set }) {
  const { memberships } = useTeamView();
  const active = (memberships ?? []).filter((m) => m.active);
  if (active.length === 0) return null;
  return (
    <label className="an-filter">
      <span>Links of</span>
      <select value={value} onChange={(e) => set({ owner: e.target.value })} data-testid="analytics-owner">
        <option value="">Your links</option>
        {active.map((m) => (
          <option key={m.owner_id} value={m.owner_id}>
            {ownerLabel(m)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The links matching what is typed (the list's own search), asked 250 ms after the last keystroke; none once one is chosen. */
function useLinkOptions(text: string, owner: string, value: string): Link[] {
  const [options, setOptions] = useState<Link[]>([]);
  useEffect(() => {
    if (value) return;
    let live = true;
    const t = window.setTimeout(() => {
      linkApi
        .search(text.trim(), owner || undefined)
        .then((p) => live && setOptions(p.links))
        .catch(() => live && setOptions([]));
    }, 250);
    return () => {
      live = false;
      window.clearTimeout(t);
    };
  }, [text, owner, value]);
  return options;
}

/** The chosen link's alias, and × to go back to every link. */
function ChosenLink({ alias, onClear }: { alias: string | undefined; onClear: () => void }) {
  return (
    <span className="an-filter an-chosen" data-testid="analytics-link-chosen">
      <span>Link</span>
      <strong className="truncate">{alias ?? "…"}</strong>
      <button type="button" className="btn-link" aria-label="Every link" title="Every link" onClick={onClear} data-testid="analytics-link-clear">
        ×
      </button>
    </span>
  );
}

/** One link, found by typing part of its alias, URL or title (the list's own search); × goes back to every link. */
function LinkPicker({ owner, value, set }: { owner: string; value: string; set: Set }) {
  const id = useId();
  const [text, setText] = useState("");
  const options = useLinkOptions(text, owner, value);
  const [chosen, setChosen] = useState<Link | null>(null);

  useEffect(() => {
    if (!value) return setChosen(null);
    if (chosen?.id === value) return;
    let live = true;
    linkApi
      .get(value)
      .then((l) => live && setChosen(l))
      .catch(() => live && setChosen(null));
    return () => {
      live = false;
    };
  }, [value]);

  const pick = (typed: string, loose: boolean) => {
    const found = options.find((o) => o.alias === typed.trim()) ?? (loose && typed.trim() ? options[0] : undefined);
    if (!found) return;
    setChosen(found);
    setText("");
    set({ link: found.id });
  };

  if (value) return <ChosenLink alias={chosen?.alias} onClear={() => set({ link: "" })} />;
  return (
    <label className="an-filter">
      <span>Link</span>
      <input
        type="search"
        list={id}
        placeholder="Every link: type an alias"
        value={text}
        data-testid="analytics-link"
        onChange={(e) => {
          setText(e.target.value);
          pick(e.target.value, false);
        }}
        onKeyDown={(e) => e.key === "Enter" && pick(text, true)}
      />
      <datalist id={id}>
        {options.map((o) => (
          <option key={o.id} value={o.alias}>
            {o.title || o.url}
          </option>
        ))}
      </datalist>
    </label>
  );
}

function Choose({
  label,
  value,
  choices,
  onChange,
  testId,
  all,
}: {
  label: string;
  value: string;
  choices: [string, string][];
  onChange: (v: string) => void;
  testId: string;
  all: string;
}) {
  return (
    <label className="an-filter">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        <option value="">{all}</option>
        {choices.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
        {value && !choices.some(([v]) => v === value) ? <option value={value}>{value}</option> : null}
      </select>
    </label>
  );
}

/** The owner's tags and the hostnames their links can be on (the main host first), read again for a new owner. */
function useChoices(owner: string): { tags: TagListItem[]; domains: string[] } {
  const [tags, setTags] = useState<TagListItem[]>([]);
  const [domains, setDomains] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    linkApi
      .tags(owner || undefined)
      .then((t) => live && setTags(t))
      .catch(() => live && setTags([]));
    // A member cannot list an owner's domains: the main host, and a domain from the address stays choosable.
    if (owner) setDomains([]);
    else
      linkApi
        .domains()
        .then((list) => live && setDomains(list.map((d) => d.hostname).sort()))
        .catch(() => live && setDomains([]));
    return () => {
      live = false;
    };
  }, [owner]);
  return { tags, domains: [window.location.hostname, ...domains.filter((d) => d !== window.location.hostname)] };
}

/** The filters; `ownerOnly` (a plan without account analytics) leaves only the switch to a team owner's links. */
export function AnalyticsFilterBar({ filters, set, ownerOnly }: { filters: AnalyticsFilters; set: Set; ownerOnly: boolean }) {
  const { memberships } = useTeamView();
  if (!ownerOnly) return <AllFilters filters={filters} set={set} />;
  if (!memberships?.some((m) => m.active)) return null;
  return (
    <section className="card an-filters" aria-label="Whose links" data-testid="analytics-filters">
      <OwnerSelect value={filters.owner} set={set} />
    </section>
  );
}

function AllFilters({ filters, set }: { filters: AnalyticsFilters; set: Set }) {
  const { tags, domains } = useChoices(filters.owner);
  const any = filters.link || filters.domain || filters.tag;
  return (
    <section className="card an-filters" aria-label="Filters" data-testid="analytics-filters">
      <OwnerSelect value={filters.owner} set={set} />
      <LinkPicker key={filters.owner} owner={filters.owner} value={filters.link} set={set} />
      <Choose
        label="Domain"
        value={filters.domain}
        choices={domains.map((d) => [d, d])}
        onChange={(domain) => set({ domain })}
        testId="analytics-domain"
        all="Every domain"
      />
      <Choose
        label="Tag"
        value={filters.tag}
        choices={tags.map((t) => [t.id, t.name])}
        onChange={(tag) => set({ tag })}
        testId="analytics-tag"
        all="Every tag"
      />
      {any ? (
        <button type="button" className="btn-link" onClick={() => set({ link: "", domain: "", tag: "" })} data-testid="analytics-clear">
          Clear filters
        </button>
      ) : null}
    </section>
  );
}
