// Shared statistics (docs/sharing.md) of a link (its statistics page), a tag (the analytics page filtered by it) or a
// folder (the link list showing it): the "Share" button and the dialog it opens, with what is shared already (copy,
// revoke) and a form for a new page (panels, an optional password and end date).
import { type FormEvent, useEffect, useId, useState } from "react";
import type { Share } from "@contract/shares";
import { SHARE_PANELS } from "@contract/tables";
import { call, snip } from "./api";
import { Alert, Modal, Spinner, errorMessage } from "./ui";
import "./share-stats.css";

type Panel = (typeof SHARE_PANELS)[number];

const PANEL_LABELS: Record<Panel, string> = {
  clicks: "Clicks and the chart",
  visitors: "Visitors",
  countries: "Countries",
  devices: "Devices, browsers and systems",
  referrers: "Referring sites",
  conversions: "Leads, sales and revenue",
};

/** What a page shares: one link, the links with a tag (its id), or a folder's links. */
export type ShareTarget = { link_id: string } | { tag: string } | { folder_id: string };

const ownerQuery = (owner: string | null) => (owner ? { owner } : {});
const isFor = (s: Share, t: ShareTarget) => ("link_id" in t ? s.link_id === t.link_id : "tag" in t ? s.tag === t.tag : s.folder_id === t.folder_id);
const sharesApi = {
  // The API narrows to a link; a tag's or a folder's are picked from the account's (at most MAX_SHARES_PER_OWNER).
  list: (target: ShareTarget, owner: string | null) =>
    call(snip.GET("/api/shares", { params: { query: { ...("link_id" in target ? { link_id: target.link_id } : {}), ...ownerQuery(owner) } } })).then((r) =>
      r.shares.filter((s) => isFor(s, target)),
    ),
  create: (body: ShareTarget & { panels: Panel[]; password?: string; expires_at?: string }, owner: string | null) =>
    call(snip.POST("/api/shares", { params: { query: ownerQuery(owner) }, body })).then((r) => r.share),
  revoke: (id: string) => call(snip.DELETE("/api/shares/{id}", { params: { path: { id } } })),
};

/** The button; `owner`: the owner when the reader is a member of their team (their shares, with ?owner=). */
export function ShareStatsButton({ target, owner }: { target: ShareTarget; owner: string | null }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="btn btn-secondary" data-testid="stats-share" onClick={() => setOpen(true)}>
        Share
      </button>
      <ShareStatsDialog open={open} target={target} owner={owner} onClose={() => setOpen(false)} />
    </>
  );
}

function ShareStatsDialog(props: { open: boolean; target: ShareTarget; owner: string | null; onClose: () => void }) {
  const titleId = useId();
  const [shares, setShares] = useState<Share[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { open, target, owner } = props;
  // One key for the effect: a target is a new object on every render of its page.
  const targetKey = JSON.stringify(target);
  useEffect(() => {
    if (!open) return;
    let live = true;
    setShares(null);
    setError(null);
    sharesApi.list(JSON.parse(targetKey) as ShareTarget, owner).then(
      (list) => live && setShares(list),
      (e: unknown) => {
        if (!live) return;
        setShares([]);
        setError(errorMessage(e));
      },
    );
    return () => {
      live = false;
    };
  }, [open, targetKey, owner]);
  const revoke = async (id: string) => {
    setError(null);
    try {
      await sharesApi.revoke(id);
      setShares((list) => list?.filter((s) => s.id !== id) ?? null);
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return (
    <Modal open={props.open} onClose={props.onClose} className="share-dialog" labelledBy={titleId} testId="share-dialog">
      <h2 id={titleId}>Share this {"link_id" in target ? "link" : "tag" in target ? "tag" : "folder"}'s statistics</h2>
      <div className="dialog-body">
        <p className="muted small">Anyone with the address sees the panels you choose, without an account, until you revoke it.</p>
        {error ? <Alert testId="share-error">{error}</Alert> : null}
        {/* Nothing is read while the dialog is closed: no spinner either. */}
        {!open ? null : shares === null ? <Spinner label="Loading the shared pages…" /> : <ShareList shares={shares} onRevoke={(id) => void revoke(id)} />}
        <NewShare target={target} owner={owner} onMade={(s) => setShares((list) => [s, ...(list ?? [])])} onError={setError} />
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn btn-secondary" onClick={props.onClose} data-testid="share-close">
          Done
        </button>
      </div>
    </Modal>
  );
}

function ShareList({ shares, onRevoke }: { shares: Share[]; onRevoke: (id: string) => void }) {
  if (shares.length === 0) {
    return (
      <p className="muted" data-testid="share-empty">
        Not shared yet.
      </p>
    );
  }
  return (
    <ul className="share-list" data-testid="share-list" aria-label="Shared pages">
      {shares.map((s) => (
        <li key={s.id} className="share-row" data-testid="share-row">
          <input type="text" className="share-url" readOnly value={s.url} aria-label="Address of the shared page" onFocus={(e) => e.currentTarget.select()} />
          <div className="share-row-actions">
            <span className="muted small">
              {s.has_password ? "Password · " : ""}
              {s.expires_at ? `Until ${s.expires_at.slice(0, 10)}` : "No end date"}
            </span>
            <button type="button" className="btn btn-secondary btn-sm" onClick={() => void navigator.clipboard?.writeText(s.url)}>
              Copy
            </button>
            <button type="button" className="btn btn-danger btn-sm" data-testid="share-revoke" onClick={() => onRevoke(s.id)}>
              Revoke
            </button>
          </div>
        </li>
      ))}
    </ul>
  );
}

function NewShare(props: { target: ShareTarget; owner: string | null; onMade: (s: Share) => void; onError: (e: string | null) => void }) {
  const [panels, setPanels] = useState<Panel[]>([...SHARE_PANELS]);
  const [password, setPassword] = useState("");
  const [until, setUntil] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    props.onError(null);
    try {
      const made = await sharesApi.create(
        {
          ...props.target,
          panels,
          ...(password ? { password } : {}),
          // The end of the chosen day, in the reader's time zone.
          ...(until ? { expires_at: new Date(`${until}T23:59:59`).toISOString() } : {}),
        },
        props.owner,
      );
      props.onMade(made);
      setPassword("");
      setUntil("");
    } catch (err) {
      props.onError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const toggle = (p: Panel) => setPanels((list) => (list.includes(p) ? list.filter((x) => x !== p) : SHARE_PANELS.filter((x) => x === p || list.includes(x))));
  return (
    <form className="share-new" onSubmit={(e) => void submit(e)} data-testid="share-form">
      <fieldset>
        <legend>What the page shows</legend>
        <div className="share-panels">
          {SHARE_PANELS.map((p) => (
            <label key={p}>
              <input type="checkbox" checked={panels.includes(p)} onChange={() => toggle(p)} /> {PANEL_LABELS[p]}
            </label>
          ))}
        </div>
      </fieldset>
      <div className="share-fields">
        <label>
          Password (optional)
          <input
            type="password"
            autoComplete="new-password"
            maxLength={200}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            data-testid="share-password"
          />
        </label>
        <label>
          Until (optional)
          <input type="date" value={until} onChange={(e) => setUntil(e.target.value)} data-testid="share-until" />
        </label>
      </div>
      <button type="submit" className="btn btn-primary" disabled={busy || panels.length === 0} data-testid="share-create">
        {busy ? "Creating…" : "Create a shared page"}
      </button>
    </form>
  );
}
