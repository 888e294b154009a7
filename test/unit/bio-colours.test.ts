// A custom bio theme's colours as the page draws them (docs/bio-pages.md, Themes): readable text colours kept, a text
// colour below 4.5:1 on its ground drawn black or white (whichever reads better there), the grounds kept; the page's
// style sheet carries what readableBioColours gives, and every pair it draws reaches 4.5:1.
import { describe, expect, it } from "vitest";
import { BIO_MIN_CONTRAST, bioHoverFill, contrastRatio, readableBioColours } from "../../src/contract/form-rules.js";
import { bioPageHtml } from "../../src/http/bio-page.js";
import type { ServedPage } from "../../src/bio/index.js";

const page = (colors: ServedPage["colors"]): ServedPage => ({
  id: "p1",
  domain: "",
  slug: "ada",
  title: "Ada",
  description: null,
  picture_url: null,
  theme: "custom",
  colors,
  items: [{ type: "link", label: "Shop", href: "https://sn.example/shop" }],
  linkKeys: new Set(),
  answer: null,
});

describe("readableBioColours", () => {
  it("keeps colours that read well", () => {
    const c = { background: "#fef3c7", text: "#1f2937", button: "#b45309", button_text: "#ffffff" };
    expect(readableBioColours(c)).toEqual({ colours: c, adjusted: [] });
  });

  it("draws a faint text black or white, whichever reads better on its ground, and keeps the grounds", () => {
    const c = { background: "#FFFF00", text: "#EEEE00", button: "#1e3a8a", button_text: "#233f8f" };
    const { colours, adjusted } = readableBioColours(c);
    expect(colours).toEqual({ background: "#FFFF00", text: "#000000", button: "#1e3a8a", button_text: "#ffffff" });
    expect(adjusted.map((a) => ({ ...a, ratio: Number(a.ratio.toFixed(2)) }))).toEqual([
      { field: "text", given: "#eeee00", ratio: 1.16, shown: "#000000" },
      { field: "button_text", given: "#233f8f", ratio: 1.07, shown: "#ffffff" },
    ]);
  });

  it("puts the line at 4.5:1: #767676 on white (4.54:1) stays, #777777 (4.48:1) does not", () => {
    expect(readableBioColours({ background: "#ffffff", text: "#767676", button: "#000000", button_text: "#ffffff" }).adjusted).toEqual([]);
    expect(readableBioColours({ background: "#ffffff", text: "#777777", button: "#000000", button_text: "#ffffff" }).colours.text).toBe("#000000");
  });

  it("reaches 4.5:1 on any ground: every grey and every primary mix, whatever the text asked for", () => {
    const grounds: string[] = [];
    for (let v = 0; v < 256; v += 5) grounds.push(`#${v.toString(16).padStart(2, "0").repeat(3)}`);
    for (const r of ["00", "80", "ff"]) for (const g of ["00", "80", "ff"]) for (const b of ["00", "80", "ff"]) grounds.push(`#${r}${g}${b}`);
    for (const ground of grounds) {
      const { colours } = readableBioColours({ background: ground, text: ground, button: ground, button_text: ground });
      expect(contrastRatio(colours.text, ground), ground).toBeGreaterThanOrEqual(BIO_MIN_CONTRAST);
      expect(contrastRatio(colours.button_text, ground), ground).toBeGreaterThanOrEqual(BIO_MIN_CONTRAST);
    }
  });

  it("a button under the pointer moves away from its text: the text's contrast grows, and never drops below 4.5:1", () => {
    expect(bioHoverFill("#1e3a8a", "#ffffff")).toBe("#1c357f");
    expect(bioHoverFill("#FDE68A", "#1f2937")).toBe("#fde893");
    // No room that way: the other way, as the text keeps 4.5:1 (white on black), else the fill itself.
    expect(bioHoverFill("#000000", "#ffffff")).toBe("#141414");
    expect(bioHoverFill("#ffffff", "#000000")).toBe("#ebebeb");
    expect(bioHoverFill("#000000", "#767676")).toBe("#000000");
    for (let v = 0; v < 256; v += 3) {
      for (const hue of ["00", "80", "ff"]) {
        const fill = `#${v.toString(16).padStart(2, "0")}${hue}${v.toString(16).padStart(2, "0")}`;
        const { button_text } = readableBioColours({ background: fill, text: fill, button: fill, button_text: fill }).colours;
        const hover = bioHoverFill(fill, button_text);
        expect(contrastRatio(hover, button_text), `${fill} under ${button_text}`).toBeGreaterThanOrEqual(BIO_MIN_CONTRAST);
        if (hover !== fill && contrastRatio(hover, button_text) < contrastRatio(fill, button_text))
          expect(contrastRatio(fill, button_text), `${fill}: moved towards its text only with room to spare`).toBeGreaterThan(BIO_MIN_CONTRAST);
      }
    }
  });

  it("is what the public page's style sheet draws", () => {
    const html = bioPageHtml(page({ background: "#ffff00", text: "#eeee00", button: "#1e3a8a", button_text: "#233f8f" }), "https://sn.example/ada");
    expect(html).toContain(
      ":root{--bg:#ffff00;--text:#000000;--muted:#000000;--primary:#000000;--primary-fill:#1e3a8a;--primary-hover:#1c357f;--on-fill:#ffffff;--surface-2:#ffff00}",
    );
    expect(html).not.toContain("brightness");
    expect(html).not.toContain("#eeee00");
    expect(html).not.toContain("#233f8f");
    const kept = bioPageHtml(page({ background: "#fef3c7", text: "#1f2937", button: "#b45309", button_text: "#ffffff" }), "https://sn.example/ada");
    expect(kept).toContain(":root{--bg:#fef3c7;--text:#1f2937;--muted:#1f2937;--primary:#1f2937;--primary-fill:#b45309;");
  });
});
