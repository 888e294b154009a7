// The period's links with most clicks: alias (to the link's own statistics), where it goes, clicks and visitors.
import type { Analytics } from "@contract/analytics";
import { A } from "../../ui";

export function TopLinks({ links, visitors }: { links: Analytics["links"]; visitors: boolean }) {
  const max = links[0]?.clicks ?? 0;
  return (
    <section className="card top-links" data-testid="top-links">
      <h2>Top links</h2>
      {links.length === 0 ? (
        <p className="muted small">No link was clicked in this period.</p>
      ) : (
        <>
          <div className="hbar-text hbar-head muted small" aria-hidden="true">
            <span className="hbar-label" />
            <span className="hbar-num">Clicks</span>
            {visitors ? <span className="hbar-num">Visitors</span> : null}
          </div>
          <ol className="hbars">
            {links.map((l) => (
              <li key={l.link_id} className="hbar top-link" data-testid="top-link" data-alias={l.alias} data-clicks={l.clicks} data-visitors={l.visitors}>
                <div className="hbar-text">
                  <span className="hbar-label top-link-label">
                    <A to={`/app/links/${encodeURIComponent(l.link_id)}/stats`} testId="top-link-stats">
                      {l.alias}
                    </A>
                    <span className="muted small truncate" title={l.url}>
                      {l.title || l.url}
                    </span>
                  </span>
                  <span className="hbar-num" title="Clicks">
                    {l.clicks.toLocaleString()}
                  </span>
                  {visitors ? (
                    <span className="hbar-num" title="Visitors">
                      {l.visitors.toLocaleString()}
                    </span>
                  ) : null}
                </div>
                <div className="hbar-track" aria-hidden="true">
                  <div className="hbar-fill" style={{ width: `${max ? Math.max(2, (l.clicks / max) * 100) : 0}%` }} />
                </div>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
