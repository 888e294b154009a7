// The rules and messages of the dashboard's form fields, shared by the server's checks and the
// dashboard's checks before submitting, so a field says the same thing whichever side caught it.

export const MAX_URL_LENGTH = 2048;
export const ALIAS_RE = /^[A-Za-z0-9_-]{3,64}$/;
export const MAX_CLICKS_LIMIT = 1_000_000_000;
export const MAX_LINK_PASSWORD = 200;
export const ACCOUNT_PASSWORD_MIN = 10;
export const ACCOUNT_PASSWORD_MAX = 200;
export const MAX_NAME = 100;
export const MAX_LINK_TITLE = 200;
export const MAX_LINK_NOTE = 1000;
export const MAX_TAGS_PER_LINK = 10;
export const MAX_PREVIEW_TITLE = 200;
export const MAX_PREVIEW_DESCRIPTION = 500;

export const MESSAGES = {
  urlRequired: "Enter the destination URL",
  urlNotFull: "Enter a full URL such as https://example.com",
  urlTooLong: `Use a URL of at most ${MAX_URL_LENGTH} characters`,
  urlSpaces: "Remove the spaces from the URL",
  urlCredentials: "Remove the user name and password from the URL",
  urlBadHost: "The host name of this URL is not valid; enter a full URL such as https://example.com",
  urlLoops: "This URL leads back to this service; enter another destination",
  hostBlocked: (host: string) => `This host (${host}) is blocked on this service`,
  urlListed: "This address is listed by a threat feed and blocked on this service",
  alias: "Use 3 to 64 letters, digits, '-' or '_'",
  aliasReserved: (alias: string) => `"${alias}" is reserved; choose another alias`,
  aliasTaken: "This alias is already taken; choose another",
  aliasRemoved: "An alias cannot be removed; choose another",
  expiryFormat: "Enter a date and time such as 2026-11-21T10:00:00.000Z",
  expiryPast: "This date is in the past; choose a later one",
  expiryTooFar: "Choose a date before the year 10000",
  startsBeforeExpiry: "Choose a start date before the expiry date",
  redirectStatus: "Choose 301, 302, 307 or 308",
  maxClicks: `Enter a whole number from 1 to ${MAX_CLICKS_LIMIT.toLocaleString("en")}`,
  linkPasswordEmpty: "Enter a password, or leave the field empty for none",
  linkPasswordLong: `Use at most ${MAX_LINK_PASSWORD} characters`,
  titleLong: `Use at most ${MAX_LINK_TITLE} characters`,
  noteLong: `Use at most ${MAX_LINK_NOTE} characters`,
  textControl: "Remove the control characters",
  tooManyTags: `A link has at most ${MAX_TAGS_PER_LINK} tags`,
  previewTitleLong: `Use at most ${MAX_PREVIEW_TITLE} characters`,
  previewDescriptionLong: `Use at most ${MAX_PREVIEW_DESCRIPTION} characters`,
  previewImageHttps: "Enter an https:// address of an image",
  email: "Enter an email address such as you@example.com",
  passwordShort: `Use at least ${ACCOUNT_PASSWORD_MIN} characters`,
  passwordLong: `Use at most ${ACCOUNT_PASSWORD_MAX} characters`,
  nameLong: `Use at most ${MAX_NAME} characters`,
  hostnameRequired: "Enter a host name such as links.example.com",
  hostnameAlone: "Enter the host name alone, such as links.example.com (no port, path or spaces)",
  hostnameIp: "Enter a domain name, not an IP address",
  hostnameInvalid: "Enter a valid domain name such as links.example.com",
  hostnameOwn: "This is this service's own host name",
} as const;

/** Redirect rules and splits (links/link-targeting.ts; the dashboard's editor shows the same words). */
export const TARGETING_MESSAGES = {
  listEmpty: "Give at least one value, or remove this condition",
  listLong: (max: number) => `Give at most ${max} values`,
  country: (c: string) => `"${c}" is not a two-letter country code such as FR or US`,
  language: (l: string) => `"${l}" is not a language such as fr or fr-BE`,
  device: "Choose among ios, android, mobile, tablet, desktop and bot",
  name: "Use 1 to 40 characters without control characters",
  query: "Give query parameters as name and value (* for any value)",
  host: (h: string) => `"${h}" is not a host name such as news.example.com`,
  instant: "Enter a date and time such as 2026-11-21T10:00:00.000Z",
  beforeAfter: "Choose a time after the rule's start",
  noCondition: "Give the rule at least one condition",
  tooManyRules: "A link has at most 20 rules",
  variants: "A split has 2 to 4 variants",
  weight: "Enter a whole percentage from 1 to 99",
  weightsSum: "The variants' weights must add up to 100",
} as const;

