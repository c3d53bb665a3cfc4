/**
 * An origin as browsers send it in the Origin header: `scheme://host[:port]`, http or https,
 * nothing else. Undefined for anything that is not one (a path, credentials, another scheme).
 * Default ports are dropped and the host lower-cased, as browsers do.
 */
export function normalizeOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || url.search || url.hash) return undefined;
  if (url.pathname !== '/') return undefined;
  return url.origin;
}
