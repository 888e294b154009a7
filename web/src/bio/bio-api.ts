// The bio pages' calls (docs/bio-pages.md).
import { call, snip } from "../shared/api";
import type { BioPage, CreateBioPageInput, UpdateBioPageInput } from "@contract/bio-pages";

const byId = (id: string) => ({ params: { path: { id } } });

export const bioApi = {
  list: () => call(snip.GET("/api/bio-pages")).then((r) => r.pages as BioPage[]),
  get: (id: string) => call(snip.GET("/api/bio-pages/{id}", byId(id))).then((r) => r.page as BioPage),
  create: (body: CreateBioPageInput) => call(snip.POST("/api/bio-pages", { body })).then((r) => r.page as BioPage),
  update: (id: string, body: UpdateBioPageInput) => call(snip.PATCH("/api/bio-pages/{id}", { ...byId(id), body })).then((r) => r.page as BioPage),
  remove: (id: string) => call(snip.DELETE("/api/bio-pages/{id}", byId(id))),
};
