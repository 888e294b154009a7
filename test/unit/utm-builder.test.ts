// The link form's UTM builder over the destination URL's text: reading the utm_* values, setting and
// removing one while every other part of the URL stays as typed.
import { describe, expect, it } from "vitest";
import { readUtm, writeAllUtm, writeUtm } from "../../web/src/links/form/utm.js";

const NONE = { utm_source: "", utm_medium: "", utm_campaign: "", utm_term: "", utm_content: "" };

describe("UTM builder", () => {
  it("reads the values a URL carries, decoded, the first of a repeat counting", () => {
    expect(readUtm("")).toEqual(NONE);
    expect(readUtm("https://example.com/a?b=1#utm_source=frag")).toEqual(NONE);
    expect(
      readUtm("https://example.com/?utm_source=news+letter&x=1&utm_medium=e%2Dmail&utm_campaign=caf%C3%A9&utm_source=second&utm_term&utm_content=%E0%A4%A"),
    ).toEqual({
      utm_source: "news letter",
      utm_medium: "e-mail",
      utm_campaign: "café",
      utm_term: "",
      utm_content: "%E0%A4%A",
    });
    expect(readUtm("example.com?utm_source=a#x")).toEqual({ ...NONE, utm_source: "a" });
  });

  it("sets a value in place or after the other parameters, keeping them, their spelling and the fragment", () => {
    expect(writeUtm("https://example.com/p", "utm_source", "news")).toBe("https://example.com/p?utm_source=news");
    expect(writeUtm("https://example.com/p?a=1&b=%20x+y#top", "utm_medium", "e mail & more")).toBe(
      "https://example.com/p?a=1&b=%20x+y&utm_medium=e%20mail%20%26%20more#top",
    );
    expect(writeUtm("https://example.com/?utm_source=old&a=1&utm_source=again", "utm_source", "new")).toBe("https://example.com/?utm_source=new&a=1");
    expect(writeUtm("https://example.com/#frag?utm_source=no", "utm_source", "x")).toBe("https://example.com/?utm_source=x#frag?utm_source=no");
    expect(writeUtm("https://example.com/?utm_campaign", "utm_campaign", "ü/ß")).toBe("https://example.com/?utm_campaign=%C3%BC%2F%C3%9F");
  });

  it("removes a parameter when its value is cleared, and the '?' with the last one", () => {
    expect(writeUtm("https://example.com/?a=1&utm_source=x&b=2#f", "utm_source", "")).toBe("https://example.com/?a=1&b=2#f");
    expect(writeUtm("https://example.com/?utm_source=x#f", "utm_source", "")).toBe("https://example.com/#f");
    expect(writeUtm("https://example.com/?utm_term=a&utm_term=b", "utm_term", "")).toBe("https://example.com/");
    expect(writeUtm("https://example.com/?a=1", "utm_content", "")).toBe("https://example.com/?a=1");
  });

  it("round-trips whatever is typed, so a field shows exactly what the user entered", () => {
    for (const value of ["plain", " spaced ", "a+b", "100%", "a=b&c", "ünï/cödé", "😀", "#hash?"]) {
      const url = writeUtm("https://example.com/?x=1#f", "utm_campaign", value);
      expect(readUtm(url).utm_campaign).toBe(value);
      expect(url.endsWith("#f")).toBe(true);
    }
  });

  it("applies a template: its values set, the parameters it leaves out removed", () => {
    const url = "https://example.com/?utm_source=a&keep=1&utm_term=t";
    expect(writeAllUtm(url, { utm_source: "news", utm_medium: "email", utm_term: null })).toBe("https://example.com/?utm_source=news&keep=1&utm_medium=email");
  });
});
