// UTM templates (docs/api.md, UTM templates): an owner's saved utm_* values, shared by the server's routes
// and the dashboard's link form.
import { type Static, Type } from "typebox";
import { Body, Nullable } from "./common.js";

// The parameters and limits live with the form rules: the dashboard's UTM builder reads them too.
export { MAX_UTM_TEMPLATE_NAME, MAX_UTM_VALUE, UTM_PARAMS, type UtmParam } from "./form-rules.js";

const Value = (description: string) => Nullable(Type.String({ description }));

export const UtmTemplateSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  utm_source: Value("null when the template leaves the parameter out"),
  utm_medium: Value("null when the template leaves the parameter out"),
  utm_campaign: Value("null when the template leaves the parameter out"),
  utm_term: Value("null when the template leaves the parameter out"),
  utm_content: Value("null when the template leaves the parameter out"),
  created_at: Type.String(),
});
export type UtmTemplate = Static<typeof UtmTemplateSchema>;

// Lengths here only stop absurd payloads early; the utm feature owns the rules and their messages.
const Given = Type.Optional(Nullable(Type.String({ maxLength: 2000 })));
export const CreateUtmTemplateBody = Body({
  name: Type.String({ maxLength: 400 }),
  utm_source: Given,
  utm_medium: Given,
  utm_campaign: Given,
  utm_term: Given,
  utm_content: Given,
});
export type CreateUtmTemplateInput = Static<typeof CreateUtmTemplateBody>;

/** `?owner=`: a team owner's templates instead of the caller's. */
export const UtmOwnerQuery = Type.Object(
  { owner: Type.Optional(Type.String({ maxLength: 64, description: "A team owner's user id: that owner's templates, for an active member (404 otherwise)" })) },
  { additionalProperties: false },
);

export const UtmTemplateReply = Type.Object({ status: Type.Literal("success"), template: UtmTemplateSchema });
export type UtmTemplateReply = Static<typeof UtmTemplateReply>;
export const UtmTemplateListReply = Type.Object({ status: Type.Literal("success"), templates: Type.Array(UtmTemplateSchema) });
export type UtmTemplateListReply = Static<typeof UtmTemplateListReply>;
