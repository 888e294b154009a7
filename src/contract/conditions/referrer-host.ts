// `referrer_host`: the referring page's host is one of the hosts or under one of them (www. ignored).
import { TARGETING_MESSAGES as M } from "../form-rules.js";
import { defineKind, conditionList, orWords, uniqueValues, valuesSchema } from "./kind.js";

const HOST_RE = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

export const referrerHostCondition = defineKind({
  kind: "referrer_host",
  label: "Referrer host",
  schema: (t) => valuesSchema(t, "Host names of the referring page (www. ignored; example.com also matches its subdomains)"),
  normalise: (raw, fail) =>
    uniqueValues(
      conditionList(raw, fail).map((h) => {
        const host = h
          .toLowerCase()
          .replace(/\.$/, "")
          .replace(/^www\./, "");
        if (!HOST_RE.test(host)) fail(M.host(h));
        return host;
      }),
    ),
  compile: (hosts) => (a) => {
    const host = a.referrer();
    // A loop, not a closure per host: asked on every visit.
    for (const h of hosts) if (host === h || (host.endsWith(h) && host.charCodeAt(host.length - h.length - 1) === 46)) return true;
    return false;
  },
  cost: 1,
  words: (hosts) => `referrer ${orWords(hosts)}`,
  field: { input: "list", placeholder: "news.example.com, x.com", hint: "example.com also matches its subdomains.", empty: "Enter at least one host" },
});
