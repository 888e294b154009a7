// Bio pages (docs/bio-pages.md): the public shapes of `GET/POST /api/bio-pages` and `GET/PATCH/DELETE /api/bio-pages/{id}`.
import { type Static, Type } from "typebox";
import { Body, Nullable, StringEnum } from "./common.js";
import { BIO_SOCIAL_NETWORKS, BIO_THEMES, MAX_BIO_BLOCKS, MAX_BIO_DESCRIPTION, MAX_BIO_PAGES_PER_OWNER, MAX_BIO_TEXT, MAX_BIO_TITLE } from "./tables.js";

export { BIO_SOCIAL_NETWORKS, BIO_THEMES, MAX_BIO_BLOCKS, MAX_BIO_DESCRIPTION, MAX_BIO_PAGES_PER_OWNER, MAX_BIO_TEXT, MAX_BIO_TITLE };
export type BioTheme = (typeof BIO_THEMES)[number];
export type BioSocialNetwork = (typeof BIO_SOCIAL_NETWORKS)[number];

/** The longest slug, URL and label, in characters. */
export const MAX_BIO_URL = 2048;
export const MAX_BIO_LABEL = 100;

const Colour = (description: string) => Type.String({ pattern: "^#[0-9a-fA-F]{6}$", maxLength: 7, description: `${description} (#rrggbb)` });

export const BioColorsSchema = Type.Object(
  {
    background: Colour("The page's background"),
    text: Colour("The page's text"),
    button: Colour("The buttons' fill"),
    button_text: Colour("The buttons' text"),
  },
  { additionalProperties: false },
);
export type BioColors = Static<typeof BioColorsSchema>;

const LinkBlock = Type.Object(
  {
    type: Type.Literal("link"),
    link_id: Type.String({ maxLength: 64, description: "A link of the page's account: the button opens its short URL" }),
    label: Type.String({ maxLength: 1000, description: `The button's text (1-${MAX_BIO_LABEL} characters)` }),
  },
  { additionalProperties: false },
);
const HeadingBlock = Type.Object(
  { type: Type.Literal("heading"), text: Type.String({ maxLength: 1000, description: `1-${MAX_BIO_LABEL} characters` }) },
  { additionalProperties: false },
);
const TextBlock = Type.Object(
  { type: Type.Literal("text"), text: Type.String({ maxLength: 2000, description: `1-${MAX_BIO_TEXT} characters` }) },
  { additionalProperties: false },
);
const SocialBlock = Type.Object(
  {
    type: Type.Literal("social"),
    network: StringEnum(BIO_SOCIAL_NETWORKS, "The network its icon names"),
    url: Type.String({ maxLength: 4096, description: "An http(s) address (mailto: for email)" }),
  },
  { additionalProperties: false },
);

export const BioBlockInput = Type.Union([LinkBlock, HeadingBlock, TextBlock, SocialBlock]);
export type BioBlockInput = Static<typeof BioBlockInput>;

/** A block as answered: a link block also carries its button's short URL and clicks (null: the link is gone). */
export const BioBlockSchema = Type.Union([
  Type.Object({
    type: Type.Literal("link"),
    link_id: Type.String(),
    label: Type.String(),
    short_url: Nullable(Type.String({ description: "The link's short URL, where the button goes; null when the link was deleted" })),
    clicks: Type.Integer({ description: "The link's clicks (every click of the link, from the page or elsewhere)" }),
  }),
  Type.Object({ type: Type.Literal("heading"), text: Type.String() }),
  Type.Object({ type: Type.Literal("text"), text: Type.String() }),
  Type.Object({ type: Type.Literal("social"), network: StringEnum(BIO_SOCIAL_NETWORKS, "The network"), url: Type.String() }),
]);
export type BioBlock = Static<typeof BioBlockSchema>;

export const BioPageSchema = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  domain_id: Nullable(Type.String({ description: "The custom domain it is served on; null: the instance's main host" })),
  domain: Nullable(Type.String({ description: "That domain's hostname; null: the main host" })),
  url: Type.String({ description: "The page's address" }),
  title: Type.String(),
  description: Nullable(Type.String()),
  picture_url: Nullable(Type.String()),
  theme: StringEnum(BIO_THEMES, "auto: the visitor's light or dark setting; custom: colors"),
  colors: Nullable(BioColorsSchema),
  blocks: Type.Array(BioBlockSchema),
  views: Type.Integer({ description: "The page's own visits since it was made (not clicks on its buttons)" }),
  clicks: Type.Integer({ description: "The sum of its buttons' clicks" }),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type BioPage = Static<typeof BioPageSchema>;

const fields = {
  slug: Type.String({ maxLength: 200, description: "Its path: /{slug} on its host (an alias's syntax; never an alias in use there)" }),
  domain_id: Type.Optional(Nullable(Type.String({ maxLength: 64, description: "A verified custom domain of the account; absent or null: the main host" }))),
  title: Type.String({ maxLength: 1000, description: `1-${MAX_BIO_TITLE} characters` }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 4000, description: `Up to ${MAX_BIO_DESCRIPTION} characters` }))),
  picture_url: Type.Optional(Nullable(Type.String({ maxLength: 4096, description: "An http(s) image address" }))),
  theme: Type.Optional(StringEnum(BIO_THEMES, "Default auto")),
  colors: Type.Optional(Nullable(BioColorsSchema)),
  blocks: Type.Array(BioBlockInput, { maxItems: MAX_BIO_BLOCKS, description: `Top to bottom; at most ${MAX_BIO_BLOCKS}` }),
};

export const CreateBioPageBody = Body(fields);
export type CreateBioPageInput = Static<typeof CreateBioPageBody>;

export const UpdateBioPageBody = Body({
  slug: Type.Optional(fields.slug),
  domain_id: fields.domain_id,
  title: Type.Optional(fields.title),
  description: fields.description,
  picture_url: fields.picture_url,
  theme: fields.theme,
  colors: fields.colors,
  blocks: Type.Optional(fields.blocks),
});
export type UpdateBioPageInput = Static<typeof UpdateBioPageBody>;

export const BioPageReply = Type.Object({ status: Type.Literal("success"), page: BioPageSchema });
export const BioPageListReply = Type.Object({
  status: Type.Literal("success"),
  pages: Type.Array(BioPageSchema, { description: `Newest first; at most ${MAX_BIO_PAGES_PER_OWNER}` }),
});
