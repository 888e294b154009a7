// The "clicked" event: what the redirect hands over once per answered click, after recording it. Its
// listeners are listed in one place (src/click-listeners.ts); here is only the event and the dispatcher
// that calls them. A listener says first whether it wants a click of this owner (one check each: a Map or
// Set lookup, a boolean), so the event is built only when one does; a listener that throws is logged and
// the others and the redirect go on.

/** What the visit was (resolve-link.ts's Visit has these and more). */
export interface ClickedVisit {
  /** Request hostname, port stripped. */
  host: string;
  alias: string;
  userAgent: string;
  referer: string;
  ip: string;
  /** Trusted country header value, or null. */
  country: string | null;
  /** The visit came from a QR code. */
  qr: boolean;
}

/** The link as the redirect knows it (a cached link has these and more). */
export interface ClickedLink {
  id: string;
  url: string;
  owner_id: string | null;
  folder_id?: string | null;
}

/** One answered click of an owned link, raw: each listener describes what it needs of it, when it needs it. */
export class Clicked {
  private resolvedDomain: string | null = null;

  constructor(
    readonly owner: string,
    readonly link: ClickedLink,
    readonly visit: ClickedVisit,
    /** When it was answered (epoch ms). */
    readonly at: number,
    /** Where it went: null for the main destination, else rule:N, ios, android or variant:N. */
    readonly destination: string | null,
    private readonly domainOf: (host: string) => string,
  ) {}

  /** links.domain of the visited host: a custom domain's hostname, "" for the main host (worked out once, when asked). */
  get domain(): string {
    return (this.resolvedDomain ??= this.domainOf(this.visit.host));
  }
}

export interface ClickedListener {
  /** Named in the log when it throws. */
  readonly name: string;
  /** Whether this owner's clicks are wanted: the whole cost of a click nobody here needs. */
  wants(owner: string): boolean;
  /** Takes the click; returns at once (work that waits is queued, never awaited by the redirect). */
  clicked(event: Clicked): void;
}

export interface ClickedListeners {
  listeners: readonly ClickedListener[];
  /** A listener threw: logged, the click goes to the others and the visitor is answered. */
  failed(name: string, err: unknown): void;
}

export class ClickDispatcher {
  constructor(
    private readonly to: ClickedListeners,
    private readonly domainOf: (host: string) => string,
  ) {}

  /** Hands one answered click to every listener that wants it; the event is built for the first that does. */
  clicked(link: ClickedLink, visit: ClickedVisit, at: number, destination: string | null): void {
    const owner = link.owner_id;
    if (owner === null) return;
    let event: Clicked | null = null;
    for (const l of this.to.listeners) {
      try {
        if (l.wants(owner)) l.clicked((event ??= new Clicked(owner, link, visit, at, destination, this.domainOf)));
      } catch (err) {
        this.to.failed(l.name, err);
      }
    }
  }
}
