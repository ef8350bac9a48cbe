import { FILES_REFUSED, NOT_IN_CHANNEL, POST_RESTRICTED, POSTING_SUSPENDED } from '../slack/errors.js';
import { type Message, section } from '../slack/message.js';
import { escapeMrkdwn, inlineCode, truncate, userMention } from '../slack/mrkdwn.js';
import { todayNumber, UTC } from '../zone.js';
import { commandFor, DEFAULT_ROWS, MAX_RANGE_DAYS, type ReportQuery } from './date-range.js';
import { dayString } from './days.js';
import { formatCount, formatRange, waitWords } from './format.js';
import type { DayRange } from './periods.js';

/** Every sentence `/visitors` says to people. Builders here are pure and return a plain `text` fallback. */

export const BUTTON_LABELS = {
  prev: '← Previous',
  next: 'Next →',
  share: 'Share to channel',
  csv: 'Download CSV',
  chart: 'Chart',
  shareChart: 'Share chart to channel',
} as const;

export const reportCopy = {
  header: ({ from, to, project }: ReportQuery) =>
    `Unique visitors · ${project ? `${project} · ` : ''}${formatRange(from, to)}`,
  total: 'Total visitors',
  human: 'Human',
  ai: 'AI',
  aiShare: 'AI share',
  dedupNote:
    'Total counts each visitor once: someone seen both as a human and as an AI agent is one visitor, ' +
    'so Total is not Human + AI. AI share is AI visitors as a share of Total.',
  tableHeader: { rank: '#', path: 'Page', total: 'Total', human: 'Human', ai: 'AI', bar: 'Human/AI' },
  dataTableHeader: { path: 'Page', total: 'Visitors', human: 'Human', ai: 'AI', aiShare: 'AI share' },
  tableCaption: 'Unique visitors per page',
  noVisitors: 'No visitors in this range. Try a longer range, e.g. `/visitors 30d`.',
  pastTheEnd: (shared: boolean) =>
    `No more rows: this page is past the end of the list.${shared ? '' : ' Go back with *← Previous*.'}`,
  rows: (first: number, last: number) => `Rows ${formatCount(first)}–${formatCount(last)}`,
  noRows: 'No rows',
  moreRowsHidden: (hidden: number) =>
    `…and ${formatCount(hidden)} more rows on this page that do not fit in one message. Use *Download CSV* for all of them.`,
  legend: 'bar: █ human ░ AI',
  comparedWith: (previous: { from: string; to: string }, until?: string) =>
    `Changes compare with the previous period, ${formatRange(previous.from, previous.to)}${until ? ` up to ${until} (as far into it as this one has run)` : ''}; AI share changes in percentage points.`,
  zone: (tz: string) => `dates in ${tz}`,
  fetched: (when: string) => `fetched ${when}`,
  sharedBy: (userId: string) => `Shared by ${userMention(userId)}`,
  fallback: (query: ReportQuery, total: number, human: number, ai: number) =>
    `${reportCopy.header(query)}: ${formatCount(total)} total (${formatCount(human)} human, ${formatCount(ai)} AI).`,
};

/** The syntax, with examples that are never in the future (they end yesterday). */
/** Usage, after `problem` when there is one, ending with which project the channel uses (`projects`, mrkdwn). */
export function helpMessage(nowMs: number, problem?: string, projects?: string, tz: string = UTC): Message {
  const today = todayNumber(nowMs, tz);
  const start = dayString(today - 7);
  const end = dayString(today - 1);
  const lines = [
    `*How to use \`/visitors\`* (${reportCopy.zone(tz)}, from your Slack profile)`,
    '• `/visitors` — the last 7 days, including today',
    `• \`/visitors today\`, \`yesterday\`, \`7d\`, \`30d\`, \`90d\` — any \`Nd\` from 1d to ${MAX_RANGE_DAYS}d, ending today`,
    '• `/visitors this week` (from Monday) · `last week` · `this month` (so far) · `last month` · `november` (or `nov 2025`)',
    `• \`/visitors ${end}\` — one day`,
    `• \`/visitors ${start} ${end}\` or \`/visitors ${start}..${end}\` — both days included`,
    `• Add \`top N\` for rows per page (1–250, default ${DEFAULT_ROWS}), e.g. \`/visitors 30d top 25\``,
    '• Add `chart` for a trend chart, e.g. `/visitors 14d chart` (drawn in my reply; as a picture in your DM with me where Slack cannot draw it, such as more than 20 points)',
    '• `/visitors digest weekly` (or `daily`, `monthly`, with a time of day such as `16:30`, yours) posts a digest here on a schedule; `/visitors digest` shows it, `/visitors digest off` ends it',
    `Ranges can be up to ${MAX_RANGE_DAYS} days long.`,
    ...(projects ? [projects] : []),
  ];
  const intro = problem ? `:warning: ${problem}` : undefined;
  const body = lines.join('\n');
  return {
    text: [
      problem ? `${problem}` : undefined,
      'Usage: /visitors [range] [top N] [chart] | /visitors digest [weekly|daily|monthly|off]. Try /visitors 30d',
    ]
      .filter(Boolean)
      .join(' '),
    blocks: [...(intro ? [section(intro)] : []), section(body)],
  };
}

