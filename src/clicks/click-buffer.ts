// Clicks on their way to the writer, kept as columns of numbers with each distinct string stored once
// per batch, and the link ids in a list of their own. Recording a click is a few Map lookups; posting
// a batch to the writer thread copies one block of numbers and two string lists instead of cloning
// thousands of objects; describing it parses each distinct user agent and referrer once.

/** One click as the redirect hands it to the recorder (ClickRecorder.record). */
export interface ClickInput {
  linkId: string;
  /** links.num of the link. */
  linkNum: number;
  at: number;
  userAgent: string;
  referer: string;
  ip: string;
  /** Value of the trusted country header, or null. */
  country: string | null;
  /** True when the click was already added to links.click_count atomically (click-limited links). */
  counted: boolean;
  /** Where the visit went (contract/targeting.ts's codes: rule:N, ios, android, variant:N); null for the link's url ("default"), most clicks. */
  destination: string | null;
  /** The visit came from a QR code (the marker `qr=1` on the short URL); absent is false. */
  qr?: boolean;
  /** The short URL's UTM values, normalised (utm-values.ts's utmOf); absent or null: none, most clicks. */
  utm?: string | null;
  /**
   * The click id sent to the destination of a link that tracks conversions (conversions/tracked-clicks.ts); absent
   * or null: not tracked, most clicks. It travels with the click (journal, writer) and is stored in the click's transaction.
   */
  clickId?: string | null;
  /**
   * A phone's visit the redirect turned towards an app's store (deep links, redirect/app-turn.ts's appVisit): what the
   * "stored" listeners keep of it (the store visit on the tracked click, the pending match of a deferred deep link);
   * absent or null: none, most clicks. Only with a clickId.
   */
  app?: string | null;
}

/** Where a batch's clicks sit in the click journal (click-journal.ts): the journal's id and the batch's segment in it. */
export interface JournalMark {
  journal: string;
  segment: number;
}

/** Where each number of a click sits: strings are indexes into the batch's strings; country, destination, utm, clickId and app -1 are none. */
export const FIELD = {
  at: 0,
  userAgent: 1,
  referer: 2,
  ip: 3,
  country: 4,
  counted: 5,
  linkNum: 6,
  destination: 7,
  qr: 8,
  utm: 9,
  clickId: 10,
  app: 11,
} as const;
/** Numbers per click. */
export const WIDTH = 12;

export interface ClickBatch {
  /** Distinct per batch in this process: a writer that retries a batch knows it (and what of it is written). */
  seq: number;
  /** The batch's distinct strings; the string fields of `fields` index into it. */
  strings: string[];
  /**
   * Each click's link id, as is: on a long tail of links most are distinct within a batch, and
   * interning them cost a lookup in a map of thousands per click on the event loop.
   */
  links: string[];
  /** WIDTH numbers per click, `length` clicks. */
  fields: Float64Array;
  length: number;
  /** The click-journal segment that holds these clicks: the writer records it with their commit. */
  journal?: JournalMark;
}

let lastSeq = 0;

/** A new batch number (batches built elsewhere than by a builder: the journal's replay). */
export function nextBatchSeq(): number {
  return ++lastSeq;
}

/** The open batch of a recorder: clicks are appended until it is sealed. */
export class ClickBatchBuilder {
  private strings: string[] = [];
  private links: string[] = [];
  private readonly index = new Map<string, number>();
  private fields = new Float64Array(WIDTH * 256);
  length = 0;

