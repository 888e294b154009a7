// QR code images (docs/api.md, QR codes): the query of GET /api/qr/{alias}. The design rules and their
// messages live in form-rules.ts, where the dashboard checks a design before asking for it.
import { type Static, Type } from "typebox";
import { QR_DEFAULT_DESIGN, QR_DEFAULT_PX, QR_ECLS, type QrEcl, QR_MARGIN_MAX, QR_MAX_PX, QR_MIN_CONTRAST, QR_MIN_PX } from "./form-rules.js";

// Colours are loose strings here so that a wrong one gets form-rules' message, not a pattern's.
const Colour = (what: string, dflt: string) =>
  Type.Optional(
    Type.String({
      maxLength: 32,
      description: `${what} as 6 hex digits, with or without a leading # (%23): default ${dflt.slice(1)}`,
      examples: [dflt.slice(1)],
    }),
  );

export const QrQuery = Type.Object(
  {
    domain: Type.Optional(Type.String({ maxLength: 300, description: "The link's custom domain; default the main host" })),
    format: Type.Optional(Type.Union([Type.Literal("svg"), Type.Literal("png")], { description: "Default svg" })),
    size: Type.Optional(Type.Integer({ minimum: QR_MIN_PX, maximum: QR_MAX_PX, description: `Width and height in pixels; default ${QR_DEFAULT_PX}` })),
    fg: Colour("Colour of the dark modules", QR_DEFAULT_DESIGN.fg),
    bg: Colour(
      `Background colour. The contrast with fg must be at least ${QR_MIN_CONTRAST}:1 (WCAG) and fg the darker of the two, else 400 naming the field`,
      QR_DEFAULT_DESIGN.bg,
    ),
    margin: Type.Optional(
      Type.Integer({ minimum: 0, maximum: QR_MARGIN_MAX, description: `Quiet zone around the code, in modules; default ${QR_DEFAULT_DESIGN.margin}` }),
    ),
    ecl: Type.Optional(
      Type.Unsafe<QrEcl>({
        type: "string",
        enum: [...QR_ECLS],
        description: `Error-correction level (L 7%, M 15%, Q 25%, H 30% of the code restored); default ${QR_DEFAULT_DESIGN.ecl}, H with logo=1`,
      }),
    ),
    logo: Type.Optional(
      Type.Unsafe<"0" | "1">({
        type: "string",
        enum: ["0", "1"],
        description:
          "1: the link owner's profile picture in the centre (needs ecl Q or H). Only for the owner and active members of the owner's team, " +
          "signed in; without a picture the code is drawn without a logo (header QR-Logo: none)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type QrQueryInput = Static<typeof QrQuery>;
