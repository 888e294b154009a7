// withScheme (web/src/shared/with-scheme.ts): a destination typed without its scheme gets https://, as Bitly
// and Dub take it; anything else is left for the server to judge.
import { describe, expect, it } from "vitest";
import { withScheme } from "../../web/src/shared/with-scheme.js";

describe("withScheme", () => {
  it("adds https:// to a host name with a path, query, fragment or port", () => {
    expect(withScheme("example.com/page")).toBe("https://example.com/page");
    expect(withScheme("  www.example.co.uk  ")).toBe("https://www.example.co.uk");
    expect(withScheme("shop.example.com:8443/a?b=c#d")).toBe("https://shop.example.com:8443/a?b=c#d");
    expect(withScheme("xn--bcher-kva.example/x")).toBe("https://xn--bcher-kva.example/x");
  });
  it("leaves addresses with a scheme, and what is no host name, as given", () => {
    expect(withScheme("http://example.com")).toBe("http://example.com");
    expect(withScheme("HTTPS://EXAMPLE.COM/")).toBe("HTTPS://EXAMPLE.COM/");
    expect(withScheme("ftp://example.com/x")).toBe("ftp://example.com/x");
    for (const raw of [
      "not-a-url",
      "javascript:alert(1)",
      "mailto:a@example.com",
      "user@example.com",
      "a b.com",
      "/relative/path",
      "",
      "localhost:3000",
      "example.",
      ".com",
    ]) {
      expect(withScheme(raw), raw).toBe(raw.trim());
    }
    expect(withScheme("x".repeat(5000) + ".com")).toBe(`https://${"x".repeat(5000)}.com`);
  });
});
