/** A link to a page of a connected project's docs site. */
export interface DocsPage {
  /** The link as it was shared (the key Slack wants back in `chat.unfurl`). */
  url: string;
  project: string;
  /** The page's path as the analytics service names it: under the docs site's own path, `/` for its home. */
  path: string;
}

/** A path without its trailing slash (the site's root stays `/`). */
const trimmed = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path);

/**
 * The docs page `url` points to, when it is under one of `docsUrls` (project → site): same host, any scheme of
 * http(s), a path at or below the site's (on a segment boundary). The most specific site wins when several
 * contain the link. Query and fragment are not part of the page.
 */
export function docsPageOf(url: string, docsUrls: Readonly<Record<string, string>>): DocsPage | undefined {
  if (!URL.canParse(url)) return undefined;
  const link = new URL(url);
  if (link.protocol !== 'https:' && link.protocol !== 'http:') return undefined;
  let best: DocsPage | undefined;
  let bestBase = -1;
  for (const [project, site] of Object.entries(docsUrls)) {
    if (!URL.canParse(site)) continue;
    const base = new URL(site);
    if (base.host !== link.host) continue;
    const basePath = trimmed(safeDecode(base.pathname)); // as the link's: `new URL` escapes a space, an accent
    const linkPath = trimmed(safeDecode(link.pathname));
    const root = basePath === '/';
    const under = root || linkPath === basePath || linkPath.startsWith(`${basePath}/`);
    if (!under || basePath.length <= bestBase) continue;
    const rest = root ? linkPath : linkPath.slice(basePath.length);
    best = { url, project, path: rest === '' ? '/' : rest };
    bestBase = basePath.length;
  }
  return best;
}

/** `%20` and friends as the reader sees them; a malformed escape is left as it is. */
function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
