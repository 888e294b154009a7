// The QR marker: QR codes encode the short URL with `?qr=1` so that a scan is counted apart from a
// typed or clicked visit; the marker is taken off before redirect rules see the query.

export const QR_PARAM = "qr";
export const QR_QUERY = "qr=1";

const NO_QUERY = Object.freeze({ query: "", qr: false });

/** The query without the marker, and whether it was there. Visits without a query pay one length check (and no allocation). */
export function takeQrMarker(query: string): { readonly query: string; readonly qr: boolean } {
  if (query.length === 0) return NO_QUERY;
  if (query.length < QR_QUERY.length || !query.includes(QR_QUERY)) return { query, qr: false };
  const parts = query.split("&");
  const kept = parts.filter((p) => p !== QR_QUERY);
  return kept.length === parts.length ? { query, qr: false } : { query: kept.join("&"), qr: true };
}

/** The text a QR code encodes: the short URL with the marker. */
export function qrTarget(shortUrl: string): string {
  return `${shortUrl}?${QR_QUERY}`;
}
