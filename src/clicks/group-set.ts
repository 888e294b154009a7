// Groups held in memory between roll-ups (GroupSet), merged by link, hour and values; click-groups.ts makes them.
import { type ClickRow, DayOf, type Group, compareIds, findGroup, hourOf, newGroup } from "./click-groups.js";

/**
 * Groups held in memory between roll-ups, by link number: adding one is a lookup by number and a
 * look through that link's few groups. Takes over the groups added to it.
 */
export class GroupSet {
  private readonly byLink = new Map<number, Group[]>();
  private count = 0;

  /** Distinct groups held. */
  get size(): number {
    return this.count;
  }

  /** Adds a group (from one batch), merged into the same link, day and values if held. */
  add(g: Group): void {
    const list = this.byLink.get(g.link_num);
    const have = list === undefined ? undefined : findGroup(list, g.hour, g);
    if (have !== undefined) {
      have.clicks += g.clicks;
      have.counted += g.counted;
      have.visitors += g.visitors;
      if (g.last_at > have.last_at) have.last_at = g.last_at;
      return;
    }
    if (list === undefined) this.byLink.set(g.link_num, [g]);
    else list.push(g);
    this.count++;
  }

  /** Every group held, in no particular order. */
  *all(): Generator<Group> {
    for (const list of this.byLink.values()) yield* list;
  }

  /** The groups held for one link (none: an empty list). */
  of(linkNum: number): readonly Group[] {
    return this.byLink.get(linkNum) ?? [];
  }

  /** Adds click rows (read back from the database), one click each. */
  addRows(rows: Iterable<ClickRow>): void {
    const days = new DayOf();
    for (const row of rows) {
      const g = newGroup(row.link_id, row.link_num, days.of(row.at), hourOf(row.at), row);
      this.add(Object.assign(g, { clicks: 1, counted: row.counted, visitors: row.new_visitor, last_at: row.at }));
    }
  }

  /** Every group, by link id (the order roll-ups are written and recorded in), each link's in the order they came. */
  byLinkId(): Group[] {
    const lists = [...this.byLink.values()].sort((a, b) => compareIds(a[0]!.link_id, b[0]!.link_id));
    return lists.flat();
  }
}
