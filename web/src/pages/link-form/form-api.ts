// The link form's calls besides the link itself: the owner's tags and UTM templates (`owner` for a team
// owner's, as a member editing that owner's link).
import { request } from "../../api";
import type { TagListItem, TagListReply } from "@contract/tags";
import type { CreateUtmTemplateInput, UtmTemplate, UtmTemplateListReply, UtmTemplateReply } from "@contract/utm";

const ownerQuery = (owner: string | null) => (owner ? `?${new URLSearchParams({ owner })}` : "");

export const formApi = {
  tags: (owner: string | null): Promise<TagListItem[]> => request<TagListReply>("GET", `/api/tags${ownerQuery(owner)}`).then((r) => r.tags),
  utmTemplates: (owner: string | null): Promise<UtmTemplate[]> =>
    request<UtmTemplateListReply>("GET", `/api/utm-templates${ownerQuery(owner)}`).then((r) => r.templates),
  saveUtmTemplate: (body: CreateUtmTemplateInput, owner: string | null): Promise<UtmTemplate> =>
    request<UtmTemplateReply>("POST", `/api/utm-templates${ownerQuery(owner)}`, { body }).then((r) => r.template),
  deleteUtmTemplate: (id: string) => request("DELETE", `/api/utm-templates/${encodeURIComponent(id)}`),
};
