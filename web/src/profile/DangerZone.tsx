// The danger zone: back to the Free plan, delete the account.
import { CAPABILITY_LABELS, listWords, lostCapabilities } from "@contract/plans";
import { planName } from "../shared/plan-gate";
import { profileApi } from "./profile-api";
import { useState } from "react";
import type { User } from "@contract/accounts";
import { useSession } from "../shared/session";
import { Alert, ConfirmDialog, Field } from "../shared/ui";
import { fieldOrMessage, useSubmit } from "../shared/submit";

/** Going back to the Free plan: what stops, and the button that asks first (only on a paid plan). */
function DowngradeItem({ user, done, onOpen }: { user: User; done: boolean; onOpen: () => void }) {
  const paid = user.plan !== "free";
  return (
    <div className="danger-item">
      <div>
        <h3>Go back to the Free plan</h3>
        <p className="muted small" data-testid="downgrade-words">
          {paid
            ? `Your account goes back to the Free plan: ${listWords(lostCapabilities(user.plan, "free").map((c) => CAPABILITY_LABELS[c]))} stop.`
            : "Your account is on the Free plan already."}
        </p>
        {done ? <Alert kind="success">Your account is on the Free plan now.</Alert> : null}
      </div>
      <button type="button" className="btn btn-danger-ghost" disabled={!paid} onClick={onOpen} data-testid="cancel-subscription">
        Go back to Free
      </button>
    </div>
  );
}

/** Deleting the account: what goes, and the button that asks first. */
function DeleteItem({ onOpen }: { onOpen: () => void }) {
  return (
    <div className="danger-item">
      <div>
        <h3>Delete account</h3>
        <p className="muted small">Deletes your account, your links, their statistics and your API keys. Short links stop working. This cannot be undone.</p>
      </div>
      <button type="button" className="btn btn-danger" onClick={onOpen} data-testid="delete-account">
        Delete account
      </button>
    </div>
  );
}

/** The confirmation that takes the account back to the Free plan. */
function DowngradeDialog(props: { open: boolean; plan: User["plan"]; busy: boolean; error: string | null; onConfirm: () => void; onCancel: () => void }) {
  const { open, plan, busy, error, onConfirm, onCancel } = props;
  return (
    <ConfirmDialog
      open={open}
      title="Go back to the Free plan?"
      confirmLabel="Go back to Free"
      danger
      busy={busy}
      error={error}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>Your {planName(plan)} plan ends and your account moves to the free plan.</p>
    </ConfirmDialog>
  );
}

/** The confirmation that deletes the account, once the password is entered. */
function DeleteAccountDialog(props: {
  open: boolean;
  busy: boolean;
  error: string | null;
  password: string;
  onPassword: (password: string) => void;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { open, busy, error, password, onPassword, onConfirm, onCancel } = props;
  return (
    <ConfirmDialog
      open={open}
      title="Delete your account?"
      confirmLabel="Delete my account"
      danger
      busy={busy}
      error={error}
      onConfirm={onConfirm}
      onCancel={onCancel}
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
          onChange={(e) => onPassword(e.target.value)}
        />
      </Field>
    </ConfirmDialog>
  );
}

export function DangerZone({ user }: { user: User }) {
  const { setUser, refresh } = useSession();
  const [cancelOpen, setCancelOpen] = useState(false);
  const [cancelDone, setCancelDone] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [password, setPassword] = useState("");

  const cancel = useSubmit(async () => {
    const r = await profileApi.cancelSubscription();
    if (r.user) setUser(r.user);
    else await refresh();
    setCancelOpen(false);
    setCancelDone(true);
  });
  const remove = useSubmit(async () => {
    await profileApi.deleteAccount(password);
    // A full load of the home page: nothing of the deleted account stays in memory, and no signed-in page's guard
    // sees the user gone before the navigation (navigate() is a transition, setUser(null) is not: it raced to /app/login).
    window.location.replace("/");
  }, fieldOrMessage("password"));

  function deleteAccount() {
    if (!password) remove.setError("Enter your password to confirm.");
    else void remove.run();
  }

  return (
    <section className="danger-zone" data-testid="danger-zone" aria-labelledby="h-danger">
      <h2 id="h-danger">Danger zone</h2>
      <DowngradeItem
        user={user}
        done={cancelDone}
        onOpen={() => {
          cancel.setError(null);
          setCancelOpen(true);
        }}
      />
      <DeleteItem
        onOpen={() => {
          setPassword("");
          remove.setError(null);
          setDeleteOpen(true);
        }}
      />

      <DowngradeDialog
        open={cancelOpen}
        plan={user.plan}
        busy={cancel.busy}
        error={cancel.error}
        onConfirm={() => void cancel.run()}
        onCancel={() => setCancelOpen(false)}
      />
      <DeleteAccountDialog
        open={deleteOpen}
        busy={remove.busy}
        error={remove.error}
        password={password}
        onPassword={setPassword}
        onConfirm={deleteAccount}
        onCancel={() => setDeleteOpen(false)}
      />
    </section>
  );
}
