// The danger zone: back to the Free plan, delete the account.
import { CAPABILITY_LABELS, listWords, lostCapabilities } from "@contract/plans";
import { planName } from "../shared/plan-gate";
import { profileApi } from "./profile-api";
import { useState } from "react";
import { useNavigate } from "react-router";
import type { User } from "@contract/accounts";
import { useSession } from "../shared/session";
import { Alert, ConfirmDialog, Field } from "../shared/ui";
import { fieldOrMessage, useSubmit } from "../shared/submit";

export function DangerZone({ user }: { user: User }) {
  const { setUser, refresh } = useSession();
  const navigate = useNavigate();
  const [cancelOpen, setCancelOpen] = useState(false);
  const [cancelDone, setCancelDone] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [password, setPassword] = useState("");
  const paid = user.plan !== "free";

  const cancel = useSubmit(async () => {
    const r = await profileApi.cancelSubscription();
    if (r.user) setUser(r.user);
    else await refresh();
    setCancelOpen(false);
    setCancelDone(true);
  });
  const remove = useSubmit(async () => {
    await profileApi.deleteAccount(password);
    setDeleteOpen(false);
    navigate("/", { replace: true });
    setUser(null);
    await refresh();
  }, fieldOrMessage("password"));

  function deleteAccount() {
    if (!password) remove.setError("Enter your password to confirm.");
    else void remove.run();
  }

  return (
    <section className="danger-zone" data-testid="danger-zone" aria-labelledby="h-danger">
      <h2 id="h-danger">Danger zone</h2>
      <div className="danger-item">
        <div>
          <h3>Go back to the Free plan</h3>
          <p className="muted small" data-testid="downgrade-words">
            {paid
              ? `Your account goes back to the Free plan: ${listWords(lostCapabilities(user.plan, "free").map((c) => CAPABILITY_LABELS[c]))} stop.`
              : "Your account is on the Free plan already."}
          </p>
          {cancelDone ? <Alert kind="success">Your account is on the Free plan now.</Alert> : null}
        </div>
        <button
          type="button"
          className="btn btn-danger-ghost"
          disabled={!paid}
          onClick={() => {
            cancel.setError(null);
            setCancelOpen(true);
          }}
          data-testid="cancel-subscription"
        >
          Go back to Free
        </button>
      </div>
      <div className="danger-item">
        <div>
          <h3>Delete account</h3>
          <p className="muted small">Deletes your account, your links, their statistics and your API keys. Short links stop working. This cannot be undone.</p>
        </div>
        <button
          type="button"
          className="btn btn-danger"
          onClick={() => {
            setPassword("");
            remove.setError(null);
            setDeleteOpen(true);
          }}
          data-testid="delete-account"
        >
          Delete account
        </button>
      </div>

      <ConfirmDialog
        open={cancelOpen}
        title="Go back to the Free plan?"
        confirmLabel="Go back to Free"
        danger
        busy={cancel.busy}
        error={cancel.error}
        onConfirm={() => void cancel.run()}
        onCancel={() => setCancelOpen(false)}
      >
        <p>Your {planName(user.plan)} plan ends and your account moves to the free plan.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={deleteOpen}
        title="Delete your account?"
        confirmLabel="Delete my account"
        danger
        busy={remove.busy}
        error={remove.error}
        onConfirm={deleteAccount}
        onCancel={() => setDeleteOpen(false)}
        confirmDisabled={!password}
      >
        <p>This deletes everything and cannot be undone. Enter your password to confirm.</p>
        <Field id="delete-password" label="Password">
          <input
            id="delete-password"
            data-testid="delete-password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
      </ConfirmDialog>
    </section>
  );
}
