import type { Deps } from '../../deps.js';
import type { FailedFor } from '../failures.js';
import type { PageDeps } from '../report/page.js';
import { projectQuery, type ReportRequest } from '../requests.js';
import { makeChart, uploadChart } from './deliver.js';

type ChartDeps = PageDeps & Pick<Deps, 'slack'>;

export type SendChartResult = { ok: true } | FailedFor<'fetch_failed' | 'dm_failed'>;
export type ShareChartResult = { ok: true } | FailedFor<'fetch_failed' | 'post_failed'>;

/** The chart for the person who asked, in their DM with the bot (see `ChartTarget` for why not in place). */
export async function sendChart(deps: ChartDeps, request: ReportRequest): Promise<SendChartResult> {
  const query = projectQuery(request);
  const made = await makeChart(deps, query.project, query);
  if (!made.ok) return { ok: false, reason: 'fetch_failed', failure: made.failure };
  const uploaded = await uploadChart(deps, made.chart, { kind: 'dm', userId: request.audience.userId });
  return uploaded.ok ? { ok: true } : { ok: false, reason: 'dm_failed', code: uploaded.code };
}

/** The chart shared into the conversation it was asked in (the share button under a sent chart). */
export async function shareChart(deps: ChartDeps, request: ReportRequest): Promise<ShareChartResult> {
  const query = projectQuery(request);
  const made = await makeChart(deps, query.project, query);
  if (!made.ok) return { ok: false, reason: 'fetch_failed', failure: made.failure };
  const { channel, userId } = request.audience;
  const uploaded = await uploadChart(deps, made.chart, { kind: 'channel', channel, sharedBy: userId });
  if (!uploaded.ok) return { ok: false, reason: 'post_failed', code: uploaded.code };
  deps.log.info('visitors.chart_shared', { user: userId, channel, from: query.from, to: query.to });
  return { ok: true };
}
