// Lists in the dashboard: filters kept in the address, one paging hook with its stale-answer guard (an answer
// that arrives after a newer request is dropped), "Load more", the error of a list that could not be read, and
// the list view that shows them in one order.
import { startTransition, useCallback, useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { useSearchParams } from "react-router";
import { Alert, EmptyState, Spinner, errorMessage } from "./ui";
import type { EmptyIcon } from "./empty-icons";

/** Filters kept in the address (so a filtered list can be linked and survives a reload). */
export function useUrlFilters<K extends string>(keys: readonly K[], defaults: Partial<Record<K, string>> = {}) {
  const [params, setParams] = useSearchParams();
  const values = {} as Record<K, string>;
  for (const k of keys) values[k] = params.get(k) ?? defaults[k] ?? "";
  const defaultsRef = useRef(defaults);
  const set = useCallback(
    (next: Partial<Record<K, string>>) => {
      const defaults = defaultsRef.current;
      setParams(
        (prev) => {
          const p = new URLSearchParams(prev);
          for (const [k, v] of Object.entries(next) as [K, string | undefined][]) {
            const value = (v ?? "").trim();
            if (value === (defaults[k] ?? "")) p.delete(k);
            else p.set(k, value);
          }
          return p;
        },
        { replace: true },
      );
    },
    [setParams],
  );
  return [values, set] as const;
}

export interface Page<T> {
  items: T[];
  next: string | null;
}

/**
 * A list read page by page: the first page whenever `key` changes (the filters), more on demand. A list without
 * paging is one page with `next: null`. Answers that arrive after a newer request are dropped.
 */
export function usePagedList<T>(fetchPage: (cursor: string | null) => Promise<Page<T>>, key: string, enabled = true) {
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [version, setVersion] = useState(0);
  const seq = useRef(0);
  const shownKey = useRef<string | null>(null);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  useEffect(() => {
    if (!enabled) return;
    const mine = ++seq.current;
    setError(null);
    // New filters empty the list at once; a reload of the same list keeps it on screen until the answer.
    if (shownKey.current !== key) setItems(null);
    fetchRef.current(null).then(
      (page) => {
        if (mine !== seq.current) return;
        shownKey.current = key;
        // A transition: React draws a long page of rows in slices, yielding to the browser between them, so a
        // phone's main thread is never blocked for long (what is on screen stays until the rows are ready).
        startTransition(() => {
          setItems(page.items);
          setNext(page.next);
        });
      },
      (e: unknown) => {
        if (mine === seq.current) setError(errorMessage(e));
      },
    );
  }, [key, version, enabled]);

  async function loadMore() {
    if (!next) return;
    const mine = seq.current;
    setLoadingMore(true);
    setError(null);
    try {
      const page = await fetchRef.current(next);
      if (mine !== seq.current) return;
      startTransition(() => {
        setItems((prev) => [...(prev ?? []), ...page.items]);
        setNext(page.next);
      });
    } catch (e) {
      if (mine === seq.current) setError(errorMessage(e));
    } finally {
      setLoadingMore(false);
    }
  }

  return {
    items,
    next,
    error,
    loadingMore,
    loadMore,
    /** Reads the first page again. */
    reload: () => setVersion((v) => v + 1),
    /** Replaces items in place (after an action answered with the new object). */
    update: (fn: (prev: T[]) => T[]) => setItems((prev) => (prev ? fn(prev) : prev)),
  };
}

export function LoadMore({ next, busy, onClick, testId = "admin-load-more" }: { next: string | null; busy: boolean; onClick: () => void; testId?: string }) {
  if (!next) return null;
  return (
    <div className="center">
      <button type="button" className="btn btn-secondary" onClick={onClick} disabled={busy} data-testid={testId}>
        {busy ? "Loading…" : "Load more"}
      </button>
    </div>
  );
}

/** The error of a list that could not be read, with a retry. */
export function ListError({ what, error, onRetry, testId }: { what: string; error: string; onRetry: () => void; testId: string }) {
  return (
    <Alert testId={testId}>
      Could not load {what}: {error}{" "}
      <button type="button" className="btn-link" onClick={onRetry}>
        Try again
      </button>
    </Alert>
  );
}

export type PagedList<T> = ReturnType<typeof usePagedList<T>>;

/** What a list without items says: its title, and a "Clear the filters" button when filters hid them, else a text. */
export interface EmptyList {
  title: string;
  /** The empty state's icon (links by default). */
  icon?: EmptyIcon;
  onClear?: (() => void) | null;
  text?: ReactNode;
}

/**
 * A paged list's states in one order: the error with a retry, `between` (a selection's actions), a spinner until the
 * first page, the empty state, the items with "Load more". `partial`: a page can be empty with more to look at
 * (filters the server applies to a bounded number of rows per request). Test ids: `<testId>-error`, `-empty`,
 * `-partial`, `-load-more`.
 */
export function ListView<T>(props: {
  list: PagedList<T>;
  what: string;
  loading: string;
  testId: string;
  empty: EmptyList;
  partial?: string;
  between?: ReactNode;
  children: (items: T[]) => ReactNode;
}) {
  const { list, testId, empty } = props;
  const more = <LoadMore next={list.next} busy={list.loadingMore} onClick={() => void list.loadMore()} testId={`${testId}-load-more`} />;
  let body: ReactNode;
  if (list.items === null) body = list.error ? null : <Spinner label={props.loading} />;
  else if (list.items.length === 0 && list.next && props.partial)
    body = (
      <div className="placeholder" data-testid={`${testId}-partial`}>
        <p>{props.partial}</p>
        {more}
      </div>
    );
  else if (list.items.length === 0)
    body = (
      <EmptyState title={empty.title} testId={`${testId}-empty`} icon={empty.onClear ? "search" : empty.icon}>
        {empty.onClear ? (
          <button type="button" className="btn btn-secondary" onClick={empty.onClear}>
            Clear the filters
          </button>
        ) : (
          (empty.text ?? null)
        )}
      </EmptyState>
    );
  else
    body = (
      <>
        {props.children(list.items)}
        {more}
      </>
    );
  return (
    <>
      {list.error ? <ListError what={props.what} error={list.error} onRetry={list.reload} testId={`${testId}-error`} /> : null}
      {props.between}
      {body}
    </>
  );
}

/** A list's filter bar: its fields, applied on submit (Enter in a field, or its button). */
export function FilterForm({ onApply, children }: { onApply: () => void; children: ReactNode }) {
  return (
    <form
      className="card filter-bar"
      role="search"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onApply();
      }}
    >
      {children}
    </form>
  );
}

/**
 * The ids selected in a list for its bulk actions: `select(ids, on)` adds or removes some (the same function on every
 * render, so rows that take it redraw only when their own props change); `clear()` empties it.
 */
export function useSelection() {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const select = useCallback(
    (ids: string[], on: boolean) =>
      setSelected((prev) => {
        const next = new Set(prev);
        for (const id of ids)
          if (on) next.add(id);
          else next.delete(id);
        return next;
      }),
    [],
  );
  const clear = useCallback(() => setSelected(new Set()), []);
  return { selected, select, clear };
}
