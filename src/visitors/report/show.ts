import type { VisitorCounts } from '../../mintlify/schemas.js';
import type { VisitorsPage } from '../blocks.js';
import type { ReportQuery } from '../date-range.js';
import type { FailedFor } from '../failures.js';
import { comparisonCut, previousPeriod } from '../periods.js';
import type { ProjectQuery } from '../requests.js';
import { fetchPage, type PageDeps } from './page.js';

export type ReportResult =
  | { ok: true; page: VisitorsPage; previous: VisitorCounts | undefined; previousUntil: number | undefined }
  | FailedFor<'fetch_failed'>;

/**
 * One page of the report, with the previous period's totals for its changes: while the range is still running,
 * only as far into the previous period as now is into this one (`previousUntil`), so like is compared with like.
 */
export async function showReport(deps: PageDeps, query: ProjectQuery): Promise<ReportResult> {
  const result = await fetchPage(deps, query.project, query);
  if (!result.ok) return { ok: false, reason: 'fetch_failed', failure: result.failure };
  const previousUntil = comparisonCut(query, deps.now());
  const previous = await previousTotals(deps, query.project, query, previousUntil);
  return { ok: true, page: result.page, previous, previousUntil };
}

/**
 * The totals of the period before `query`'s range (`previousPeriod`), for the report's changes:
 * one `limit=1` request (cached like any page), or undefined when the service could not say.
 */
async function previousTotals(
  deps: PageDeps,
  project: string,
  query: ReportQuery,
  until: number | undefined,
): Promise<VisitorCounts | undefined> {
  const result = await fetchPage(deps, project, { ...previousPeriod(query), limit: 1, offset: 0 }, { until });
  return result.ok ? result.page.response.totals : undefined;
}