/** A 404, which the analytics documents never give: a project id the service does not know, or a wrong URL. */
/**
 * A button of a project the workspace no longer connects (many workspaces: Disconnect, or another project
 * connected since the message was made).
 */
export const projectNotConnected = (project: string) =>
  `Project ${inlineCode(project)} is not connected to Mintlify in this workspace any more, so this button can’t run. An admin can connect it in my *Home* tab.`;

export const UNKNOWN_PROJECT =
  'The analytics service does not know this project (404), so trying again will not help. Please ask your Slack admin to check the app’s Mintlify project id.';

export const errorCopy = {
  unknownProject: (project: string, projects: string) =>
    `I don't serve a project ${project ? inlineCode(project) : 'by that name'}. ${projects}`,
  forgedButton: 'That button is not valid any more. Run `/visitors` again to get a fresh report.',
  invalidRequest: (serviceMessage: string, details: string[]) => {
    const shown = details.slice(0, 5).map((d) => `• ${plain(d, 300)}`);
    const more = details.length > 5 ? [`• …and ${details.length - 5} more`] : [];
    return [
      `The analytics service could not answer that request: ${plain(serviceMessage, 300).replace(/[\s.]+$/, '')}.`,
      ...shown,
      ...more,
    ].join('\n');
  },
  // `command`: what re-runs it (`commandFor`).
  restarting: (command: string) =>
    `The app was restarting before it could run this. Please run it again in a minute: \`${command}\``,
  unavailable: (command: string) =>
    `The analytics service is not answering right now. Please try again in a minute: \`${command}\``,
  noWorker: (command: string, maxAgeMinutes: number) =>
    `This is queued, but no worker is running to take it on. It runs when one starts; if none does within ${maxAgeMinutes} minutes, nothing is done and I tell you. Let whoever runs this app know: \`${command}\``,
  expired: (command: string, maxAgeMinutes: number) =>
    `This waited too long for a worker (over ${maxAgeMinutes} minutes), so it was not run. Please run it again: \`${command}\``,
  // `guessed`: the service named no wait (its documents give a 429 no Retry-After), so none is said as its time.
  rateLimited: (command: string, retryAfterMs: number, guessed?: boolean) =>
    `The analytics service is busy. Please try again in ${guessed ? 'a minute' : `about ${waitWords(retryAfterMs)}`}: \`${command}\``,
  unauthorized:
    'The Mintlify app is misconfigured: the analytics service refused its API key. Please ask your Slack admin to check the app’s Mintlify settings.',
  notConnected:
    'Mintlify is not connected for this project in this workspace any more. An admin can connect it in my *Home* tab.',
  taskFailed: 'Something went wrong on my side. Please try `/visitors` again.',
  notInChannel:
    'I can’t post in this conversation because the app is not a member. Invite it with `/invite @Mintlify` (or your app’s name) and try again.',
  archived:
    'This channel is archived, so nothing can be posted in it. Run the command in a channel that is not archived.',
  notInDirectMessage:
    'I can’t post in a direct message I’m not part of. To share it, run the command in a channel I’m in, or in your DM with me.',
  postRestricted: (code: string) =>
    code === POSTING_SUSPENDED
      ? `Slack’s administrators have suspended my posting (${inlineCode(code, 60)}), so it was not shared. A Slack admin of your organisation can lift it.`
      : `Slack does not let me post in this channel (${inlineCode(code, 60)}): its settings let only some members post here, or only in threads. Run the command in another channel to share it.`,
  filesRefused: (code: string) =>
    `Slack refused the file (${inlineCode(code, 60)}): this workspace’s settings limit file uploads, or its file storage is full, so trying again won’t help until a Slack admin changes that.`,
  postFailed: (code: string) => `I couldn’t post to this conversation (${inlineCode(code, 60)}). Please try again.`,
  // Slack's 429 (`slack-busy.ts`): the work is done after its Retry-After, or, when Slack stays busy, asked again.
  slackBusyLater: (retryAfterMs: number) =>
    `Slack is busy in this conversation right now, so this will be posted in about ${waitWords(retryAfterMs)}.`,
  slackBusy: (retryAfterMs: number) =>
    `Slack is still busy in this conversation and did not take the post. Please try again in about ${waitWords(retryAfterMs)}.`,
  slackBusyFile,
};

