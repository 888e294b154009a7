// The click streams' calls (docs/api.md, Click streams): list with delivery status, create, edit, remove.
import type { StreamKind } from "@contract/streams";
import { call, ownerQuery, snip } from "../shared/api";

const byId = (id: string) => ({ params: { path: { id } } });

export const streamsApi = {
  listStreams: (owner: string | null) => call(snip.GET("/api/streams", ownerQuery(owner))),
  /** `owner`: in a team owner's account (an admin's, docs/roles.md). */
  createStream: (body: { name: string; kind: StreamKind; url: string }, owner: string | null) =>
    call(snip.POST("/api/streams", { ...ownerQuery(owner), body })).then((r) => r.stream),
  updateStream: (id: string, body: { name?: string; url?: string; active?: boolean }) =>
    call(snip.PATCH("/api/streams/{id}", { ...byId(id), body })).then((r) => r.stream),
  deleteStream: (id: string) => call(snip.DELETE("/api/streams/{id}", byId(id))),
};
