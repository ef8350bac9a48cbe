import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import { ACTION_IDS } from './blocks.js';
import { chartSpec, chartTitle, renderChart } from './chart.js';
import { encodeRequest, type VisitorsRequest } from './date-range.js';
import { postFailedText } from './export.js';
import { BUTTON_LABELS, chartCopy, notice, type SlackMessage } from './messages.js';
import { failureText } from './report.js';
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

/** Fetches the trend (≤ 31 `limit=1` requests, cached) and renders it; failures come back as the reply text. */
export async function makeChart(
  deps: Deps,
  project: string,
  request: VisitorsRequest,
): Promise<{ ok: true; chart: ChartPicture } | { ok: false; text: string }> {
  const started = performance.now();
  const fetched = await fetchTrend(deps, project, request);
  if (!fetched.ok) return { ok: false, text: failureText(fetched.failure, request) };
  const png = await renderChart(chartSpec(fetched.trend));
  deps.log.info('visitors.chart', {
    project,
    from: request.from,
    to: request.to,
    points: fetched.trend.points.length,
    bytes: png.length,
    duration_ms: Math.round(performance.now() - started),
  });
  return { ok: true, chart: { trend: fetched.trend, png, project: request.project } };
}

/** Uploads the PNG (files.uploadV2: getUploadURLExternal → upload → completeUploadExternal). Returns the error code on failure. */
export async function uploadChart(
  deps: Deps,
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
    await deps.slack.filesUploadV2({
      channel_id: channel,
      file: chart.png,
      filename: chartCopy.filename({ ...chart.trend.range, project: chart.project }),
      title,
      alt_text: title,
      initial_comment:
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

/** The private note in the conversation after a chart went to the DM: where it is, and a button to share it. */
export function chartSentMessage(request: VisitorsRequest): SlackMessage {
  const text = chartCopy.sentToDm(request);
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: ACTION_IDS.shareChart,
            text: { type: 'plain_text', text: BUTTON_LABELS.shareChart },
            value: encodeRequest({ ...request, offset: 0 }),
          },
        ],
      },
    ],
  };
}

/** Chart for one person: rendered, sent to their DM, then a private note (or what went wrong). */
export async function sendChartPrivately(
  deps: Deps,
  project: string,
  request: VisitorsRequest,
  userId: string,
  tellPrivately: (message: SlackMessage) => Promise<void>,
): Promise<void> {
  const made = await makeChart(deps, project, request);
  if (!made.ok) return tellPrivately(notice(made.text));
  const uploaded = await uploadChart(deps, made.chart, { kind: 'dm', userId });
  await tellPrivately(uploaded.ok ? chartSentMessage(request) : notice(chartCopy.uploadFailed(uploaded.code)));
}

/** Chart shared into the conversation (from the share button); private word only when it fails. */
export async function shareChart(
  deps: Deps,
  project: string,
  request: VisitorsRequest,
  channel: string,
  userId: string,
  tellPrivately: (message: SlackMessage) => Promise<void>,
): Promise<void> {
  const made = await makeChart(deps, project, request);
  if (!made.ok) return tellPrivately(notice(made.text));
  const uploaded = await uploadChart(deps, made.chart, { kind: 'channel', channel, sharedBy: userId });
  if (!uploaded.ok) await tellPrivately(notice(postFailedText(uploaded.code)));
  else deps.log.info('visitors.chart_shared', { user: userId, channel, from: request.from, to: request.to });
}
