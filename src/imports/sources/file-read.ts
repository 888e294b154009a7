// Reading an uploaded file into records, bounded whatever the file holds (docs/import.md, CSV columns).
// CSV: RFC 4180 with the spreadsheet's leniencies (a quote inside an unquoted cell is text, text after a
// closing quote is kept); a quote that never closes fails its own line and reading goes on at the next
// physical line, so every later line is read and reported under its true line number. Each quoted cell
// finds its end in O(log n) (a table of the file's runs of quotes), so no file makes reading quadratic.
// JSON: parsed once; a file too deep to parse is refused as a whole, a row too deep fails alone.

/** A record as read: its line (1-based, the header is line 1 of a CSV) and its cells; or why it could not be read. */
export type RawRecord = { line: number; cells: string[]; error?: undefined } | { line: number; error: string; cells?: undefined };

/** The file's runs of consecutive quotes, and for each run the first run from there of odd length. */
class QuoteRuns {
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly nextOdd: Int32Array;

  constructor(text: string) {
    const starts: number[] = [];
    const ends: number[] = [];
    for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i)) {
      const start = i;
      while (text.charCodeAt(i) === 34) i++;
      starts.push(start);
      ends.push(i);
    }
    this.starts = Int32Array.from(starts);
    this.ends = Int32Array.from(ends);
    this.nextOdd = new Int32Array(starts.length + 1);
    this.nextOdd[starts.length] = -1;
    for (let r = starts.length - 1; r >= 0; r--) this.nextOdd[r] = (ends[r]! - starts[r]!) % 2 === 1 ? r : this.nextOdd[r + 1]!;
  }

  private runAt(pos: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= pos) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi;
  }

  /**
   * The end (exclusive) of the closing quote of a cell opened at `open` (a run's first quote), or -1. After
   * the opening quote, a run of even length is escaped quotes; the first odd one closes the cell at its end.
   */
  closeOf(open: number): number {
    const r = this.runAt(open);
    if ((this.ends[r]! - open - 1) % 2 === 1) return this.ends[r]!;
    const odd = this.nextOdd[r + 1]!;
    return odd < 0 ? -1 : this.ends[odd]!;
  }
}

const isEol = (c: number) => c === 10 || c === 13;

/** Lines ended between `from` and `to` (CRLF counts once). */
function linesIn(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) n++;
  }
  return n;
}

/** Past the line end at `i` (CR, LF or CRLF). */
function pastEol(text: string, i: number): number {
  return text.charCodeAt(i) === 13 && text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
}

/** The end of the physical line holding `i`. */
function lineEnd(text: string, i: number): number {
  for (let j = i; j < text.length; j++) if (isEol(text.charCodeAt(j))) return j;
  return text.length;
}

/** Every record of a CSV text (without its byte-order mark); blank lines are skipped. */
export function readCsv(text: string): RawRecord[] {
  const runs = new QuoteRuns(text);
  const out: RawRecord[] = [];
  let pos = 0;
  let line = 1;
  while (pos < text.length) {
    const startLine = line;
    const cells: string[] = [];
    let broken: string | null = null;
    for (;;) {
      let cell = "";
      if (text.charCodeAt(pos) === 34) {
        const close = runs.closeOf(pos);
        const spans = close >= 0 && lineEnd(text, pos) < close;
        // A quote closing on a later line but not ending its cell there is a stray quote of that line, not
        // the end of a multi-line cell: the line that opened it is what is broken.
        if (close < 0 || (spans && close < text.length && text.charCodeAt(close) !== 44 && !isEol(text.charCodeAt(close)))) {
          // No quote closes it: this line fails and the next physical line is read as a record of its own.
          line += linesIn(text, pos, lineEnd(text, pos));
          broken = "unreadable CSV line (a quote opened here is never closed)";
          pos = lineEnd(text, pos);
          break;
        }
        cell = text.slice(pos + 1, close - 1).replaceAll('""', '"');
        line += linesIn(text, pos, close);
        pos = close;
      }
      // Unquoted text, or what follows a closing quote up to the delimiter: kept as it is.
      let end = pos;
      while (end < text.length && text.charCodeAt(end) !== 44 && !isEol(text.charCodeAt(end))) end++;
      cell += text.slice(pos, end);
      cells.push(cell);
      pos = end;
      if (pos >= text.length || isEol(text.charCodeAt(pos))) break;
      pos++; // the comma
    }
    if (pos < text.length) {
      pos = pastEol(text, pos);
      line++;
    }
    if (broken !== null) out.push({ line: startLine, error: broken });
    else if (!(cells.length === 1 && cells[0] === "")) out.push({ line: startLine, cells });
  }
  return out;
}

/** Nesting a row may have (the API's own bound on a body). */
export const MAX_ROW_DEPTH = 32;

/** How deep `value` nests (1 for a flat object), counted without recursion and stopped past `limit`. */
export function depthOf(value: unknown, limit: number): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d > max) max = d;
    if (max > limit) return max;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/** JSON text parsed; null when it is not JSON, or nests too deep for the parser itself. */
export function parseJsonText(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}
