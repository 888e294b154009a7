// A row action behind a confirmation dialog, with its notice and the list reloaded after it.
import { useState } from "react";
import { useSubmit } from "../shared/submit";

/**
 * A confirmed action on one row (cancel, remove, leave): the row awaiting confirmation, its progress and
 * error; `action` returns the notice to show, then the team is loaded again.
 */
export function useConfirmed<T>(action: (row: T) => Promise<string>, onChange: () => Promise<void>, onNotice: (s: string | null) => void) {
  const [target, setTarget] = useState<T | null>(null);
  const { busy, error, setError, run } = useSubmit(async (row: T) => {
    onNotice(await action(row));
    setTarget(null);
    await onChange();
  });
  const confirm = () => (target ? run(target) : undefined);
  const dialog = { open: target !== null, busy, error, danger: true, onConfirm: confirm, onCancel: () => setTarget(null) };
  return { target, ask: (row: T) => (setError(null), setTarget(row)), dialog };
}
