// Request host names as links.domain holds them: lowercase, one trailing dot ignored.

/** Already lowercase without a trailing dot (what browsers send): no new string on the hot path. */
export function isFolded(host: string): boolean {
  for (let i = 0; i < host.length; i++) {
    const c = host.charCodeAt(i);
    if (c >= 65 && c <= 90) return false;
  }
  return host.charCodeAt(host.length - 1) !== 46;
}

export function foldHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.charCodeAt(lower.length - 1) === 46 ? lower.slice(0, -1) : lower;
}
