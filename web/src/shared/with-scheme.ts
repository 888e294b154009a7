// A destination typed without its scheme (example.com/page), as Bitly and Dub take it: https:// is added.

/** `https://` + the address when it starts with a host name (a dot in it) and names no scheme; otherwise as given. */
export function withScheme(raw: string): string {
  const url = raw.trim();
  if (url === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^(mailto|tel|javascript|data):/i.test(url)) return url;
  return /^[^\s/:?#@]+\.[^\s/:?#@.]+(:\d+)?([/?#]\S*)?$/i.test(url) ? `https://${url}` : url;
}
