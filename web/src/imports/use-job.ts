// Follows one import job: read at once, then every second while it is queued or running, or still worked on
// (a cancelled job finishing its page); a failed read is shown and retried on the next tick (the job goes on
// on the server whatever the page does).
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError } from "../shared/api";
import { errorMessage } from "../shared/ui";
import { importsApi } from "./imports-api";
import type { ImportJob } from "@contract/imports";
import { ACTIVE_IMPORT_STATES } from "@contract/tables";

export const POLL_MS = 1000;

export function useJob(id: string | null, initial: ImportJob | null) {
  const [job, setJob] = useState<ImportJob | null>(initial?.id === id ? initial : null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const current = useRef(id);
  current.current = id;

  useEffect(() => {
    setJob((prev) => (prev?.id === id ? prev : initial?.id === id ? initial : null));
    setError(null);
  }, [id, initial]);

  useEffect(() => {
    if (!id) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      let again = true;
      try {
        const j = await importsApi.get(id);
        if (!live) return;
        setJob(j);
        setError(null);
        // A cancelled job may still be finishing the page in hand on the server: followed until it is let go.
        again = (ACTIVE_IMPORT_STATES as readonly string[]).includes(j.state) || j.working;
      } catch (e) {
        if (!live) return;
        setError(errorMessage(e));
        // A job that is gone (or not the user's) will not come back; anything else is tried again.
        again = !(e instanceof ApiError && (e.httpStatus === 404 || e.httpStatus === 403));
      }
      if (again && live) timer = setTimeout(() => void tick(), POLL_MS);
    };
    void tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id, version]);

  /** Takes a job an action answered with, and polls again when it is active once more (or still worked on). */
  const replace = useCallback((j: ImportJob) => {
    if (j.id !== current.current) return;
    setJob(j);
    if ((ACTIVE_IMPORT_STATES as readonly string[]).includes(j.state) || j.working) setVersion((v) => v + 1);
  }, []);

  return { job, error, replace, retry: () => setVersion((v) => v + 1) };
}
