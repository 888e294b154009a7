// The dashboard's data tables: rows of one kind of thing (links, keys, deliveries, DNS records), a column for each
// of their fields and one for each row's actions, in a frame that scrolls sideways on a narrow screen.
import { Children, type ReactNode } from "react";

/** A column: its heading, or its heading with a class for the heading cell (`num`: a right-aligned count). */
export type Column = string | { label: string; className?: string };

/**
 * A table's header row: one column heading each, and an unlabelled (screen-reader "Actions") last column when asked;
 * `select` is a first cell (a "select all" box).
 */
export function TableHead({ columns, actions = false, select }: { columns: Column[]; actions?: boolean; select?: ReactNode }) {
  return (
    <thead>
      <tr>
        {select ? (
          <th scope="col" className="cell-select">
            {select}
          </th>
        ) : null}
        {columns.map((c) => {
          const { label, className } = typeof c === "string" ? { label: c, className: undefined } : c;
          return (
            <th scope="col" key={label} className={className}>
              {label}
            </th>
          );
        })}
        {actions ? (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}

/** Where a table sits: a card of its own without padding, a padded card, or nothing (its section is the card). */
const FRAMES = { flush: "table-wrap card card-flush", card: "table-wrap card", none: "table-wrap" } as const;

/**
 * A data table: the header row (as TableHead) and the rows given, in its frame. `caption` names the table to a
 * screen reader (the page shows its heading already); `empty` stands in for the whole table when there is no row.
 */
export function DataTable(props: {
  className?: string;
  testId?: string;
  columns: Column[];
  actions?: boolean;
  select?: ReactNode;
  frame?: keyof typeof FRAMES;
  caption?: string;
  empty?: ReactNode;
  children: ReactNode;
}) {
  if (props.empty !== undefined && Children.count(props.children) === 0) return <>{props.empty}</>;
  return (
    <div className={FRAMES[props.frame ?? "flush"]}>
      <table className={props.className ?? "table"} data-testid={props.testId}>
        {props.caption ? <caption className="visually-hidden">{props.caption}</caption> : null}
        <TableHead columns={props.columns} actions={props.actions} select={props.select} />
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
