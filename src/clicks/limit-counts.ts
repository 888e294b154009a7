// Click-limit counts gathered per event-loop turn. A visit to a click-limited link waits for its count
// (an atomic UPDATE on the one writer's connection, SQLite): the counts asked in one turn go to the
// writer together, as one message to its thread (or to the primary) and one transaction there, instead of
// a message and a commit each (the commit wrote the link's pages to the WAL once per visit).

/** One click of a click-limited link to count if its limit allows: the link, its limit and the click's time (links.last_click_at). */
export interface LimitCount {
  linkId: string;
  maxClicks: number;
  at: number;
}

/** Counts a list of clicks in order, answering for each whether it was counted (a list of the same length). */
export type CountMany = (counts: LimitCount[]) => Promise<boolean[]>;

interface Waiting {
  count: LimitCount;
  resolve: (counted: boolean) => void;
  reject: (err: unknown) => void;
}

/** One count at a time for callers, `many` once per event-loop turn for what they asked in it. */
export function countsPerTurn(many: CountMany): (count: LimitCount) => Promise<boolean> {
  let waiting: Waiting[] = [];
  const flush = async (): Promise<void> => {
    const taken = waiting;
    waiting = [];
    try {
      const counted = await many(taken.map((w) => w.count));
      taken.forEach((w, i) => w.resolve(counted[i] === true));
    } catch (err) {
      for (const w of taken) w.reject(err);
    }
  };
  return (count) =>
    new Promise<boolean>((resolve, reject) => {
      if (waiting.push({ count, resolve, reject }) === 1) setImmediate(() => void flush());
    });
}
