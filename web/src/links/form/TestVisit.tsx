// "Test a visit": asks the server where a visitor with these traits would be sent by the saved link's
// rules and split (GET /api/links/{id}/resolve), and says which destination answers and why.
import { linksApi } from "../links-api";
import { useState } from "react";

import type { Link } from "@contract/links";
import type { ResolveParams, ResolveReply } from "@contract/targeting";
import { Alert, Field } from "../../shared/ui";
import { useSubmit } from "../../shared/submit";
import { destinationLabel } from "../../shared/destination-label";
import { localInputToIso } from "./local-time";
import { DEVICE_LABELS } from "./targeting";
import { DEVICES } from "@contract/tables";
import type { RuleDevice } from "@contract/targeting";

/** A User-Agent each device option stands for (the server reads the device from it, as on a real visit). */
const SAMPLE_UA: Record<RuleDevice, string> = {
  ios: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  android: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
  mobile: "Mozilla/5.0 (Mobile; rv:109.0) Gecko/109.0 Firefox/109.0",
  tablet: "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  desktop: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  bot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
};
const SAMPLE_NAME: Record<RuleDevice, string> = {
  ios: "an iPhone",
  android: "a Pixel phone",
  mobile: "a Firefox OS phone",
  tablet: "an iPad",
  desktop: "Chrome on Windows",
  bot: "Googlebot",
};

interface Visit {
  country: string;
  language: string;
  device: RuleDevice | "";
  query: string;
  referrer: string;
  at: string;
}

function paramsOf(v: Visit): ResolveParams {
  const p: ResolveParams = {};
  if (v.country.trim()) p.country = v.country.trim().toUpperCase();
  if (v.language.trim()) p.language = v.language.trim();
  if (v.device) p.ua = SAMPLE_UA[v.device];
  if (v.query.trim()) p.query = v.query.trim().replace(/^\?/, "");
  if (v.referrer.trim()) p.referrer = v.referrer.trim();
  const at = localInputToIso(v.at);
  if (at) p.at = at;
  return p;
}

function Answer({ reply, link }: { reply: ResolveReply; link: Link }) {
  const countryRules = link.rules.some((r) => r.if.country !== undefined);
  return (
    <div className="lf-answer" data-testid="visit-answer" data-destination={reply.destination}>
      <p>
        <span className="badge" data-testid="visit-destination">
          {destinationLabel(reply.destination)}
        </span>{" "}
        <a href={reply.url} target="_blank" rel="noopener noreferrer" className="lf-answer-url" data-testid="visit-url">
          {reply.url}
        </a>
      </p>
      <p className="muted small" data-testid="visit-reason">
        {reply.reason}
      </p>
      {reply.variants.length ? (
        <ul className="lf-answer-variants" data-testid="visit-variants">
          {reply.variants.map((v) => (
            <li key={v.destination}>
              {destinationLabel(v.destination)} · {v.weight}% · <span className="lf-answer-url">{v.url}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {reply.country_source === null && countryRules ? (
        <Alert kind="warning" testId="visit-country-warning">
          This server does not know visitors’ countries, so rules with a country never hold: its operator can set GEOIP_DB (a country database) or, behind a
          proxy that adds a country header, TRUST_PROXY and COUNTRY_HEADER.
        </Alert>
      ) : null}
    </div>
  );
}

export function TestVisit({ link }: { link: Link }) {
  const [visit, setVisit] = useState<Visit>({ country: "", language: "", device: "", query: "", referrer: "", at: "" });
  const [reply, setReply] = useState<ResolveReply | null>(null);
  const set = (p: Partial<Visit>) => setVisit((v) => ({ ...v, ...p }));

  const { busy, error, run } = useSubmit(async () => {
    try {
      setReply(await linksApi.resolveLink(link.id, paramsOf(visit)));
    } catch (err) {
      setReply(null);
      throw err;
    }
  });

  // Not a <form>: it sits inside the link form, and forms do not nest.
  return (
    <fieldset className="options lf-test" data-testid="test-visit">
      <legend>Test a visit</legend>
      <p className="field-hint">Where would this visitor go? Uses the saved rules and split: save your changes first.</p>
      <div className="grid-2">
        <Field id="visit-country" label="Country" hint="Two letters, such as FR.">
          <input
            id="visit-country"
            data-testid="visit-country"
            type="text"
            maxLength={2}
            autoCapitalize="characters"
            value={visit.country}
            onChange={(e) => set({ country: e.target.value })}
          />
        </Field>
        <Field id="visit-language" label="Languages" hint="As a browser sends them: fr-BE,fr;q=0.9">
          <input id="visit-language" data-testid="visit-language" type="text" value={visit.language} onChange={(e) => set({ language: e.target.value })} />
        </Field>
        <Field id="visit-device" label="Device" hint={visit.device ? `Visits as ${SAMPLE_NAME[visit.device]}.` : "No User-Agent."}>
          <select id="visit-device" data-testid="visit-device" value={visit.device} onChange={(e) => set({ device: e.target.value as RuleDevice | "" })}>
            <option value="">Any (none given)</option>
            {DEVICES.map((d) => (
              <option key={d} value={d}>
                {DEVICE_LABELS[d]}
              </option>
            ))}
          </select>
        </Field>
        <Field id="visit-at" label="Time" hint="Empty: now.">
          <input id="visit-at" data-testid="visit-at" type="datetime-local" value={visit.at} onChange={(e) => set({ at: e.target.value })} />
        </Field>
        <Field id="visit-query" label="Query string" hint="Of the short URL: utm_source=x&ref=fr">
          <input
            id="visit-query"
            data-testid="visit-query"
            type="text"
            spellCheck={false}
            value={visit.query}
            onChange={(e) => set({ query: e.target.value })}
          />
        </Field>
        <Field id="visit-referrer" label="Referring page">
          <input
            id="visit-referrer"
            data-testid="visit-referrer"
            type="url"
            inputMode="url"
            placeholder="https://news.example.com/post"
            value={visit.referrer}
            onChange={(e) => set({ referrer: e.target.value })}
          />
        </Field>
      </div>
      <button type="button" className="btn btn-secondary" data-testid="visit-run" disabled={busy} onClick={() => void run()}>
        {busy ? "Testing…" : "Test this visit"}
      </button>
      {error ? <Alert testId="visit-error">{error}</Alert> : null}
      {reply ? <Answer reply={reply} link={link} /> : null}
    </fieldset>
  );
}
