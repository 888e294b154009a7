// The app turn's answers (src/redirect/app-turn.ts) built from parts around the click id, once per destination, are
// the addresses built in full as before (docs/deep-links.md): every turn, with and without a click id, destinations
// with and without a query or fragment, odd characters, a visit query, and the memo switching between destinations.
import { describe, expect, it } from "vitest";
import { appAnswer, appTurn, linkAppsOf, queryOf, type AppTurn, type LinkApps } from "../../src/redirect/app-turn.js";
import { appStoreUrl, intentUrl } from "../../src/deeplinks/link-apps.js";
import { newClickId } from "../../src/conversions/index.js";
import { IN_APP } from "../helpers/in-app-agents.js";

/** appAnswer as it was written before the parts: every address built in full from its documented form. */
function reference(apps: LinkApps, turn: NonNullable<AppTurn>, destination: string, clickId: string | null, visitQuery: string) {
  const params = [queryOf(destination), visitQuery].filter((q) => q !== "").join("&");
  const referrer = [clickId === null ? "" : `snip_click_id=${encodeURIComponent(clickId)}`, params].filter((p) => p !== "").join("&");
  const play =
    apps.android === null
      ? null
      : `https://play.google.com/store/apps/details?id=${encodeURIComponent(apps.android)}${referrer === "" ? "" : `&referrer=${encodeURIComponent(referrer)}`}`;
  if (turn.kind === "store") return { location: turn.os === "ios" ? appStoreUrl(apps.ios as string) : (play as string) };
  if (turn.kind === "intent") return { location: intentUrl(destination, apps.android, play ?? destination) ?? destination };
  return { location: destination, outside: { store: apps.ios === null ? null : appStoreUrl(apps.ios) } };
}

const DESTINATIONS = [
  "https://example.com/articles/5?utm_source=snip",
  "https://example.com/p",
  "http://example.com/a b?q=é&x=%20y#frag",
  "https://shop.example.com/p?x=1&y=a%26b&z=💡",
  "mailto:someone@example.com",
];
const TURNS: NonNullable<AppTurn>[] = [{ kind: "store", os: "ios" }, { kind: "store", os: "android" }, { kind: "intent" }, { kind: "page" }];

describe("app turn answers", () => {
  it.each([
    ["both apps, way out", "389801252", "com.example.shop", true],
    ["Android only", null, "com.example.shop", true],
    ["iOS only, way out", "389801252", null, true],
    ["way out only", null, null, true],
  ] as const)("%s: the same addresses as built in full, the memo switching destinations", (_name, ios, android, outside) => {
    const apps = linkAppsOf(ios, android, outside) as LinkApps;
    for (let round = 0; round < 2; round++) {
      for (const destination of DESTINATIONS) {
        for (const visitQuery of ["", "utm_campaign=spring&ref=a%2Fb"]) {
          for (const clickId of [newClickId(), "odd id/with+signs", null]) {
            for (const turn of TURNS) {
              if (turn.kind === "store" && (turn.os === "ios" ? ios : android) === null) continue;
              expect(appAnswer(apps, turn, destination, clickId, visitQuery), `${turn.kind} ${destination} ${clickId} ${visitQuery}`).toEqual(
                reference(apps, turn, destination, clickId, visitQuery),
              );
            }
          }
        }
      }
    }
  });

  it("each in-app browser on each system, phones and a desktop get the turn of the documented table, asked again (remembered per agent)", () => {
    const apps = linkAppsOf("389801252", "com.example.shop", true) as LinkApps;
    const closed = linkAppsOf("389801252", "com.example.shop", false) as LinkApps;
    for (let i = 0; i < 2; i++) {
      for (const [app, os, ua] of IN_APP) {
        expect(appTurn(apps, ua), app).toEqual(os === "android" ? { kind: "intent" } : { kind: "page" });
        expect(appTurn(closed, ua), app).toEqual({ kind: "store", os });
      }
      expect(appTurn(apps, "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36")).toBeNull();
    }
  });
});
