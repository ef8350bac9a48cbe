import type { Deps } from '../../deps.js';
import type { ServiceFailure } from '../../mintlify/failure.js';
import { slackErrorCode } from '../../slack/errors.js';
import { section } from '../../slack/message.js';
import { shareFile } from '../../slack/upload.js';
import type { ReportQuery } from '../date-range.js';
import { chartCopy } from '../messages.js';
import type { PageDeps } from '../report/page.js';
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
): Promise<{ ok: true; channel: string } | { ok: false; code: string }> {
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
    return { ok: false, code };
  }
}

/**
 * A trend in a channel (a digest's): drawn by Slack as a chart message when it can, else its PNG uploaded there
 * (more than 20 points, or a workspace that refuses the block with `invalid_blocks`). What was posted, if anything.
 */
export async function postChartIn(
  deps: PageDeps & Pick<Deps, 'slack'>,
  project: string,
  query: ReportQuery,
  where: { channel: string; sharedBy: string; comment: string },
): Promise<'blocks' | 'picture' | undefined> {
  const fetched = await fetchTrend(deps, project, query);
  if (!fetched.ok) return undefined;
  const block = trendChart(fetched.trend);
  if (block) {
    const text = chartCopy.inChannel(fetched.trend.range);
    try {
      await deps.slack.chat.postMessage({ channel: where.channel, text, blocks: [section(text), block] });
      return 'blocks';
    } catch (error) {
      const code = slackErrorCode(error);
      deps.log.warn('visitors.chart_post_failed', { code });
      if (code !== 'invalid_blocks') return undefined;
    }
  }
  const chart = await drawChart(deps, project, query, fetched.trend);
  const target = { kind: 'channel' as const, channel: where.channel, sharedBy: where.sharedBy };
  return (await uploadChart(deps, chart, target, where.comment)).ok ? 'picture' : undefined;
}
