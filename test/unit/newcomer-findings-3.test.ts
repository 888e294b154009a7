// Issue 55's findings 2 and 3 as pure functions: the destination's words (server and dashboard alike), an address
// back at this service said as such even when its host name alone would not pass, and the CLI's --expires day.
import { describe, expect, it } from "vitest";
import { normalizeDestination } from "../../src/links/validate.js";
import { MESSAGES, destinationProblem } from "../../src/contract/form-rules.js";
import { keyExpiry } from "../../src/cli.js";

const refusal = (raw: string, ownHost: string) => {
  try {
    normalizeDestination(raw, "url", ownHost);
    return null;
  } catch (e) {
    return (e as { details?: { message: string }[] }).details?.[0]?.message ?? null;
  }
};

describe("issue 55, finding 2: the destination's words", () => {
  it("words without a scheme are no full URL, on both sides; spaces inside an address are spaces", () => {
    for (const raw of ["not a url", "hello world", "  two words  "]) {
      expect(destinationProblem(raw), raw).toBe(MESSAGES.urlNotFull);
      expect(refusal(raw, "snip.example.com"), raw).toBe(MESSAGES.urlNotFull);
    }
    expect(destinationProblem("https://example.com/a page")).toBe(MESSAGES.urlSpaces);
    expect(refusal("https://example.com/a page", "snip.example.com")).toBe(MESSAGES.urlSpaces);
    expect(destinationProblem("https://")).toBe(MESSAGES.urlNotFull);
    expect(destinationProblem("https://example.com/page")).toBeNull();
  });

  it("an address at this service's own host (localhost on a laptop) leads back to it, rather than a bad host name", () => {
    expect(refusal("http://localhost:8080/spring-lookbook", "localhost")).toBe("This URL leads back to this service; enter another destination");
    expect(refusal("https://SNIP.example.com/x", "snip.example.com")).toBe(MESSAGES.urlLoops);
    // Another single-label host is still a bad host name.
    expect(refusal("http://intranet/x", "localhost")).toBe(MESSAGES.urlBadHost);
  });
});

describe("issue 55, finding 3: snip key create --expires", () => {
  it("a day is the end of that day in local time (as the dashboard's date field); other values pass as typed", () => {
    expect(keyExpiry("2027-01-01")).toBe(new Date(2027, 0, 1, 23, 59, 59).toISOString());
    expect(keyExpiry("2027-03-01T12:00:00Z")).toBe("2027-03-01T12:00:00Z");
    expect(keyExpiry("2027-02-30")).toBe("2027-02-30");
    expect(keyExpiry(undefined)).toBeUndefined();
  });
});
