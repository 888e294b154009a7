// Where a link's visitors go, as tables: its redirect rules (condition / destination), its device destinations
// and its A/B split (variant / weight / destination), in the order a visit meets them: the first rule that holds,
// then the visitor's device, then the split's variant, else the destination.
import type { Link } from "@contract/links";
import { DataTable } from "../../shared/ui";
import { destinationLabel } from "../../shared/destination-label";
import { describeCondition } from "../../shared/created-link/link-summary";
import { Breakable } from "./Breakable";

function Url({ url }: { url: string }) {
  return (
    <a href={url} target="_blank" rel="noopener noreferrer" className="link-page-url">
      <Breakable text={url} />
    </a>
  );
}

function RulesTable({ link }: { link: Link }) {
  return (
    <section className="link-page-section" data-testid="link-rules">
      <h2>Redirect rules</h2>
      <p className="muted small">The first rule that holds decides where a visit goes; a visit no rule matches goes on below.</p>
      <DataTable className="table link-page-table" testId="link-rules-table" columns={["#", "Condition", "Destination"]} caption="Redirect rules">
        {link.rules.map((r, i) => (
          <tr key={i} data-testid="link-rule-row">
            <td className="num">{i + 1}</td>
            <td data-testid="link-rule-condition">{describeCondition(r.if)}</td>
            <td data-testid="link-rule-url">
              <Url url={r.url} />
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function DevicesTable({ link }: { link: Link }) {
  const rows: [string, string, string][] = [];
  if (link.ios_url) rows.push(["ios", "iPhone and iPad", link.ios_url]);
  if (link.android_url) rows.push(["android", "Android", link.android_url]);
  return (
    <section className="link-page-section" data-testid="link-devices">
      <h2>Device destinations</h2>
      <p className="muted small">Visitors on these devices go to their own address; everyone else goes on below.</p>
      <DataTable className="table link-page-table" testId="link-devices-table" columns={["Device", "Destination"]} caption="Device destinations">
        {rows.map(([code, device, url]) => (
          <tr key={code} data-testid="link-device-row">
            <td>{device}</td>
            <td>
              <Url url={url} />
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/** The link's app destinations and way out of in-app browsers (docs/deep-links.md). */
function AppsTable({ link }: { link: Link }) {
  const rows: [string, string][] = [];
  if (link.app_ios_store_id) rows.push(["App Store", `apps.apple.com/app/id${link.app_ios_store_id}`]);
  if (link.app_android_package) rows.push(["Play Store", link.app_android_package]);
  if (link.app_path) rows.push(["In-app path", link.app_path]);
  if (link.open_outside !== null) rows.push(["Open outside in-app browsers", link.open_outside ? "On" : "Off"]);
  return (
    <section className="link-page-section" data-testid="link-apps">
      <h2>App destinations</h2>
      <p className="muted small">Phones without the app go to its store page; with it, the phone opens the app from the link itself.</p>
      <DataTable className="table link-page-table" testId="link-apps-table" columns={["Setting", "Value"]} caption="App destinations">
        {rows.map(([name, value]) => (
          <tr key={name} data-testid="link-app-row">
            <td>{name}</td>
            <td>{value}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function SplitTable({ link }: { link: Link }) {
  return (
    <section className="link-page-section" data-testid="link-split">
      <h2>A/B split</h2>
      <p className="muted small">The remaining visits are shared out by weight; a returning visitor keeps their variant.</p>
      <DataTable
        className="table link-page-table"
        testId="link-split-table"
        columns={["Variant", { label: "Weight", className: "num" }, "Destination"]}
        caption="A/B split"
      >
        {link.split.map((v, i) => (
          <tr key={i} data-testid="link-split-row">
            <td className="nowrap">{destinationLabel(`variant:${i + 1}`)}</td>
            <td className="num">{v.weight}%</td>
            <td>
              <Url url={v.url} />
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/** The link's rules, device destinations and split as tables, each only when the link has it. */
export function LinkTables({ link }: { link: Link }) {
  return (
    <>
      {link.rules.length > 0 ? <RulesTable link={link} /> : null}
      {link.ios_url || link.android_url ? <DevicesTable link={link} /> : null}
      {link.app_ios_store_id || link.app_android_package || link.app_path || link.open_outside !== null ? <AppsTable link={link} /> : null}
      {link.split.length > 0 ? <SplitTable link={link} /> : null}
    </>
  );
}
