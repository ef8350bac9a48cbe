import { docsPageOf } from '../unfurls/index.js';

/**
 * A feedback entry's page as feedback by page names it. The service may give an entry's path as a URL ("the path
 * or URL to the source document"): its path then, under the project's docs site when one is set (the site's own
 * path stripped, as a docs link's unfurl does), else on the URL's own host.
 */
export function pagePathOf(path: string, project: string, docsUrls: Readonly<Record<string, string>>): string {
  if (!/^https?:\/\//i.test(path) || !URL.canParse(path)) return path;
  const site = docsUrls[project];
  const page = (site && docsPageOf(path, { [project]: site })) || docsPageOf(path, { [project]: new URL(path).origin });
  return page?.path ?? path;
}
