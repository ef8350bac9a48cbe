import type { VisitorCounts } from '../../mintlify/schemas.js';
import type { VisitorsPage } from '../blocks.js';
import type { ReportQuery } from '../date-range.js';
import type { FailedFor } from '../failures.js';
import { comparisonCut, previousPeriod } from '../periods.js';
import type { ProjectQuery } from '../requests.js';
import { fetchPage, type PageDeps } from './page.js';

export type ReportResult =
  | { ok: true; page: VisitorsPage; previous: VisitorCounts | undefined }
  | FailedFor<'fetch_failed'>;

/** One page of the report, with the previous period's totals for its changes. */
export async function showReport(deps: PageDeps, query: ProjectQuery): Promise<ReportResult> {
  const result = await fetchPage(deps, query.project, query);
  if (!result.ok) return { ok: false, reason: 'fetch_failed', failure: result.failure };
  return { ok: true, page: result.page, previous: await previousTotals(deps, query.project, query) };
}

/**
 * The totals of the period of the same length just before `query`'s range, for the report's changes:
 * one `limit=1` request (cached like any page), or undefined when the service could not say.
 */
async function previousTotals(deps: PageDeps, project: string, query: ReportQuery): Promise<VisitorCounts | undefined> {
  const until = comparisonCut(query, deps.now());
  const result = await fetchPage(deps, project, { ...previousPeriod(query), limit: 1, offset: 0 }, { until });
  return result.ok ? result.page.response.totals : undefined;
}
