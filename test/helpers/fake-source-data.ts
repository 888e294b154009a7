// The links (and Shlink visits) the fake sources serve, generated from their index alone: nothing is held in
// memory, so the Shlink fake can serve 100,000 links and 1,000,000 visits page by page. Each function gives
// the object exactly as the real API documents it; tests compare what a source reads against these.

export const FAKE_BASE_TIME = Date.UTC(2024, 0, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** ISO 8601 without milliseconds, with the zone written as the API writes it. */
export function isoAt(ms: number, zone: "Z" | "+00:00" | "+0000" = "Z"): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, zone);
}

export function createdAt(i: number): number {
  return FAKE_BASE_TIME + i * HOUR;
}

export function bitlyLink(i: number, groupGuid: string): Record<string, unknown> {
  return {
    references: { group: `https://api-ssl.bitly.com/v4/groups/${groupGuid}` },
    link: `https://bit.ly/b${i}`,
    id: `bit.ly/b${i}`,
    long_url: `https://example.com/bitly/${i}`,
    title: `Bitly link ${i}`,
    archived: i % 7 === 3,
    created_at: isoAt(createdAt(i), "+0000"),
    created_by: "fake-user",
    client_id: "fake-client",
    custom_bitlinks: i % 5 === 0 ? [`https://go.example.org/custom-${i}`] : [],
    tags: i % 3 === 0 ? ["promo", `t${i % 2}`] : [],
    launchpad_ids: [],
    deeplinks: [],
  };
}

export function bitlyClicks(i: number): number {
  return i * 3;
}

export function shlinkDomain(i: number): string | null {
  return i % 10 === 0 ? "s.example.net" : null;
}

/** Shlink potentialBot: every 13th visit. */
export function shlinkBots(visits: number): number {
  return Math.floor(visits / 13);
}

export function shlinkLink(i: number, visits: number): Record<string, unknown> {
  const domain = shlinkDomain(i);
  const bots = shlinkBots(visits);
  const limited = i % 6 === 0;
  return {
    shortCode: `s${i}`,
    shortUrl: `https://${domain ?? "s.test"}/s${i}`,
    longUrl: `https://example.com/shlink/${i}`,
    deviceLongUrls: {
      android: i % 4 === 0 ? `https://example.com/android/${i}` : null,
      ios: i % 4 === 0 ? `https://example.com/ios/${i}` : null,
      desktop: null,
    },
    dateCreated: isoAt(createdAt(i), "+00:00"),
    visitsSummary: { total: visits, nonBots: visits - bots, bots },
    tags: i % 3 === 0 ? ["news", "shlink"] : [],
    meta: {
      validSince: limited ? isoAt(createdAt(i) + DAY, "+00:00") : null,
      validUntil: limited ? isoAt(createdAt(i) + 30 * DAY, "+00:00") : null,
      maxVisits: i % 8 === 0 ? 100 : null,
    },
    domain,
    title: i % 2 === 0 ? `Shlink ${i}` : null,
    crawlable: false,
    forwardQuery: true,
    hasRedirectRules: false,
  };
}

const USER_AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  "curl/8.4.0",
];

/** Visit j (0 = oldest) of link i. */
export function shlinkVisit(i: number, j: number): Record<string, unknown> {
  const located = j % 2 === 0;
  return {
    referer: j % 3 === 0 ? `https://ref.example/${j % 5}` : "",
    date: isoAt(createdAt(i) + (j + 1) * 60_000, "+00:00"),
    userAgent: USER_AGENTS[j % USER_AGENTS.length],
    visitLocation: located
      ? {
          countryCode: "DE",
          countryName: "Germany",
          regionName: "Berlin",
          cityName: "Berlin",
          latitude: 52.52,
          longitude: 13.405,
          timezone: "Europe/Berlin",
          isEmpty: false,
        }
      : null,
    potentialBot: j % 13 === 12,
    visitedUrl: null,
    redirectUrl: null,
  };
}

/** YOURLS "last": index 0 is the newest link. */
export function yourlsLink(i: number, total: number): Record<string, unknown> {
  const ts = new Date(FAKE_BASE_TIME + (total - i) * HOUR).toISOString().replace("T", " ").slice(0, 19);
  return {
    shorturl: `https://y.example/y${i}`,
    url: `https://example.com/yourls/${i}`,
    title: `YOURLS ${i}`,
    timestamp: ts,
    ip: "203.0.113.9",
    clicks: String(i * 2),
  };
}

export function kuttId(i: number): string {
  return `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
}

export function kuttLink(i: number): Record<string, unknown> {
  const domain = i % 5 === 0 ? "k.example.io" : null;
  return {
    id: kuttId(i),
    address: `k${i}`,
    banned: false,
    created_at: new Date(createdAt(i)).toISOString(),
    updated_at: new Date(createdAt(i)).toISOString(),
    description: i % 2 === 1 ? `Kutt ${i}` : null,
    expire_in: i % 4 === 0 ? new Date(createdAt(i) + 7 * DAY).toISOString() : null,
    target: `https://example.com/kutt/${i}`,
    visit_count: i,
    password: i % 9 === 0,
    domain,
    link: `https://${domain ?? "kutt.it"}/k${i}`,
  };
}

export function dubId(i: number): string {
  return `link_${String(i).padStart(6, "0")}`;
}

export function dubLink(i: number): Record<string, unknown> {
  const preview = i % 6 === 0;
  const expiring = i % 5 === 0;
  return {
    id: dubId(i),
    domain: i % 4 === 0 ? "go.example.com" : "dub.sh",
    key: `d${i}`,
    url: `https://example.com/dub/${i}`,
    externalId: null,
    archived: i % 11 === 0,
    expiresAt: expiring ? new Date(createdAt(i) + 14 * DAY).toISOString() : null,
    expiredUrl: expiring ? `https://example.com/expired/${i}` : null,
    password: i % 9 === 0 ? "hunter2" : null,
    proxy: preview,
    title: `Dub ${i}`,
    description: preview ? `About ${i}` : null,
    image: preview ? `https://img.example/${i}.png` : null,
    ios: i % 4 === 0 ? `https://apps.apple.com/app/${i}` : null,
    android: i % 4 === 0 ? `https://play.google.com/store/apps/${i}` : null,
    tags: i % 3 === 0 ? [{ id: "tag_launch", name: "launch", color: "blue" }] : [],
    // In Dub's folder "Clients" (GET /folders), or in a folder /folders does not list.
    folderId: i % 10 === 1 ? "fold_clients" : i % 10 === 3 ? "fold_unlisted" : null,
    comments: i % 7 === 0 ? `note ${i}` : null,
    shortLink: `https://${i % 4 === 0 ? "go.example.com" : "dub.sh"}/d${i}`,
    clicks: i * 5,
    // Dub's conversion totals: saleAmount in cents (USD); every third link has none.
    leads: i % 3 === 0 ? 0 : i,
    sales: i % 3 === 0 ? 0 : i % 2,
    saleAmount: i % 3 === 0 ? 0 : (i % 2) * 1999,
    createdAt: new Date(createdAt(i)).toISOString(),
    updatedAt: new Date(createdAt(i)).toISOString(),
  };
}

/** The field holding each source's destination (what breakLink removes). */
export const URL_FIELD = { bitly: "long_url", shlink: "longUrl", yourls: "url", kutt: "target", dub: "url" } as const;
