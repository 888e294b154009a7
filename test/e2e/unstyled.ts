// Fields left in the browser's own look: every visible text-like input, select and textarea of the page compared,
// in its computed border, padding and font, with a field of the same kind and type in a shadow root (where the
// page's stylesheet does not reach, so it has the browser's defaults, in the page's colour scheme). A field the
// stylesheet missed (an <input> without a type, before issue 55) matches it in all three. The walk of every page
// (every-page.test.ts) calls it on each page it opens; eslint's rule on <input> without a type is the cheap half.
import type { Page } from "playwright-core";

/** The fields of the page as it is now that look as the browser draws them unstyled, each named for the failure. */
export function unstyledFields(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const SKIP = ["checkbox", "radio", "hidden", "file", "color", "range", "submit", "button", "reset", "image"];
    const host = document.createElement("div");
    host.style.cssText = "position:absolute;left:-10000px;top:0";
    const root = host.attachShadow({ mode: "open" });
    document.body.append(host);
    const look = (el: Element) => {
      const cs = getComputedStyle(el);
      return {
        border: ["border-top-width", "border-top-style", "border-top-color", "border-top-left-radius"].map((p) => cs.getPropertyValue(p)).join(" "),
        padding: ["padding-top", "padding-right", "padding-bottom", "padding-left"].map((p) => cs.getPropertyValue(p)).join(" "),
        font: `${cs.fontFamily} ${cs.fontSize}`,
      };
    };
    const name = (el: Element) => {
      const testId = el.getAttribute("data-testid");
      const type = el.getAttribute("type");
      return `<${el.tagName.toLowerCase()}${el.id ? ` id="${el.id}"` : ""}${testId ? ` data-testid="${testId}"` : ""}${type ? ` type="${type}"` : " (no type)"}>`;
    };
    const found: string[] = [];
    for (const el of document.querySelectorAll("input, select, textarea")) {
      const type = el instanceof HTMLInputElement ? el.type : "";
      if (SKIP.includes(type)) continue;
      const box = el.getBoundingClientRect();
      // Hidden, or visually hidden (1 px, clipped): nothing anyone sees.
      if (box.width <= 2 || box.height <= 2 || getComputedStyle(el).visibility === "hidden") continue;
      const ref = document.createElement(el.tagName.toLowerCase());
      if (el.getAttribute("type") !== null) ref.setAttribute("type", el.getAttribute("type") as string);
      root.append(ref);
      const [a, b] = [look(el), look(ref)];
      ref.remove();
      if (a.border === b.border && a.padding === b.padding && a.font === b.font) found.push(name(el));
    }
    host.remove();
    return found;
  });
}
