// The dashboard's bulk lines: CSV rows of url or url,alias with the lines they came from, and the text
// left once the created rows are taken out.
import { describe, expect, it } from "vitest";
import { parseBulkText, resultsCsv, withoutLines } from "../../web/src/links/bulk/bulk-lines.js";

describe("bulk lines", () => {
  const text = [
    "https://a.example/1",
    "",
    "  https://a.example/2 , two  ",
    '"https://a.example/q?x=1,2",three',
    '"https://a.example/multi',
    'line",four',
    "https://a.example/5",
  ].join("\n");

  it("reads url and url,alias rows with the lines they span, blank lines skipped", () => {
    const { rows, problems } = parseBulkText(text);
    expect(problems).toEqual([]);
    expect(rows).toEqual([
      { first: 1, last: 1, url: "https://a.example/1" },
      { first: 3, last: 3, url: "https://a.example/2", alias: "two" },
      { first: 4, last: 4, url: "https://a.example/q?x=1,2", alias: "three" },
      { first: 5, last: 6, url: "https://a.example/multi\nline", alias: "four" },
      { first: 7, last: 7, url: "https://a.example/5" },
    ]);
  });

  it("reads a header row naming the link's columns: details per row, empty cells left out, the header kept in the text", () => {
    const csv = [
      "URL,title,tags,alias,expired_url,preview_title,preview_image,note",
      'https://a.example/1,Spring sale,"spring, print",spring-1,https://a.example/over,Card,https://cdn.example/c.png,"two\nlines"',
      "https://a.example/2,,,,,,,",
      "https://a.example/3,x,,,,,,,,extra",
    ].join("\n");
    const { rows, problems } = parseBulkText(csv);
    expect(rows).toEqual([
      {
        first: 2,
        last: 3,
        url: "https://a.example/1",
        alias: "spring-1",
        details: {
          title: "Spring sale",
          note: "two\nlines",
          tags: ["spring", "print"],
          expired_url: "https://a.example/over",
          preview: { title: "Card", image: "https://cdn.example/c.png" },
        },
      },
      { first: 4, last: 4, url: "https://a.example/2" },
    ]);
    expect(problems).toEqual([{ line: 5, message: "This line has more cells than the header's 8 columns" }]);
    expect(withoutLines(csv, rows)).toBe(
      ["URL,title,tags,alias,expired_url,preview_title,preview_image,note", "https://a.example/3,x,,,,,,,,extra"].join("\n"),
    );
    // A first line that is not all column names is an ordinary row.
    expect(parseBulkText("url,unknown").rows).toEqual([{ first: 1, last: 1, url: "url", alias: "unknown" }]);
  });

  it("refuses a line of three columns and an unclosed quote, naming the line", () => {
    expect(parseBulkText("https://a.example/\nhttps://b.example/,x,y").problems).toEqual([
      { line: 2, message: "Write `url` or `url,alias` on each line (quote a URL that holds a comma)" },
    ]);
    expect(parseBulkText('https://a.example/\n"https://b.example/').problems[0]?.message).toBe("This line is not valid CSV: close the quote around the URL");
  });

  it("takes the created rows' lines out of the text, the others stay", () => {
    const { rows } = parseBulkText(text);
    expect(
      withoutLines(
        text,
        [rows[0], rows[3], rows[4]].filter((r) => r !== undefined),
      ),
    ).toBe(["  https://a.example/2 , two  ", '"https://a.example/q?x=1,2",three'].join("\n"));
  });

  it("writes the results as CSV with the source lines", () => {
    const { rows } = parseBulkText("https://a.example/1\n\nnope,bad");
    const csv = resultsCsv(
      [
        { line: 1, url: "https://a.example/1", status: "created", link: { short_url: "http://s.example/abc" } },
        { line: 2, url: "nope", alias: "bad", status: "error", code: "invalid_request", message: "url: Enter a full URL such as https://example.com" },
      ],
      rows,
    );
    expect(csv).toBe(
      "line,url,alias,status,short_url,code,message\n1,https://a.example/1,,created,http://s.example/abc,,\n3,nope,bad,error,,invalid_request,url: Enter a full URL such as https://example.com\n",
    );
  });
});
