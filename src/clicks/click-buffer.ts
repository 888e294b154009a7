// Clicks on their way to the writer, kept as columns of numbers with each distinct string stored once
// per batch. Recording a click is a few Map lookups; posting a batch to the writer thread moves one
// ArrayBuffer and a short string list instead of cloning thousands of objects; describing it parses
// each distinct user agent and referrer once.
import type { ClickInput } from "./recorder.js";

/** Numbers per click: link, at, user agent, referer, ip, country (-1: none), counted (0/1). */
export const WIDTH = 7;

export interface ClickBatch {
  /** The batch's distinct strings; the string fields of `fields` index into it. */
  strings: string[];
  /** WIDTH numbers per click, `length` clicks. */
  fields: Float64Array;
  length: number;
}

/** The open batch of a recorder: clicks are appended until it is sealed. */
export class ClickBatchBuilder {
  private strings: string[] = [];
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
    f[o] = this.intern(c.linkId);
    f[o + 1] = c.at;
    f[o + 2] = this.intern(c.userAgent);
    f[o + 3] = this.intern(c.referer);
    f[o + 4] = this.intern(c.ip);
    f[o + 5] = c.country === null ? -1 : this.intern(c.country);
    f[o + 6] = c.counted ? 1 : 0;
    this.length++;
  }

  /** The batch so far (the builder must not be used afterwards). */
  seal(): ClickBatch {
    return { strings: this.strings, fields: this.fields.slice(0, this.length * WIDTH), length: this.length };
  }
}

/** A batch of the given clicks (tests, benchmarks, anything holding ClickInput objects). */
export function batchOf(inputs: Iterable<ClickInput>): ClickBatch {
  const b = new ClickBatchBuilder();
  for (const c of inputs) b.push(c);
  return b.seal();
}
