// The link builder's app destinations (docs/deep-links.md), in the "Device and app destinations" row beside the iOS
// and Android addresses: the App Store id and Android package phones are sent to the store of, the in-app path, and
// the way out of in-app browsers (on, off or the account's default).
import { Field } from "../../shared/ui";
import type { OptionProps } from "./Options";

const OUTSIDE_CHOICES: ReadonlyArray<readonly ["" | "on" | "off", string]> = [
  ["", "Account default"],
  ["on", "On"],
  ["off", "Off"],
];

export function AppOptions({ values, errors, set }: OptionProps) {
  return (
    <div className="grid-2" data-testid="link-apps">
      <Field id="link-app-ios" label="App Store id (optional)" error={errors.app_ios_store_id} hint="iPhones without the app go to its App Store page.">
        <input
          id="link-app-ios"
          data-testid="link-app-ios"
          type="text"
          inputMode="numeric"
          placeholder="389801252"
          value={values.app_ios_store_id}
          onChange={(e) => set("app_ios_store_id", e.target.value)}
        />
      </Field>
      <Field id="link-app-android" label="Android package (optional)" error={errors.app_android_package} hint="Android phones go to its Play Store page.">
        <input
          id="link-app-android"
          data-testid="link-app-android"
          type="text"
          placeholder="com.example.shop"
          autoCapitalize="off"
          spellCheck={false}
          value={values.app_android_package}
          onChange={(e) => set("app_android_package", e.target.value)}
        />
      </Field>
      <Field id="link-app-path" label="In-app path (optional)" error={errors.app_path} hint="The screen the app opens, e.g. /product/42.">
        <input
          id="link-app-path"
          data-testid="link-app-path"
          type="text"
          placeholder="/product/42"
          autoCapitalize="off"
          spellCheck={false}
          value={values.app_path}
          onChange={(e) => set("app_path", e.target.value)}
        />
      </Field>
      <Field
        id="link-open-outside"
        label="Open outside in-app browsers"
        error={errors.open_outside}
        hint="On: visitors in Instagram, TikTok or Facebook's browser get a way out to the app or their own browser."
      >
        <select
          id="link-open-outside"
          data-testid="link-open-outside"
          value={values.open_outside}
          onChange={(e) => set("open_outside", e.target.value as "" | "on" | "off")}
        >
          {OUTSIDE_CHOICES.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
}
