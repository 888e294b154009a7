// The link builder's first part: the destination, the domain and the alias, beside the short link and its QR
// code as they are typed.
import { linkApi } from "../../shared/link-api";
import { useEffect, useState } from "react";
import type { Domain } from "@contract/domains";
import type { Link } from "@contract/links";
import { Field, errorMessage } from "../../shared/ui";
import { withScheme } from "../../shared/with-scheme";
import { ShortPreview } from "./ShortPreview";
import type { OptionProps } from "./Options";
import { domainChoices } from "./values";

/** Verified custom domains are offered (Business and above; the server checks again). */
export function useDomains(business: boolean, owner: string | null = null) {
  const [domains, setDomains] = useState<Domain[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!business) return;
    let live = true;
    linkApi
      .domains(owner)
      .then((list) => live && setDomains(list))
      .catch((e: unknown) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [business, owner]);
  return { domains, error };
}

function DomainField({
  value,
  error,
  domains,
  original,
  onChange,
}: {
  value: string;
  error?: string;
  domains: ReturnType<typeof useDomains>;
  original: Link | null;
  onChange: (v: string) => void;
}) {
  const choices = domainChoices(domains.domains, original);
  if (choices.length === 0 && !domains.error) return null;
  return (
    <Field
      id="link-domain"
      label="Domain"
      error={error}
      hint={domains.error ? `Your domains could not be loaded: ${domains.error}` : "Verified custom domains are listed; add one on the Domains page."}
    >
      <select id="link-domain" data-testid="link-domain" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{window.location.host} (default)</option>
        {choices.map((d) => (
          <option key={d.hostname} value={d.hostname} disabled={d.status !== "verified"}>
            {d.hostname}
            {d.status !== "verified" ? " (not verified: its links answer “not found”)" : ""}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function BuilderTop(
  props: OptionProps & {
    mode: "create" | "edit";
    original: Link | null;
    domains: ReturnType<typeof useDomains>;
    shortUrl: string | null;
    host: string;
  },
) {
  const { values, errors, set } = props;
  return (
    <div className="lf-top">
      <div className="lf-top-fields">
        <Field id="link-url" label="Destination URL" error={errors.url}>
          <input
            id="link-url"
            data-testid="link-url"
            type="text"
            inputMode="url"
            autoComplete="url"
            spellCheck={false}
            required
            placeholder="https://example.com/page"
            value={values.url}
            onChange={(e) => set("url", e.target.value)}
            onBlur={() => values.url && set("url", withScheme(values.url))}
          />
        </Field>
        <div className="lf-address">
          <DomainField value={values.domain} error={errors.domain} domains={props.domains} original={props.original} onChange={(v) => set("domain", v)} />
          <Field
            id="link-alias"
            label="Alias (optional)"
            error={errors.alias}
            hint={
              props.mode === "create"
                ? "Leave empty to get a random short address."
                : "Changing the alias changes the short address; the old one stops working."
            }
          >
            <input
              id="link-alias"
              data-testid="link-alias"
              type="text"
              autoCapitalize="off"
              autoCorrect="off"
              spellCheck={false}
              placeholder="my-campaign"
              value={values.alias}
              onChange={(e) => set("alias", e.target.value)}
            />
          </Field>
        </div>
      </div>
      <ShortPreview host={props.host} alias={values.alias} shortUrl={props.shortUrl} />
    </div>
  );
}
