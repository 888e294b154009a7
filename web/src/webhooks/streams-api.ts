// The click streams' calls (docs/api.md, Click streams): list with delivery status, create, edit, remove.
import type { StreamKind } from "@contract/streams";
import { call, snip } from "../shared/api";

const byId = (id: string) => ({ params: { path: { id } } });

export const streamsApi = {
  listStreams: () => call(snip.GET("/api/streams")),
  createStream: (body: { name: string; kind: StreamKind; url: string }) => call(snip.POST("/api/streams", { body })).then((r) => r.stream),
  updateStream: (id: string, body: { name?: string; url?: string; active?: boolean }) =>
    call(snip.PATCH("/api/streams/{id}", { ...byId(id), body })).then((r) => r.stream),
  deleteStream: (id: string) => call(snip.DELETE("/api/streams/{id}", byId(id))),
};
