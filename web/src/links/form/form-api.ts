// The link form's calls besides the link itself: the owner's UTM templates (`owner` for a team owner's, as a
// member editing that owner's link).
import { call, ownerQuery, snip } from "../../shared/api";
import type { CreateUtmTemplateInput, UtmTemplate } from "@contract/utm";
import type { ResolveReply } from "@contract/targeting";

let countrySourceOnce: Promise<ResolveReply["country_source"]> | null = null;

export const formApi = {
  utmTemplates: (owner: string | null): Promise<UtmTemplate[]> => call(snip.GET("/api/utm-templates", ownerQuery(owner))).then((r) => r.templates),
  saveUtmTemplate: (body: CreateUtmTemplateInput, owner: string | null): Promise<UtmTemplate> =>
    call(snip.POST("/api/utm-templates", { ...ownerQuery(owner), body })).then((r) => r.template),
  /** Where the server learns visitors' countries (null: none); asked once per page load. */
  countrySource: (): Promise<ResolveReply["country_source"]> =>
    (countrySourceOnce ??= call(snip.GET("/api/links/country-source")).then((r) => r.country_source)),
  deleteUtmTemplate: (id: string) => call(snip.DELETE("/api/utm-templates/{id}", { params: { path: { id } } })),
};
