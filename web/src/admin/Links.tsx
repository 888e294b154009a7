// Operator console, links: every account's links with search and filters (the state among them); disable (410 or
// 451) and enable one or the selected ones, or disable every link of an owner or every link to a host at once.
import { useState } from "react";
import { adminApi } from "./admin-api";
import type { AdminLink, DisableStatus } from "@contract/admin";
import { Alert, Field, errorMessage, useTitle } from "../shared/ui";
import { useRowSubmit, useSubmit } from "../shared/submit";
import { FilterForm, ListView, usePagedList, useSelection, useUrlFilters } from "../shared/lists";
import { LINK_STATE_LABELS } from "../shared/link-state";
import { HEALTHS } from "../shared/link-health";
import { DisableDialog, shortLabel } from "./common";
import { AdminLinkTable, type LinkAction } from "./links/LinkTable";
import { LINK_STATES } from "@contract/tables";

const PAGE = 50;

type Dialog = { kind: "one"; link: AdminLink } | { kind: "owner"; ownerId: string; ownerEmail: string } | { kind: "host" } | { kind: "selected" };

const plural = (n: number) => `${n} ${n === 1 ? "link" : "links"}`;

// eslint-disable-next-line max-lines-per-function -- filters, selection, row actions and the disable dialog share the page's state.
export function AdminLinksPage() {
  useTitle("Links · Operator");
  const [filters, setFilters] = useUrlFilters(["q", "owner", "domain", "state", "health"] as const);
  const [form, setForm] = useState({ q: filters.q, owner: filters.owner, domain: filters.domain });
  const list = usePagedList(
    (cursor) => adminApi.links({ ...filters, cursor, limit: PAGE }).then((r) => ({ items: r.links, next: r.next_cursor })),
    JSON.stringify(filters),
  );
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [host, setHost] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const rows = useRowSubmit();
  const { selected, select, clear } = useSelection();

  const replace = (link: AdminLink) => list.update((prev) => prev.map((l) => (l.id === link.id ? { ...l, ...link } : l)));
  const chosen = (list.items ?? []).filter((l) => selected.has(l.id));

  function enable(l: AdminLink) {
    setNotice(null);
    return rows.run(l.id, async () => {
      replace(await adminApi.enableLink(l.id));
      setNotice(`Enabled ${shortLabel(l.short_url)}: it redirects again.`);
    });
  }

  /** One request per selected link (each audited); a link that fails keeps its error on its row. */
  const bulk = useSubmit(async (verb: string, run: (l: AdminLink) => Promise<AdminLink>) => {
    setNotice(null);
    let done = 0;
    for (const l of chosen) {
      try {
        replace(await run(l));
        done++;
      } catch (e) {
        rows.setErrors((r) => ({ ...r, [l.id]: errorMessage(e) }));
      }
    }
    clear();
    setNotice(`${verb} ${plural(done)}${done < chosen.length ? `; ${chosen.length - done} failed (see their rows)` : ""}.`);
  });
  const eachSelected = bulk.run;

  async function confirmDisable(reason: string, status: DisableStatus) {
    if (!dialog) return;
    if (dialog.kind === "one") {
      replace(await adminApi.disableLink(dialog.link.id, reason, status));
      setNotice(`Disabled ${shortLabel(dialog.link.short_url)}: visitors get ${status}.`);
    } else if (dialog.kind === "selected") {
      setDialog(null);
      await eachSelected("Disabled", (l) => adminApi.disableLink(l.id, reason, status));
      return;
    } else if (dialog.kind === "owner") {
      const n = await adminApi.disableBulk({ owner_id: dialog.ownerId, reason, status });
      setNotice(`Disabled ${plural(n)} of ${dialog.ownerEmail}.`);
      list.reload();
    } else {
      const h = host.trim();
      const n = await adminApi.disableBulk({ host: h, reason, status });
      setNotice(`Disabled ${plural(n)} to ${h} and its subdomains.`);
      list.reload();
    }
    setDialog(null);
  }

  function act(a: LinkAction) {
    if (a.kind === "enable") void enable(a.link);
    else if (a.kind === "disable") setDialog({ kind: "one", link: a.link });
    else if (a.kind === "owner") setDialog(a);
    else {
      setHost(a.host);
      setDialog({ kind: "host" });
    }
  }

  const filtered = !!(filters.q || filters.owner || filters.domain || filters.state || filters.health);
  const chosenDisabled = chosen.filter((l) => l.disabled).length;
  const selectionBar =
    chosen.length > 0 ? (
      <div className="bulk-bar card" role="region" aria-label="Selected links" data-testid="admin-links-bulk">
        <strong>{plural(chosen.length)} selected</strong>
        <button
          type="button"
          className="btn btn-danger-ghost btn-sm"
          disabled={bulk.busy}
          data-testid="admin-links-bulk-disable"
          onClick={() => setDialog({ kind: "selected" })}
        >
          Disable selected…
        </button>
        {chosenDisabled > 0 ? (
          <button
            type="button"
            className="btn btn-secondary btn-sm"
            disabled={bulk.busy}
            data-testid="admin-links-bulk-enable"
            onClick={() => void eachSelected("Enabled", (l) => (l.disabled ? adminApi.enableLink(l.id) : Promise.resolve(l)))}
          >
            Enable selected
          </button>
        ) : null}
        <button type="button" className="btn-link" onClick={() => clear()}>
          Clear the selection
        </button>
      </div>
    ) : null;

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Links</h1>
          <p className="muted">The links of every account. A disabled link answers 410 or 451 with a page saying so; its owner sees your reason.</p>
        </div>
        <button
          type="button"
          className="btn btn-danger-ghost"
          data-testid="bulk-host-open"
          onClick={() => {
            setHost("");
            setDialog({ kind: "host" });
          }}
        >
          Disable all links to a host…
        </button>
      </div>

      <FilterForm onApply={() => setFilters(form)}>
        <Field id="links-q" label="Alias or destination" className="grow">
          <input id="links-q" data-testid="admin-links-search" type="search" value={form.q} onChange={(e) => setForm({ ...form, q: e.target.value })} />
        </Field>
        <Field id="links-owner" label="Owner email" className="grow">
          <input
            id="links-owner"
            data-testid="admin-links-owner"
            type="search"
            value={form.owner}
            onChange={(e) => setForm({ ...form, owner: e.target.value })}
          />
        </Field>
        <Field id="links-domain" label="Custom domain">
          <input
            id="links-domain"
            data-testid="admin-links-domain"
            type="search"
            placeholder="go.example.com"
            value={form.domain}
            onChange={(e) => setForm({ ...form, domain: e.target.value })}
          />
        </Field>
        <Field id="links-state" label="State">
          <select id="links-state" data-testid="admin-links-state" value={filters.state} onChange={(e) => setFilters({ ...form, state: e.target.value })}>
            <option value="">Any state</option>
            {LINK_STATES.map((s) => (
              <option key={s} value={s}>
                {LINK_STATE_LABELS[s]}
              </option>
            ))}
          </select>
        </Field>
        <Field id="links-health" label="Health">
          <select id="links-health" data-testid="admin-links-health" value={filters.health} onChange={(e) => setFilters({ ...form, health: e.target.value })}>
            <option value="">Any health</option>
            {HEALTHS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" className="btn btn-secondary filter-submit" data-testid="admin-links-submit">
          Search
        </button>
      </FilterForm>

      {notice ? (
        <Alert kind="success" testId="admin-links-notice">
          {notice}
        </Alert>
      ) : null}
      <ListView
        list={list}
        what="the links"
        loading="Loading links…"
        testId="admin-links"
        // The state filters look at a bounded number of links per request: a page can be empty with more to look at.
        partial="No match among the links looked at so far."
        empty={{
          title: filtered ? "No link matches" : "No links yet",
          onClear: filtered
            ? () => {
                setForm({ q: "", owner: "", domain: "" });
                setFilters({ q: "", owner: "", domain: "", state: "", health: "" });
              }
            : null,
        }}
        between={selectionBar}
      >
        {(items) => <AdminLinkTable links={items} selected={selected} onSelect={select} busyId={rows.busyId} rowErrors={rows.errors} onAction={act} />}
      </ListView>

      <DisableDialog
        open={dialog !== null}
        title={
          {
            one: "Disable this link?",
            selected: `Disable ${plural(chosen.length)}?`,
            owner: "Disable all links of this owner?",
            host: "Disable all links to a host?",
          }[dialog?.kind ?? "one"]
        }
        confirmLabel={dialog?.kind === "one" ? "Disable link" : "Disable links"}
        host={dialog?.kind === "host" ? { value: host, onChange: setHost } : undefined}
        onConfirm={confirmDisable}
        onCancel={() => setDialog(null)}
      >
        {dialog?.kind === "one" ? (
          <p>
            <strong>{shortLabel(dialog.link.short_url)}</strong> stops redirecting at once. Its owner sees the reason and cannot enable it again.
          </p>
        ) : dialog?.kind === "selected" ? (
          <p>The {plural(chosen.length)} you selected stop redirecting at once. Their owners see the reason and cannot enable them again.</p>
        ) : dialog?.kind === "owner" ? (
          <p>
            Every active link of <strong>{dialog.ownerEmail}</strong> stops redirecting at once. The account itself stays active.
          </p>
        ) : (
          <p>Every link whose destination is on this host stops redirecting. To refuse new links there as well, add the host to the blocklist.</p>
        )}
      </DisableDialog>
    </>
  );
}
