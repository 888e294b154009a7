// Links that open apps (docs/deep-links.md): the apps a host is associated with, as its owner sets them
// (`PUT /api/domains/{id}/apps`, the operator's `PUT /api/admin/apps` for the main host), and the two files the
// phones' systems read from the host (`/.well-known/apple-app-site-association`, `/.well-known/assetlinks.json`).
import { Type, type Static } from "typebox";
import { Body, Nullable } from "./common.js";

/** At most this many apps of each system per host. */
export const MAX_APPS = 10;
/** At most this many path patterns per iOS app, and signing-certificate fingerprints per Android app. */
export const MAX_APP_PATHS = 50;
export const MAX_FINGERPRINTS = 10;

export const IosAppSchema = Type.Object(
  {
    app_id: Type.String({ maxLength: 200, description: "TEAMID.bundle.id: the 10-character Team ID, a dot, the bundle identifier" }),
    paths: Type.Optional(
      Type.Array(Type.String({ maxLength: 256 }), {
        maxItems: MAX_APP_PATHS,
        description:
          "Path patterns the app opens (* and ? as Apple's components read them); absent or empty: every short link. /api, /app and snip's own pages never",
      }),
    ),
    webcredentials: Type.Optional(Type.Boolean({ description: "Also list the app under webcredentials (shared passwords and passkeys)" })),
  },
  { additionalProperties: false },
);
export const AndroidAppSchema = Type.Object(
  {
    package: Type.String({ maxLength: 255, description: "The application id, e.g. com.example.shop" }),
    sha256_cert_fingerprints: Type.Array(Type.String({ maxLength: 100 }), {
      minItems: 1,
      maxItems: MAX_FINGERPRINTS,
      description: "SHA-256 fingerprints of the app's signing certificates, 32 hex pairs separated by colons",
    }),
  },
  { additionalProperties: false },
);

export const AppsBody = Body({
  ios: Type.Optional(Type.Array(IosAppSchema, { maxItems: MAX_APPS })),
  android: Type.Optional(Type.Array(AndroidAppSchema, { maxItems: MAX_APPS })),
});
export type AppsBody = Static<typeof AppsBody>;

export const AppsSchema = Type.Object({
  ios: Type.Array(
    Type.Object({ app_id: Type.String(), paths: Type.Array(Type.String({ description: "empty: every short link" })), webcredentials: Type.Boolean() }),
  ),
  android: Type.Array(Type.Object({ package: Type.String(), sha256_cert_fingerprints: Type.Array(Type.String()) })),
  updated_at: Nullable(Type.String({ description: "null: never set" })),
});
export type Apps = Static<typeof AppsSchema>;

export const AppsReply = Type.Object({
  status: Type.Literal("success"),
  host: Type.String({ description: "The host the files are served from" }),
  apps: AppsSchema,
  files: Type.Object({
    apple_app_site_association: Nullable(
      Type.Unknown({ description: "The JSON iOS reads from /.well-known/apple-app-site-association; null: not served (404)" }),
    ),
    assetlinks: Nullable(Type.Unknown({ description: "The JSON Android reads from /.well-known/assetlinks.json; null: not served (404)" })),
  }),
});
export type AppsReply = Static<typeof AppsReply>;

/** The account's default for its links' way out of in-app browsers (`GET|PATCH /api/deeplinks/settings`). */
export const DeepLinkSettingsSchema = Type.Object({
  open_outside: Type.Boolean({ description: "Visitors of the account's links in an in-app browser get a way out, unless a link says otherwise" }),
});
export type DeepLinkSettings = Static<typeof DeepLinkSettingsSchema>;
export const UpdateDeepLinkSettingsBody = Body({ open_outside: Type.Optional(Type.Boolean()) });
export type UpdateDeepLinkSettingsBody = Static<typeof UpdateDeepLinkSettingsBody>;
export const DeepLinkSettingsReply = Type.Object({ status: Type.Literal("success"), settings: DeepLinkSettingsSchema });

/** A click id as the redirect makes them: 24 characters of base64url (conversions/tracked-clicks.ts). */
export const CLICK_ID_PATTERN = "^[A-Za-z0-9_-]{24}$";
/** A system version as apps report it: "17", "17.4", "17.4.1". */
export const OS_VERSION_PATTERN = "^[0-9]{1,3}(\\.[0-9]{1,3}){0,2}$";
/** A device model: printable ASCII ("iPhone", "iPhone15,2", "Pixel 8"). */
export const DEVICE_MODEL_PATTERN = "^[\\x20-\\x7E]{1,64}$";
/** A language tag ("en", "en-US", "pt_BR"). */
export const LANGUAGE_PATTERN = "^[A-Za-z]{2,3}([_-][A-Za-z0-9]{1,8}){0,3}$";

export const DeepLinkOpenBody = Body({
  click_id: Type.Optional(
    Type.String({ pattern: CLICK_ID_PATTERN, description: "Android: snip_click_id from the Play Store's install referrer (deterministic, an install)" }),
  ),
  url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: "The short link's address the app was opened with (universal link, app link): deterministic, an open",
    }),
  ),
  platform: Type.Optional(Type.Union([Type.Literal("ios"), Type.Literal("android")], { description: "First launch (probabilistic): the device's system" })),
  os_version: Type.Optional(Type.String({ pattern: OS_VERSION_PATTERN, description: "First launch: the system's version, e.g. 17.4.1" })),
  device_model: Type.Optional(Type.String({ pattern: DEVICE_MODEL_PATTERN, description: "First launch: the device model, e.g. iPhone or iPhone15,2" })),
  language: Type.Optional(Type.String({ pattern: LANGUAGE_PATTERN, description: "First launch: the device's first language, e.g. en-US" })),
});
export type DeepLinkOpenBody = Static<typeof DeepLinkOpenBody>;

export const DeepLinkOpenReply = Type.Object({
  status: Type.Literal("success"),
  match: Type.Union([Type.Literal("deterministic"), Type.Literal("probabilistic"), Type.Literal("none")]),
  link: Nullable(Type.Object({ id: Type.String(), alias: Type.String(), url: Type.String({ description: "The link's destination" }) })),
  path: Nullable(Type.String({ description: "The link's app_path: where the app opens; null without one" })),
  params: Type.Record(Type.String(), Type.String(), {
    description: "The destination's query parameters and the visit's (the visit's win a name both have); {} without any",
  }),
});
export type DeepLinkOpenReply = Static<typeof DeepLinkOpenReply>;
