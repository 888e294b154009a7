// The confirmations before an operator changes an account: a plan change (naming what a downgrade takes away), a
// suspension and a deletion (typing the email).
import { planName } from "../../shared/plan-gate";
import { useState } from "react";
import type { AdminAccount } from "@contract/admin";
import type { Plan } from "@contract/plans";
import { ConfirmDialog, Field } from "../../shared/ui";
import { useSubmit } from "../../shared/submit";
import { isDowngrade, planConsequences } from "./plan-change";
import { formatNumber } from "../../shared/numbers";

export type PendingChange = { kind: "plan"; account: AdminAccount; plan: Plan } | { kind: "suspend"; account: AdminAccount };

export function ChangeDialog({
  change,
  busy,
  onConfirm,
  onCancel,
}: {
  change: PendingChange | null;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const a = change?.account;
  const down = change?.kind === "plan" && a ? isDowngrade(a.plan as Plan, change.plan) : false;
  return (
    <ConfirmDialog
      open={change !== null}
      title={change?.kind === "suspend" ? "Suspend this account?" : down ? "Downgrade this account?" : "Change this account's plan?"}
      confirmLabel={change?.kind === "suspend" ? "Suspend account" : change ? `Move to ${planName(change.plan)}` : "Confirm"}
      danger={change?.kind === "suspend" || down}
      busy={busy}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      {change?.kind === "plan" && a ? (
        <>
          <p data-testid="plan-change-summary">
            <strong>{a.email}</strong> moves from {planName(a.plan)} to {planName(change.plan)}. It applies at once and is written to the audit log.
          </p>
          <ul className="consequences" data-testid="plan-change-consequences">
            {planConsequences(a.plan as Plan, change.plan, a.links).map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        </>
      ) : a ? (
        <>
          <p>
            <strong>{a.email}</strong> is suspended at once (written to the audit log):
          </p>
          <ul className="consequences">
            <li>Its API keys are refused, and so are its changes in the dashboard.</li>
            <li>Its webhooks stop delivering; its team members lose access to its links.</li>
            <li>Its links keep redirecting: disable them from the Links tab if they must stop.</li>
            <li>You can activate it again at any time.</li>
          </ul>
        </>
      ) : null}
    </ConfirmDialog>
  );
}

export function DeleteAccountDialog({
  account,
  onConfirm,
  onCancel,
}: {
  account: AdminAccount | null;
  onConfirm: (email: string) => Promise<void>;
  onCancel: () => void;
}) {
  const [email, setEmail] = useState("");
  const { busy, error, setError, run } = useSubmit(async () => {
    await onConfirm(email.trim());
    setEmail("");
  });
  return (
    <ConfirmDialog
      open={!!account}
      title="Delete this account?"
      confirmLabel="Delete account"
      danger
      busy={busy}
      error={error}
      confirmDisabled={email.trim() !== account?.email}
      onConfirm={() => void run()}
      onCancel={() => {
        setEmail("");
        setError(null);
        onCancel();
      }}
    >
      <p>
        <strong>{account?.email}</strong> is deleted with its {formatNumber(account?.links ?? 0)} links, their clicks, its API keys, team, domains and webhooks.
        This cannot be undone.
      </p>
      <Field id="confirm-email" label="Type the account's email to confirm">
        <input
          id="confirm-email"
          data-testid="confirm-email"
          type="text"
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </Field>
    </ConfirmDialog>
  );
}
