// The operator's links table: a selection box per row (for the bulk actions above it), the state badge, and one
// "…" menu per row for the actions on the link, its owner and its host.
import type { AdminLink } from "@contract/admin";
import { LinkStateBadge } from "../../shared/link-state";
import { HealthBadge } from "../../shared/link-health";
import { RowMenu, SelectBox } from "../../shared/menu";
import { A, DataTable, FieldMessage, formatDate } from "../../shared/ui";
import { hostOf, shortLabel } from "../common";
import { BreakAt } from "../../shared/break-at";
import { formatNumber } from "../../shared/numbers";

export type LinkAction =
  | { kind: "disable"; link: AdminLink }
  | { kind: "enable"; link: AdminLink }
  | { kind: "owner"; ownerId: string; ownerEmail: string }
  | { kind: "host"; host: string };

export function AdminLinkTable(props: {
  links: AdminLink[];
  selected: ReadonlySet<string>;
  onSelect: (ids: string[], on: boolean) => void;
  busyId: string | null;
  rowErrors: Record<string, string>;
  onAction: (a: LinkAction) => void;
}) {
  const { links, selected } = props;
  const all = links.length > 0 && links.every((l) => selected.has(l.id));
  return (
    <DataTable
      className="table admin-table table-cards"
      testId="admin-links-table"
      columns={["Short link", "Destination", "Owner", "Clicks", "State"]}
      actions
      select={
        <SelectBox
          checked={all}
          onChange={(on) =>
            props.onSelect(
              links.map((l) => l.id),
              on,
            )
          }
          label="Select every link shown"
          testId="admin-links-select-all"
        />
      }
    >
      {links.map((l) => (
        <LinkRow key={l.id} link={l} {...props} />
      ))}
    </DataTable>
  );
}

function LinkRow({ link: l, selected, onSelect, busyId, rowErrors, onAction }: Parameters<typeof AdminLinkTable>[0] & { link: AdminLink }) {
  const host = hostOf(l.url);
  return (
    <tr data-testid="admin-link-row" data-link-id={l.id} className={selected.has(l.id) ? "row-selected" : ""}>
      <td className="cell-select">
        <SelectBox
          checked={selected.has(l.id)}
          onChange={(on) => onSelect([l.id], on)}
          label={`Select ${shortLabel(l.short_url)}`}
          testId="admin-link-select"
        />
      </td>
      <td className="cell-short">
        <a href={l.short_url} target="_blank" rel="noopener noreferrer" className="cell-wrap" data-testid="admin-link-short">
          <BreakAt text={shortLabel(l.short_url)} />
        </a>
        <div className="muted small">{formatDate(l.created_at)}</div>
      </td>
      <td className="cell-url">
        <div className="truncate" title={l.url} data-testid="admin-link-destination">
          {l.url}
        </div>
        {l.ios_url || l.android_url ? <div className="muted small">+ device destinations</div> : null}
      </td>
      <td className="cell-owner">
        {l.owner_email ? (
          <A to={`/app/admin/accounts?q=${encodeURIComponent(l.owner_email)}`} className="cell-wrap" testId="admin-link-owner">
            {l.owner_email}
          </A>
        ) : (
          <span className="muted">signed out</span>
        )}
      </td>
      <td className="num" data-label="Clicks">
        {formatNumber(l.click_count)}
      </td>
      <td className="cell-state">
        <LinkStateBadge link={l} withReason />
        <HealthBadge health={l.health} />
        <FieldMessage error={rowErrors[l.id]} testId="admin-link-error" />
      </td>
      <td className="cell-actions">
        <RowMenu
          label={`Actions for ${shortLabel(l.short_url)}`}
          testId="admin-link-menu"
          busy={busyId === l.id}
          items={[
            l.disabled
              ? { label: "Enable", testId: "admin-link-enable", onSelect: () => onAction({ kind: "enable", link: l }) }
              : { label: "Disable…", testId: "admin-link-disable", danger: true, onSelect: () => onAction({ kind: "disable", link: l }) },
            !!(l.owner_id && l.owner_email) && {
              label: "Disable all links of the owner…",
              testId: "admin-link-disable-owner",
              title: `Every active link of ${l.owner_email}`,
              danger: true,
              onSelect: () => onAction({ kind: "owner", ownerId: l.owner_id as string, ownerEmail: l.owner_email as string }),
            },
            !!host && {
              label: `Disable all links to ${host}…`,
              testId: "admin-link-disable-host",
              danger: true,
              onSelect: () => onAction({ kind: "host", host }),
            },
          ]}
        />
      </td>
    </tr>
  );
}
