// The period's links with most clicks: alias (to the link's own statistics), where it goes, clicks and visitors,
// and, when the period has conversions, each link's leads, sales and revenue per currency.
import type { Analytics } from "@contract/analytics";
import { A } from "../shared/ui";
import { ColumnsHead, Row, Wide, hasRowConversions } from "../shared/charts/Breakdowns";

export function TopLinks({ links, visitors }: { links: Analytics["links"]; visitors: boolean }) {
  const max = links[0]?.clicks ?? 0;
  const conversions = hasRowConversions(links);
  return (
    <section className="card top-links" data-testid="top-links">
      <h2>Top links</h2>
      {links.length === 0 ? (
        <p className="muted small">No link was clicked in this period.</p>
      ) : (
        <Wide on={conversions} label="Top links">
          <ColumnsHead visitors={visitors} share={false} conversions={conversions} />
          <ol className="hbars">
            {links.map((l) => (
              <Row
                key={l.link_id}
                testId="top-link"
                data={{ "data-alias": l.alias }}
                label={
                  <span className="top-link-label">
                    <A to={`/app/links/${encodeURIComponent(l.link_id)}/stats`} testId="top-link-stats">
                      {l.alias}
                    </A>
                    <span className="muted small truncate" title={l.url}>
                      {l.title || l.url}
                    </span>
                  </span>
                }
                clicks={l.clicks}
                visitors={visitors ? l.visitors : undefined}
                bar={max ? l.clicks / max : 0}
                conversions={conversions ? l : undefined}
              />
            ))}
          </ol>
        </Wide>
      )}
    </section>
  );
}
