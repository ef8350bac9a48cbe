import { FEEDBACK_BY_PAGE_MAX } from '../mintlify/analytics-schemas.js';
import type { VisitorCounts } from '../mintlify/schemas.js';
import { keys } from '../store/keys.js';
import {
  comparisonCut,
  dayString,
  fetchPage,
  type PageDeps,
  previousPeriod,
  type ReportQuery,
  serviceWindow,
  todayNumber,
} from '../visitors/index.js';
import type { DocsPage } from './match.js';
import { type PageStats, PageStatsSchema, type Ratings, STATS_DAYS } from './stats.js';

/** An unfurl's numbers are kept this long per page: pasting the same link again asks the service nothing. */
export const STATS_TTL_MS = 10 * 60_000;
/** The service lists pages by visitors without a path filter: the page is looked for in this many of its pages. */
const PAGES_SEARCHED = 4;
const PAGE_ROWS = 250;

const NONE = { human: 0, ai: 0, total: 0 };
const UNKNOWN: PageStats = { known: false };

type Range = { from: string; to: string };

/**
 * The numbers of each of `pages` (in their order), from the store when the page was unfurled in the last
 * `STATS_TTL_MS`, else from the service: each of a project's questions (its cached pages of visitors, its feedback
 * by page) is asked once for all its pages, however many links of a message name them. A page in neither period is
 * not known; a failure of the service is not cached and reads as not known, so the link still gets its plain preview.
 */
export async function pagesStats(deps: PageDeps, pages: readonly DocsPage[]): Promise<PageStats[]> {
  const projects = [...new Set(pages.map((page) => page.project))];
  const byProject = new Map(
    await Promise.all(
      projects.map(async (project) => {
        const paths = pages.filter((page) => page.project === project).map((page) => page.path);
        return [project, await projectStats(deps, project, [...new Set(paths)])] as const;
      }),
    ),
  );
  return pages.map((page) => byProject.get(page.project)?.get(page.path) ?? UNKNOWN);
}

async function projectStats(deps: PageDeps, project: string, paths: string[]): Promise<Map<string, PageStats>> {
  const found = new Map<string, PageStats>();
  const cached = await Promise.all(
    paths.map((path) =>
      deps.store.kv.get(keys.unfurlPage(project, path)).catch((error: unknown) => {
        deps.log.warn('unfurls.cache_unavailable', { op: 'get', error });
        return undefined;
      }),
    ),
  );
  paths.forEach((path, i) => {
    const hit = PageStatsSchema.safeParse(cached[i]);
    if (hit.success) found.set(path, hit.data);
  });
  const missing = paths.filter((path) => !found.has(path));
  if (missing.length === 0) return found;
  const nowMs = deps.now();
  const today = todayNumber(nowMs);
  const range = { from: dayString(today - STATS_DAYS + 1), to: dayString(today) };
  const [current, previous, ratings] = await Promise.all([
    findPages(deps, project, missing, range),
    findPages(deps, project, missing, previousPeriod(range), comparisonCut(range, nowMs)),
    findRatings(deps, project, range),
  ]);
  if (current === 'failed' || previous === 'failed') return found;
  for (const path of missing) {
    const [now, before, rated] = [current.get(path), previous.get(path), ratings.get(path)];
    const stats: PageStats =
      now || before
        ? {
            known: true,
            ...range,
            current: now ?? NONE,
            ...(before && { previous: before }),
            ...(rated && { ratings: rated }),
          }
        : UNKNOWN;
    found.set(path, stats);
    await deps.store.kv
      .set(keys.unfurlPage(project, path), stats, STATS_TTL_MS)
      .catch((error: unknown) => deps.log.warn('unfurls.cache_unavailable', { op: 'set', error }));
  }
  return found;
}

/** The rows of `paths` in the service's list for the range (those not there are left out), `failed` when unanswered. */
async function findPages(
  deps: PageDeps,
  project: string,
  paths: string[],
  range: Range,
  until?: number,
): Promise<Map<string, VisitorCounts> | 'failed'> {
  const rows = new Map<string, VisitorCounts>();
  for (let page = 0; page < PAGES_SEARCHED && rows.size < paths.length; page++) {
    const query: ReportQuery = { ...range, limit: PAGE_ROWS, offset: page * PAGE_ROWS, project };
    const result = await fetchPage(deps, project, query, { until });
    if (!result.ok) return 'failed';
    for (const row of result.page.response.visitors) {
      if (paths.includes(row.path) && !rows.has(row.path))
        rows.set(row.path, { human: row.human, ai: row.ai, total: row.total });
    }
    if (!result.page.response.hasMore) break;
  }
  return rows;
}

/**
 * Pages' thumbs up and down in the range, from the service's feedback by page (its first 100 pages: the endpoint has
 * no cursor): none for a page no reader rated there, and none at all when the service did not answer (logged).
 */
async function findRatings(deps: PageDeps, project: string, range: Range): Promise<Map<string, Ratings>> {
  const result = await deps.mintlify.getFeedbackByPage(project, {
    ...serviceWindow(range),
    limit: FEEDBACK_BY_PAGE_MAX,
  });
  if (!result.ok) {
    deps.log.warn('unfurls.ratings_failed', { project, failure: result.failure.code });
    return new Map();
  }
  // A page with only code-snippet feedback is listed with no thumbs: not rated.
  const rated = result.value.feedback.filter((row) => row.thumbsUp + row.thumbsDown > 0);
  return new Map(rated.map((row) => [row.path, { up: row.thumbsUp, down: row.thumbsDown }]));
}
