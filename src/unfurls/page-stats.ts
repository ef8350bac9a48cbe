import type { z } from 'zod';
import { FEEDBACK_BY_PAGE_MAX } from '../mintlify/analytics-schemas.js';
import type { VisitorCountsSchema } from '../mintlify/schemas.js';
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
import { type PageStats, PageStatsSchema, STATS_DAYS } from './stats.js';

/** An unfurl's numbers are kept this long per page: pasting the same link again asks the service nothing. */
export const STATS_TTL_MS = 10 * 60_000;
/** The service lists pages by visitors without a path filter: the page is looked for in this many of its pages. */
const PAGES_SEARCHED = 4;
const PAGE_ROWS = 250;

const NONE = { human: 0, ai: 0, total: 0 };

/**
 * The page's numbers, from the store when it was unfurled in the last `STATS_TTL_MS`, else from the service (its
 * cached pages of visitors). A page in neither period is not known; a failure of the service is not cached and
 * reads as not known, so the link still gets its plain preview.
 */
export async function pageStats(deps: PageDeps, project: string, path: string): Promise<PageStats> {
  const key = keys.unfurlPage(project, path);
  const cached = await deps.store.kv.get(key).catch((error: unknown) => {
    deps.log.warn('unfurls.cache_unavailable', { op: 'get', error });
    return undefined;
  });
  const hit = PageStatsSchema.safeParse(cached);
  if (hit.success) return hit.data;
  const nowMs = deps.now();
  const today = todayNumber(nowMs);
  const range = { from: dayString(today - STATS_DAYS + 1), to: dayString(today) };
  const [current, previous, ratings] = await Promise.all([
    findPage(deps, project, path, range),
    findPage(deps, project, path, previousPeriod(range), comparisonCut(range, nowMs)),
    findRatings(deps, project, path, range),
  ]);
  if (current === 'failed' || previous === 'failed') return { known: false };
  const stats: PageStats =
    current || previous
      ? { known: true, ...range, current: current ?? NONE, ...(previous && { previous }), ...(ratings && { ratings }) }
      : { known: false };
  await deps.store.kv
    .set(key, stats, STATS_TTL_MS)
    .catch((error: unknown) => deps.log.warn('unfurls.cache_unavailable', { op: 'set', error }));
  return stats;
}

/** The page's row in the service's list for the range, `undefined` when it is not there, `failed` when unanswered. */
async function findPage(
  deps: PageDeps,
  project: string,
  path: string,
  range: { from: string; to: string },
  until?: number,
): Promise<z.infer<typeof VisitorCountsSchema> | undefined | 'failed'> {
  for (let page = 0; page < PAGES_SEARCHED; page++) {
    const query: ReportQuery = { ...range, limit: PAGE_ROWS, offset: page * PAGE_ROWS, project };
    const result = await fetchPage(deps, project, query, { until });
    if (!result.ok) return 'failed';
    const row = result.page.response.visitors.find((r) => r.path === path);
    if (row) return { human: row.human, ai: row.ai, total: row.total };
    if (!result.page.response.hasMore) return undefined;
  }
  return undefined;
}

/**
 * The page's thumbs up and down in the range, from the service's feedback by page (its first 100 pages: the
 * endpoint has no cursor); `undefined` when no reader rated it there or the service did not answer (logged).
 */
async function findRatings(
  deps: PageDeps,
  project: string,
  path: string,
  range: { from: string; to: string },
): Promise<{ up: number; down: number } | undefined> {
  const result = await deps.mintlify.getFeedbackByPage(project, {
    ...serviceWindow(range),
    limit: FEEDBACK_BY_PAGE_MAX,
  });
  if (!result.ok) {
    deps.log.warn('unfurls.ratings_failed', { project, failure: result.failure.code });
    return undefined;
  }
  const page = result.value.feedback.find((row) => row.path === path);
  // A page with only code-snippet feedback is listed with no thumbs: not rated.
  return page && page.thumbsUp + page.thumbsDown > 0 ? { up: page.thumbsUp, down: page.thumbsDown } : undefined;
}