/** A field's problem in the user's words, as the server's `details` carry it. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** The quick checks of a destination URL (the server also checks the host name and the blocklist). */
export function destinationProblem(raw: string): string | null {
  const value = raw.trim();
  if (value === "") return MESSAGES.urlRequired;
  if (value.length > MAX_URL_LENGTH) return MESSAGES.urlTooLong;
  // Words with spaces and no scheme (`not a url`) are no address at all: the spaces are not what is wrong.
  if (!/^https?:\/\//i.test(value)) return MESSAGES.urlNotFull;
  if (/[\u0000-\u001f\u007f\s]/.test(value)) return MESSAGES.urlSpaces;
  if (!/^https?:\/\/[^/?#]/i.test(value)) return MESSAGES.urlNotFull;
  return null;
}

export function aliasProblem(alias: string): string | null {
  return ALIAS_RE.test(alias) ? null : MESSAGES.alias;
}

export function maxClicksProblem(value: number): string | null {
  return Number.isInteger(value) && value >= 1 && value <= MAX_CLICKS_LIMIT ? null : MESSAGES.maxClicks;
}

export function expiryProblem(ms: number, now: number): string | null {
  if (!Number.isFinite(ms)) return MESSAGES.expiryFormat;
  return ms <= now ? MESSAGES.expiryPast : null;
}

export function accountPasswordProblem(password: string): string | null {
  if (password.length < ACCOUNT_PASSWORD_MIN) return MESSAGES.passwordShort;
  return password.length > ACCOUNT_PASSWORD_MAX ? MESSAGES.passwordLong : null;
}

export const EMAIL_RE = /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function emailProblem(raw: string): string | null {
  const email = raw.trim();
  return email.length > 254 || !EMAIL_RE.test(email) ? MESSAGES.email : null;
}

/**
 * What a user typed for a custom domain, reduced to the host name: a pasted address such as
 * `https://Go.Example.com/` keeps its host; a port, path, query or credentials stay and are refused.
 */
export function typedHostname(raw: string): string {
  const typed = raw.trim();
  const m = /^https?:\/\/([^/?#@:\s]+)\/?$/i.exec(typed);
  return m ? (m[1] as string) : typed;
}

// ---- QR code design (GET /api/qr/{alias}) -------------------------------------------------------

export const QR_MIN_PX = 128;
export const QR_MAX_PX = 2048;
export const QR_DEFAULT_PX = 256;
export const QR_MARGIN_MAX = 10;
export const QR_ECLS = ["L", "M", "Q", "H"] as const;
export type QrEcl = (typeof QR_ECLS)[number];
/** Error-correction levels that leave room for a centre logo (Q restores 25% of the code, H 30%). */
export const QR_LOGO_ECLS: readonly QrEcl[] = ["Q", "H"];
/** Dark modules on white, 2 modules of quiet zone, level M: what a code without options looks like. */
export const QR_DEFAULT_DESIGN = { fg: "#000000", bg: "#ffffff", margin: 2, ecl: "M" as QrEcl } as const;
/** WCAG's contrast for graphics (1.4.11): below it phone cameras in poor light miss modules. */
export const QR_MIN_CONTRAST = 3;

export const QR_MESSAGES = {
  colour: "Enter a colour as 6 hex digits, such as 1a2b3c",
  lowContrast: (other: "background" | "foreground", ratio: string) =>
    `Too close to the ${other} (contrast ${ratio}:1); scanners need at least ${QR_MIN_CONTRAST}:1`,
  lightOnDark: "Use a foreground darker than the background: many scanners cannot read light codes on a dark ground",
  logoEcl: "A logo needs error correction Q or H",
} as const;

/** `1a2b3c` or `#1A2B3C` as `#1a2b3c`; null for anything else. */
export function parseQrColour(raw: string): string | null {
  return /^#?[0-9a-fA-F]{6}$/.test(raw) ? `#${raw.replace(/^#/, "").toLowerCase()}` : null;
}

/** WCAG 2 relative luminance of a `#rrggbb` colour (0 black to 1 white). */
export function relativeLuminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours, from 1 (same) to 21 (black on white). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** WCAG AA's contrast for text (1.4.3): a custom bio page's text on its background, and its buttons' text on their fill. */
export const BIO_MIN_CONTRAST = 4.5;

/** A custom bio theme's colours, each `#rrggbb` (contract/bio-pages.ts, BioColors). */
export interface BioThemeColours {
  background: string;
  text: string;
  button: string;
  button_text: string;
}

/** A text colour the page replaced: which, the owner's colour, its contrast on its ground, and what is shown instead. */
export interface BioColourAdjustment {
  field: "text" | "button_text";
  given: string;
  ratio: number;
  shown: "#000000" | "#ffffff";
}

/**
 * The colours a custom bio page is drawn with (docs/bio-pages.md, Themes): the owner's, except a text colour below
 * BIO_MIN_CONTRAST on its ground (the text on the background, the buttons' text on their fill), which is drawn black or
 * white, whichever reads better there (one of the two reaches 4.58:1 on any ground). The grounds stay the owner's.
 */
export function readableBioColours(c: BioThemeColours): { colours: BioThemeColours; adjusted: BioColourAdjustment[] } {
  const adjusted: BioColourAdjustment[] = [];
  const readable = (field: BioColourAdjustment["field"], ground: string): string => {
    const given = c[field].toLowerCase();
    const ratio = contrastRatio(given, ground);
    if (ratio >= BIO_MIN_CONTRAST) return c[field];
    const shown = contrastRatio("#000000", ground) >= contrastRatio("#ffffff", ground) ? "#000000" : "#ffffff";
    adjusted.push({ field, given, ratio, shown });
    return shown;
  };
  const colours = { ...c, text: readable("text", c.background), button_text: readable("button_text", c.button) };
  return { colours, adjusted };
}

/** How far a custom bio page's button fill moves under the pointer, towards black or white. */
const HOVER_SHIFT = 0.08;

/** `hex` moved HOVER_SHIFT of the way to black (`darker`) or to white. */
function shade(hex: string, darker: boolean): string {
  const moved = [1, 3, 5].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16);
    return Math.round(darker ? v * (1 - HOVER_SHIFT) : v + (255 - v) * HOVER_SHIFT);
  });
  return `#${moved.map((v) => v.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * A custom bio page's button fill under the pointer (docs/bio-pages.md, Themes): the fill moved away from its text's
 * lightness, so that the text's contrast only grows; where the fill has no room that way (black under light text,
 * white under dark), the other way while the text keeps BIO_MIN_CONTRAST; else the fill itself.
 */
export function bioHoverFill(button: string, buttonText: string): string {
  const fill = button.toLowerCase();
  const away = shade(fill, relativeLuminance(buttonText) > relativeLuminance(fill));
  if (away !== fill) return away;
  const toward = shade(fill, relativeLuminance(buttonText) <= relativeLuminance(fill));
  return contrastRatio(toward, buttonText) >= BIO_MIN_CONTRAST ? toward : fill;
}

/** The design options as a client sends them (absent: the default). */
export interface QrDesignInput {
  fg?: string;
  bg?: string;
  ecl?: QrEcl;
  logo?: boolean;
}

/**
 * Every problem of a design at once. A contrast problem is reported on the colour the caller chose: on
 * `bg` when only the background was given, else on `fg`. A light foreground on a dark background is
 * refused whatever the ratio: phone cameras mostly read it, many dedicated scanners and older apps do not.
 */
export function qrDesignProblems(input: QrDesignInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const fg = input.fg === undefined ? QR_DEFAULT_DESIGN.fg : parseQrColour(input.fg);
  const bg = input.bg === undefined ? QR_DEFAULT_DESIGN.bg : parseQrColour(input.bg);
  if (!fg) problems.push({ field: "fg", message: QR_MESSAGES.colour });
  if (!bg) problems.push({ field: "bg", message: QR_MESSAGES.colour });
  if (fg && bg) {
    const onBg = input.fg === undefined && input.bg !== undefined;
    const field = onBg ? "bg" : "fg";
    const ratio = contrastRatio(fg, bg);
    if (relativeLuminance(fg) > relativeLuminance(bg)) problems.push({ field, message: QR_MESSAGES.lightOnDark });
    // Rounded down, so that a refused 2.996 never reads as "3.0".
    else if (ratio < QR_MIN_CONTRAST)
      problems.push({ field, message: QR_MESSAGES.lowContrast(onBg ? "foreground" : "background", (Math.floor(ratio * 10) / 10).toFixed(1)) });
  }
  if (input.logo && input.ecl !== undefined && !QR_LOGO_ECLS.includes(input.ecl)) problems.push({ field: "ecl", message: QR_MESSAGES.logoEcl });
  return problems;
}

/** The query parameters the link form's UTM builder edits, in the order it shows them. */
export const UTM_PARAMS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;
export type UtmParam = (typeof UTM_PARAMS)[number];
export const MAX_UTM_TEMPLATE_NAME = 40;
export const MAX_UTM_VALUE = 200;
