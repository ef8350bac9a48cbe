import type { Deps } from '../deps.js';
import { type Message, notice } from '../slack/message.js';
import type { Audience } from '../slack/reply.js';
import { oncePerBurst, REPEATED } from '../store/claims.js';
import { keys } from '../store/keys.js';
import type { Task } from '../task.js';
import { type ReportMessages, reportMessages } from './blocks.js';
import { sendChart, shareChart } from './chart/send.js';
import { commandFor, encodeQuery } from './date-range.js';
import { digestAnswer } from './digest/messages.js';
import { manageDigest } from './digest/subscribe.js';
import { exportVisitorsCsv } from './export.js';
import { type Failed, failedText } from './failures.js';
import { errorCopy } from './messages.js';
import type { PageDeps } from './report/page.js';
import { shareReport } from './report/share.js';
import { type ReportResult, showReport } from './report/show.js';
import { type DigestRequest, projectQuery, type ReportRequest, type ReportRequestSchema } from './requests.js';
import { handBack, SLACK_BUSY_TRIES } from './slack-busy.js';
import { visitorsTasks } from './visitors-tasks.js';

// The visitors' work after a door's ack, one function per kind of request (declared as tasks in
// visitors-tasks.ts). Each runs its use case on the plain request the door made, then gives the person one answer;
// an unexpected throw is answered by the task's `unavailable` words (src/app/dispatch.ts `runTask`).

type TaskDeps = PageDeps & Pick<Deps, 'slack' | 'instanceId' | 'replies' | 'lanes' | 'workspace' | 'digestEveryMs'>;

/** The report's page, privately. */
export async function runReport(deps: TaskDeps, request: ReportRequest): Promise<void> {
  const report = await showReport(deps, projectQuery(request));
  if (!report.ok) return tell(deps, request.audience, failed(request, report));
  const { audience } = request;
  const offer = (table: Message) => deps.replies.offer(audience, table);
  await tableOrText(deps, reportMessage(report), offer, (text) => deps.replies.privately(audience, text));
}

/** ← Previous / Next →: the neighbouring page replaces the report the button was on. */
export async function runTurnPage(deps: TaskDeps, request: ReportRequest): Promise<void> {
  const report = await showReport(deps, projectQuery(request));
  if (!report.ok) return tell(deps, request.audience, failed(request, report));
  // A click always brings its response_url; without one there is no message to replace.
  const { responseUrl } = request.audience;
  if (!responseUrl) return;
  const replace = (message: Message) => deps.replies.replace(responseUrl, message);
  await tableOrText(deps, reportMessage(report), replace, replace);
}

/** The report posted in the conversation: the post speaks for itself, a failure is said privately. */
export async function runShare(deps: TaskDeps, request: ReportRequest): Promise<void> {
  const shared = await oncePerClick(deps, request, 'report', () => shareReport(deps, request));
  await answer(deps, visitorsTasks.share, request, shared);
}

/** The CSV uploaded in the conversation, with its progress message there. */
export async function runExport(deps: TaskDeps, request: ReportRequest): Promise<void> {
  await answer(deps, visitorsTasks.export, request, await exportVisitorsCsv(deps, request));
}

/** The chart in the reply, drawn by Slack (or its picture in the person's DM), with a button to share it. */
export async function runChart(deps: TaskDeps, request: ReportRequest): Promise<void> {
  await tell(deps, request.audience, ifFailed(request, await sendChart(deps, request), true));
}

/** The chart uploaded in the conversation (the share button under a sent chart). */
export async function runShareChart(deps: TaskDeps, request: ReportRequest): Promise<void> {
  const shared = await oncePerClick(deps, request, 'chart', () => shareChart(deps, request));
  await answer(deps, visitorsTasks.shareChart, request, shared, true);
}

/** How long a share is held: a second click of the same button by the same person within it posts nothing more. */
const SHARE_REPEAT_MS = 30_000;

/** A share posts once for a double click: the repeat is logged and answered by the first one's post. */
async function oncePerClick(
  deps: TaskDeps,
  { query, project, audience }: ReportRequest,
  what: 'report' | 'chart',
  share: () => Promise<{ ok: true } | Failed>,
): Promise<{ ok: true } | Failed> {
  const key = keys.visitorsShare(project, audience.channel, audience.userId, what, encodeQuery(query));
  const holder = { claims: deps.store.claims, owner: deps.instanceId };
  const result = await oncePerBurst(holder, key, SHARE_REPEAT_MS, share);
  if (result.ok || result.reason !== REPEATED.reason) return result;
  deps.log.info('visitors.share_repeated', { user: audience.userId, channel: audience.channel, what });
  return { ok: true };
}

/** `/visitors digest …`: shown, ended or set, and confirmed privately. */
export async function runDigest(deps: TaskDeps, request: DigestRequest): Promise<void> {
  await tell(deps, request.audience, digestAnswer(await manageDigest(deps, request), deps.now()));
}

/**
 * The person's answer to work that posts in their conversation: none when it was done. When Slack rate-limited the
 * post (it did nothing), the same work goes back to its lane for Slack's Retry-After, and the person hears once that
 * it is coming; still refused after `SLACK_BUSY_TRIES`, they hear when to try again.
 */
async function answer(
  deps: TaskDeps,
  task: Task<typeof ReportRequestSchema>,
  request: ReportRequest,
  result: { ok: true } | Failed,
  chart = false,
): Promise<void> {
  if (!result.ok && result.reason === 'slack_busy') {
    const tries = request.slackBusy ?? 0;
    const again = { ...request, slackBusy: tries + 1 };
    if (tries < SLACK_BUSY_TRIES && (await handBack(deps, task, again, result.retryAfterMs))) {
      if (tries === 0) await tell(deps, request.audience, notice(errorCopy.slackBusyLater(result.retryAfterMs)));
      return;
    }
  }
  await tell(deps, request.audience, ifFailed(request, result, chart));
}

async function tell(deps: TaskDeps, audience: Audience, message: Message | undefined): Promise<void> {
  if (message) await deps.replies.privately(audience, message);
}

function reportMessage(report: ReportResult & { ok: true }): ReportMessages {
  return reportMessages(report.page, { previous: report.previous, previousUntil: report.previousUntil });
}

/**
 * The report with its rows as a data table when Slack takes it (`tryTable` says whether it did), else with them as
 * text (`invalid_blocks`: a workspace or client that does not draw the block).
 */
async function tableOrText(
  deps: TaskDeps,
  { table, text }: ReportMessages,
  tryTable: (table: Message) => Promise<boolean>,
  sendText: (text: Message) => Promise<unknown>,
): Promise<void> {
  if (table && (await tryTable(table))) return;
  if (table) deps.log.warn('visitors.report_as_text', { reason: 'refused' });
  await sendText(text);
}

/** "Try again" wording repeats the query as asked (a project only when it was named; `chart` when it was one). */
function failed(request: ReportRequest, result: Failed, chart = false): Message {
  return notice(failedText(result, request.query, commandFor(request.query, chart), request.audience.channel));
}

function ifFailed(request: ReportRequest, result: { ok: true } | Failed, chart = false): Message | undefined {
  return result.ok ? undefined : failed(request, result, chart);
}