  private intern(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.push(s) - 1;
      this.index.set(s, i);
    }
    return i;
  }

  push(c: ClickInput): void {
    if ((this.length + 1) * WIDTH > this.fields.length) {
      const grown = new Float64Array(this.fields.length * 2);
      grown.set(this.fields);
      this.fields = grown;
    }
    const f = this.fields;
    const o = this.length * WIDTH;
    this.links.push(c.linkId);
    f[o + FIELD.at] = c.at;
    f[o + FIELD.userAgent] = this.intern(c.userAgent);
    f[o + FIELD.referer] = this.intern(c.referer);
    f[o + FIELD.ip] = this.intern(c.ip);
    f[o + FIELD.country] = c.country === null ? -1 : this.intern(c.country);
    f[o + FIELD.counted] = c.counted ? 1 : 0;
    f[o + FIELD.linkNum] = c.linkNum;
    f[o + FIELD.destination] = c.destination === null ? -1 : this.intern(c.destination);
    f[o + FIELD.qr] = c.qr === true ? 1 : 0;
    f[o + FIELD.utm] = c.utm == null ? -1 : this.intern(c.utm);
    // A click id is unique: appended, not interned (no Map entry per tracked click).
    f[o + FIELD.clickId] = c.clickId == null ? -1 : this.strings.push(c.clickId) - 1;
    f[o + FIELD.app] = c.app == null ? -1 : this.strings.push(c.app) - 1;
    this.length++;
  }

  get stringCount(): number {
    return this.strings.length;
  }

  /** The strings and numbers pushed after the first `clicks` clicks and `strings` strings (the click journal appends them). */
  since(clicks: number, strings: number): { strings: string[]; fields: Float64Array } {
    return { strings: this.strings.slice(strings), fields: this.fields.subarray(clicks * WIDTH, this.length * WIDTH) };
  }

  /** The clicks so far, as a batch that is not a copy: read it at once, before more clicks are pushed. */
  view(): ClickBatch {
    return { seq: 0, strings: this.strings, links: this.links, fields: this.fields, length: this.length };
  }

  /** The batch so far (the builder must not be used afterwards). */
  seal(): ClickBatch {
    return { seq: nextBatchSeq(), strings: this.strings, links: this.links, fields: this.fields.slice(0, this.length * WIDTH), length: this.length };
  }
}

/**
 * Several sealed batches as one (PostgreSQL's writer, when it is behind: more clicks per link and
 * statement), each distinct string once; the journal mark is the last batch's, which commits them all.
 */
export function mergeBatches(batches: ClickBatch[]): ClickBatch {
  if (batches.length === 1) return batches[0] as ClickBatch;
  let length = 0;
  for (const b of batches) length += b.length;
  const fields = new Float64Array(length * WIDTH);
  const strings: string[] = [];
  const index = new Map<string, number>();
  const links: string[] = [];
  let at = 0;
  for (const b of batches) {
    const remap = b.strings.map((s) => {
      let i = index.get(s);
      if (i === undefined) index.set(s, (i = strings.push(s) - 1));
      return i;
    });
    fields.set(b.fields.subarray(0, b.length * WIDTH), at * WIDTH);
    for (let o = at * WIDTH, end = (at + b.length) * WIDTH; o < end; o += WIDTH) {
      for (const k of STRING_FIELDS) {
        const v = fields[o + k] as number;
        if (v >= 0) fields[o + k] = remap[v] as number;
      }
    }
    for (let i = 0; i < b.length; i++) links.push(b.links[i] as string);
    at += b.length;
  }
  return { seq: nextBatchSeq(), strings, links, fields, length, journal: batches[batches.length - 1]?.journal };
}

/**
 * A batch as posted to the writer thread: its numbers in a buffer of their own that the message moves
 * (transferred, not cloned), and its link ids as one string. Structured cloning a batch of 2,500 clicks
 * took about 1.1 ms of the event loop (0.75 ms the Float64Array, 0.3-0.45 ms the 2,500 strings),
 * posting it this way about 0.05 ms (bench/README.md).
 */
export interface PostedBatch extends Omit<ClickBatch, "links"> {
  /** The link ids joined by LINK_SEPARATOR (an id is base62: shared/ids.ts). */
  links: string;
}

const LINK_SEPARATOR = "\n";

/** The message form of `b`, and the buffer to transfer with it: a copy of the numbers (the recorder keeps `b` for a retry). */
export function postedBatch(b: ClickBatch): { batch: PostedBatch; transfer: ArrayBuffer } {
  const fields = b.fields.slice(0, b.length * WIDTH);
  return { batch: { ...b, fields, links: b.links.join(LINK_SEPARATOR) }, transfer: fields.buffer };
}

/** A posted batch back as a batch; an id list that does not split into one id per click is refused whole. */
export function receivedBatch(b: PostedBatch): ClickBatch {
  const links = b.length === 0 ? [] : b.links.split(LINK_SEPARATOR);
  if (links.length !== b.length) throw new Error(`a posted batch of ${b.length} clicks carried ${links.length} link ids`);
  return { ...b, links };
}

/** The fields that index into a batch's strings (-1: none). */
const STRING_FIELDS = [FIELD.userAgent, FIELD.referer, FIELD.ip, FIELD.country, FIELD.destination, FIELD.utm, FIELD.clickId, FIELD.app] as const;

/** A batch of the given clicks (tests, benchmarks, anything holding ClickInput objects). */
export function batchOf(inputs: Iterable<ClickInput>): ClickBatch {
  const b = new ClickBatchBuilder();
  for (const c of inputs) b.push(c);
  return b.seal();
}
