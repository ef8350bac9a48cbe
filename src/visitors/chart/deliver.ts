import type { Deps } from '../../deps.js';
import type { ServiceFailure } from '../../mintlify/failure.js';
import type { PageVisitors } from '../../mintlify/schemas.js';
import { classifySlackError, slackErrorCode } from '../../slack/errors.js';
import { section } from '../../slack/message.js';
import { shareFile } from '../../slack/upload.js';
import { pagesTable } from '../data-table.js';
import type { ReportQuery } from '../date-range.js';
import type { FailedFor } from '../failures.js';
import { chartCopy, reportCopy } from '../messages.js';
import type { PageDeps } from '../report/page.js';
import { retryAfterField } from '../slack-busy.js';
import { trendChart } from './blocks.js';
import { chartSpec, chartTitle, renderChart } from './render.js';
import { fetchTrend, type Trend } from './trend.js';

/**
 * Where a chart goes. Slack cannot show a file in an ephemeral message (an image block needs a file the viewer
 * can open, and an unshared upload is the bot's alone), so "privately" means the person's DM with the bot;
 * the conversation they asked in gets a private note with a button to share the chart there.
 */
export type ChartTarget = { kind: 'dm'; userId: string } | { kind: 'channel'; channel: string; sharedBy: string };

export interface ChartPicture {
  trend: Trend;
  png: Buffer;
  /** Set when the report named its project: the file name then says which. */
  project?: string | undefined;
}

/** Fetches the trend (≤ 31 `limit=1` requests, cached) and renders it; the service's failure comes back as a value. */
export async function makeChart(
  deps: PageDeps,
  project: string,
  query: ReportQuery,
): Promise<{ ok: true; chart: ChartPicture } | { ok: false; failure: ServiceFailure }> {
  const fetched = await fetchTrend(deps, project, query);
  if (!fetched.ok) return fetched;
  return { ok: true, chart: await drawChart(deps, project, query, fetched.trend) };
}

/** The PNG of a fetched trend (a render on the chart thread). */
export async function drawChart(
  deps: Pick<PageDeps, 'log'>,
  project: string,
  query: ReportQuery,
  trend: Trend,
): Promise<ChartPicture> {
  const started = performance.now();
  const png = await renderChart(chartSpec(trend));
  deps.log.info('visitors.chart', {
    project,
    from: query.from,
    to: query.to,
    points: trend.points.length,
    bytes: png.length,
    duration_ms: Math.round(performance.now() - started),
  });
  return { trend, png, project: query.project };
}

/** Uploads the PNG (getUploadURLExternal → upload → completeUploadExternal). Returns the error code on failure. */
export async function uploadChart(
  deps: Pick<Deps, 'slack' | 'log'>,
  chart: ChartPicture,
  target: ChartTarget,
  comment?: string,
): Promise<{ ok: true; channel: string } | { ok: false; code: string; retryAfterMs?: number }> {
  try {
    let channel: string;
    if (target.kind === 'dm') {
      const opened = await deps.slack.conversations.open({ users: target.userId });
      if (!opened.channel?.id) throw new Error('conversations.open returned no channel');
      channel = opened.channel.id;
    } else {
      channel = target.channel;
    }
    const title = chartTitle(chart.trend);
    await shareFile(deps.slack, {
      channel,
      bytes: chart.png,
      filename: chartCopy.filename({ ...chart.trend.range, project: chart.project }),
      title,
      altText: title,
      comment:
        comment ??
        (target.kind === 'channel'
          ? chartCopy.sharedComment(chart.trend.range, target.sharedBy)
          : chartCopy.dmComment(chart.trend.range)),
    });
    return { ok: true, channel };
  } catch (error) {
    const code = slackErrorCode(error);
    deps.log.warn('visitors.chart_upload_failed', { target: target.kind, code });
    return { ok: false, code, ...retryAfterField(error) };
  }
}

export type ChartPost =
  | { ok: true; as: 'blocks' | 'picture' }
  | FailedFor<'fetch_failed' | 'post_failed' | 'slack_busy'>;

/** Where a chart is posted for everyone: the channel, who asked, the message's words and the PNG's comment. */
export interface ChartPlace {
  channel: string;
  sharedBy: string;
  text: string;
  comment: string;
  /** The range's top pages, drawn under the chart as a data table (a shared chart's; a digest lists its own). */
  pages?: PageVisitors[];
}

/**
 * A trend in a channel (a shared chart, a digest's): drawn by Slack as a chart message (with its pages as a data
 * table when given) when it can, else its PNG uploaded there: more than 20 points, or a workspace that refuses the
 * blocks with `invalid_blocks`. Any other refusal (not in the channel, archived) is the answer; Slack's 429 on the post
 * is `slack_busy` (nothing posted).
 */
export async function postChartIn(
  deps: PageDeps & Pick<Deps, 'slack'>,
  project: string,
  query: ReportQuery,
  where: ChartPlace,
): Promise<ChartPost> {
  const fetched = await fetchTrend(deps, project, query);
  if (!fetched.ok) return { ok: false, reason: 'fetch_failed', failure: fetched.failure };
  const block = trendChart(fetched.trend);
  if (block) {
    const table = where.pages && pagesTable(where.pages, reportCopy.tableCaption);
    const blocks = [section(where.text), block, ...(table ? [table] : [])];
    try {
      await deps.slack.chat.postMessage({ channel: where.channel, text: where.text, blocks });
      return { ok: true, as: 'blocks' };
    } catch (error) {
      const failure = classifySlackError(error);
      deps.log.warn('visitors.chart_post_failed', { code: failure.code });
      if (failure.kind === 'rate_limited')
        return { ok: false, reason: 'slack_busy', retryAfterMs: failure.retryAfterMs };
      if (failure.code !== 'invalid_blocks') return { ok: false, reason: 'post_failed', code: failure.code };
    }
  } else deps.log.info('visitors.chart_as_picture', { reason: 'limits', points: fetched.trend.points.length });
  const chart = await drawChart(deps, project, query, fetched.trend);
  const target = { kind: 'channel' as const, channel: where.channel, sharedBy: where.sharedBy };
  const uploaded = await uploadChart(deps, chart, target, where.comment);
  if (uploaded.ok) return { ok: true, as: 'picture' };
  // Slack's 429 on the upload: nothing was shared, and it can be done after Retry-After, as a post can.
  if (uploaded.retryAfterMs !== undefined)
    return { ok: false, reason: 'slack_busy', retryAfterMs: uploaded.retryAfterMs };
  return { ok: false, reason: 'post_failed', code: uploaded.code };
}
