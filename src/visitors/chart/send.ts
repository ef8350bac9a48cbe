import type { Deps } from '../../deps.js';
import { chartSentMessage, shareChartButton } from '../blocks.js';
import type { FailedFor } from '../failures.js';
import { chartCopy } from '../messages.js';
import { fetchPage, type PageDeps } from '../report/page.js';
import { type ProjectQuery, projectQuery, type ReportRequest } from '../requests.js';
import { chartReply } from './blocks.js';
import { drawChart, postChartIn, uploadChart } from './deliver.js';
import { fetchTrend, type Trend } from './trend.js';

type ChartDeps = PageDeps & Pick<Deps, 'slack' | 'replies'>;

export type SendChartResult = { ok: true } | FailedFor<'fetch_failed' | 'dm_failed'>;
export type ShareChartResult = { ok: true } | FailedFor<'fetch_failed' | 'post_failed' | 'slack_busy'>;

/**
 * The chart for the person who asked, drawn by Slack in the reply itself (a line chart and the top pages as a data
 * table). Where the blocks would pass Slack's limits, or Slack refuses them (`invalid_blocks`: a workspace that
 * does not draw them), the PNG goes to their DM with the bot instead, with a private note saying so (see
 * `ChartTarget` for why not in place).
 */
export async function sendChart(deps: ChartDeps, request: ReportRequest): Promise<SendChartResult> {
  const query = projectQuery(request);
  const fetched = await fetchTrend(deps, query.project, query);
  if (!fetched.ok) return { ok: false, reason: 'fetch_failed', failure: fetched.failure };
  if (await drawnBySlack(deps, request, query, fetched.trend)) return { ok: true };
  const chart = await drawChart(deps, query.project, query, fetched.trend);
  const uploaded = await uploadChart(deps, chart, { kind: 'dm', userId: request.audience.userId });
  if (!uploaded.ok) return { ...uploaded, reason: 'dm_failed' };
  await deps.replies.privately(request.audience, chartSentMessage(query));
  return { ok: true };
}

/** True when Slack took the chart reply; false when it is past Slack's limits or Slack refused it. */
async function drawnBySlack(deps: ChartDeps, request: ReportRequest, query: ProjectQuery, trend: Trend) {
  // The range's first page of rows: the report's own request, so usually from the cache.
  const page = await fetchPage(deps, query.project, { ...query, offset: 0 });
  const rows = page.ok ? page.page.response.visitors : [];
  const reply = chartReply({ ...query, offset: 0 }, trend, rows, [shareChartButton(query)]);
  if (!reply) {
    deps.log.info('visitors.chart_as_picture', { reason: 'limits', points: trend.points.length });
    return false;
  }
  const shown = await deps.replies.offer(request.audience, reply);
  if (!shown) deps.log.warn('visitors.chart_as_picture', { reason: 'refused' });
  return shown;
}

/**
 * The chart shared into the conversation it was asked in (the share button under a chart): drawn by Slack there, the
 * chart and the range's top pages as a data table, with who shared it; its PNG where Slack cannot draw it.
 */
export async function shareChart(deps: ChartDeps, request: ReportRequest): Promise<ShareChartResult> {
  const query = projectQuery(request);
  const { channel, userId } = request.audience;
  // The range's first page of rows: the chart reply's own, so usually from the cache.
  const page = await fetchPage(deps, query.project, { ...query, offset: 0 });
  if (!page.ok) return { ok: false, reason: 'fetch_failed', failure: page.failure };
  const posted = await postChartIn(deps, query.project, query, {
    channel,
    sharedBy: userId,
    text: chartCopy.sharedInChannel(query, userId),
    comment: chartCopy.sharedComment(query, userId),
    pages: page.page.response.visitors,
  });
  if (!posted.ok) return posted;
  deps.log.info('visitors.chart_shared', { user: userId, channel, from: query.from, to: query.to, as: posted.as });
  return { ok: true };
}
