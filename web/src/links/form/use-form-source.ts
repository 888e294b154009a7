// Where the link form's values come from: the link being edited, the link being copied (`?from=<id>` on
// the create page, "Duplicate"), or nothing; and the owner's tags the tag input offers.
import { linkApi } from "../../shared/link-api";
import { useEffect, useState } from "react";
import type { Link } from "@contract/links";

import { errorMessage } from "../../shared/ui";
import { EMPTY, duplicateOf, fromLink, type FormValues } from "./values";

export interface FormSource {
  /** The link being edited. */
  original: Link | null;
  setOriginal: (l: Link) => void;
  /** The link being copied. */
  copiedFrom: Link | null;
  values: FormValues;
  setValues: React.Dispatch<React.SetStateAction<FormValues>>;
  loading: boolean;
  loadError: string | null;
}

/** `id` of the link to edit (edit) or to copy (create with ?from=), else null. */
export function useFormSource(mode: "create" | "edit", id: string | null, initial: FormValues = EMPTY): FormSource {
  const [original, setOriginal] = useState<Link | null>(null);
  const [copiedFrom, setCopiedFrom] = useState<Link | null>(null);
  const [values, setValues] = useState<FormValues>(initial);
  const [loading, setLoading] = useState(id !== null);
  const [loadError, setLoadError] = useState<string | null>(null);
  useEffect(() => {
    setOriginal(null);
    setCopiedFrom(null);
    setLoadError(null);
    setValues(initial);
    if (!id) return setLoading(false);
    let live = true;
    setLoading(true);
    linkApi
      .get(id)
      .then((l) => {
        if (!live) return;
        if (mode === "edit") setOriginal(l);
        else setCopiedFrom(l);
        setValues(mode === "edit" ? fromLink(l) : duplicateOf(l));
      })
      .catch((e: unknown) => live && setLoadError(errorMessage(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
    // `initial` is read when the source changes, not on every render (a new object each time).
  }, [mode, id]);
  return { original, setOriginal, copiedFrom, values, setValues, loading, loadError };
}

/**
 * One of the owner's lists (tags, UTM templates; a team owner's with `owner`), read once `ready`: null while
 * loading, the error when it could not be read. `load` must be a stable function (a module's).
 */
export function useOwnerList<T>(load: (owner: string | null) => Promise<T[]>, owner: string | null, ready: boolean) {
  const [list, setList] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!ready) return;
    let live = true;
    load(owner)
      .then((t) => live && setList(t))
      .catch((e: unknown) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [load, owner, ready]);
  return { list, setList, error };
}