/** Slack's post or file refusals that the person or an admin must act on, as a sentence; undefined for the rest. */
export function refusalText(code: string, channel: string): string | undefined {
  if (code === 'is_archived') return errorCopy.archived;
  if (NOT_IN_CHANNEL.has(code) || code === 'invalid_channel')
    return channel.startsWith('D') ? errorCopy.notInDirectMessage : errorCopy.notInChannel;
  if (POST_RESTRICTED.has(code)) return errorCopy.postRestricted(code);
  if (FILES_REFUSED.has(code)) return errorCopy.filesRefused(code);
  return undefined;
}

/** A file's 429 longer than the client waits (src/slack/rate-wait.ts): the person tries again (`/insights` too). */
export function slackBusyFile(retryAfterMs: number): string {
  return `Slack is busy right now and did not take the file. Please try again in about ${waitWords(retryAfterMs)}.`;
}

export const exportCopy = {
  filename: ({ from, to, project }: ReportQuery) => `visitors_${project ? `${project}_` : ''}${from}_${to}.csv`,
  title: (query: ReportQuery) => `Unique visitors ${formatRange(query.from, query.to)}`,
  progress: (query: ReportQuery, userId: string, rows: number) =>
    `:hourglass_flowing_sand: Exporting unique visitors for ${formatRange(query.from, query.to)} for ${userMention(userId)}… ${formatCount(rows)} rows so far.`,
  done: (query: ReportQuery, userId: string, rows: number, capped: boolean) =>
    `:white_check_mark: Unique visitors for ${formatRange(query.from, query.to)}, requested by ${userMention(userId)}: ` +
    `${formatCount(rows)} rows, CSV in the thread.${capped ? ` ${exportCopy.capped(rows)}` : ''}`,
  capped: (rows: number) =>
    `The export stops at ${formatCount(rows)} rows; narrow the range to see the rest. The totals line still covers the whole site.`,
  initialComment: (query: ReportQuery, rows: number, capped: boolean) =>
    `Unique visitors per page, ${formatRange(query.from, query.to)} (${reportCopy.zone(query.tz ?? UTC)}): ${formatCount(rows)} rows.` +
    (capped ? ` ${exportCopy.capped(rows)}` : ''),
  failed: (query: ReportQuery) =>
    `:x: The export of unique visitors for ${formatRange(query.from, query.to)} did not finish.`,
  restarting: (query: ReportQuery) =>
    `:arrows_counterclockwise: The app is restarting, so the export of unique visitors for ${formatRange(query.from, query.to)} stopped before it finished. Run it again in a minute: \`${commandFor(query)}\`, then *Download CSV*.`,
  busy: 'An export of this range is already running here. The file will appear in the thread when it is ready.',
  uploadFailed: (code: string) => `I couldn’t upload the CSV (${inlineCode(code, 60)}). Please try again.`,
};

/** Service text shown to people: one line, escaped, shortened. */
function plain(text: string, max: number): string {
  return escapeMrkdwn(truncate(text.replace(/\s+/g, ' ').trim(), max));
}

export const chartCopy = {
  filename: ({ from, to, project }: { from: string; to: string; project?: string | undefined }) =>
    `visitors_${project ? `${project}_` : ''}${from}_${to}.png`,
  dmComment: (range: DayRange) =>
    `Unique visitors (total, human, AI) for ${formatRange(range.from, range.to)}, ${reportCopy.zone(range.tz ?? UTC)}.`,
  sharedComment: (range: DayRange, userId: string) => `${chartCopy.dmComment(range)} Shared by ${userMention(userId)}.`,
  inReply: (query: ReportQuery) =>
    `:chart_with_upwards_trend: Unique visitors for ${formatRange(query.from, query.to)} (${reportCopy.zone(query.tz ?? UTC)}), and the top pages.`,
  sharedInChannel: (query: ReportQuery, userId: string) =>
    `${chartCopy.inReply(query)} Shared by ${userMention(userId)}.`,
  inChannel: (range: DayRange) =>
    `:chart_with_upwards_trend: The trend of unique visitors, ${formatRange(range.from, range.to)} (${reportCopy.zone(range.tz ?? UTC)}).`,
  blockTitle: (granularity: 'day' | 'week' | 'month') => `Unique visitors per ${granularity}`,
  /** The x axis names the zone whose days the points are: `Day (Pacific/Auckland)`. */
  xAxis: (granularity: 'day' | 'week' | 'month', tz: string) =>
    `${{ day: 'Day', week: 'Week starting', month: 'Month' }[granularity]} (${tz})`,
  yAxis: 'Unique visitors',
  sentToDm: (query: ReportQuery) =>
    `:chart_with_upwards_trend: Your chart of unique visitors for ${formatRange(query.from, query.to)} is in your DM with me (Slack cannot show pictures in a private reply).`,
  uploadFailed: (code: string) => `I couldn’t send you the chart (${inlineCode(code, 60)}). Please try again.`,
};
