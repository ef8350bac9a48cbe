import type { Deps } from '../deps.js';
import type { Message } from '../slack/message.js';
import type { Audience } from '../slack/reply.js';
import { buildReport } from './blocks.js';
import { sendChart, shareChart } from './chart/send.js';
import { digestAnswer } from './digest/messages.js';
import { manageDigest } from './digest/subscribe.js';
import { exportVisitorsCsv } from './export.js';
import { type Failed, failedText } from './failures.js';
import { errorCopy, notice } from './messages.js';
import type { PageDeps } from './report/page.js';
import { shareReport } from './report/share.js';
import { type ReportResult, showReport } from './report/show.js';
import { type DigestRequest, projectQuery, type ReportRequest } from './requests.js';

// The visitors' work after a door's ack, one function per kind of request (registered with its lane in
// src/tasks.ts). Each runs its use case on the plain request the door made, then gives the person one answer.

type TaskDeps = PageDeps & Pick<Deps, 'slack' | 'instanceId' | 'replies' | 'lanes' | 'workspace' | 'digestEveryMs'>;

/** The report's page, privately. */
export const runReport = guarded('report', async (deps, request: ReportRequest) => {
  const report = await showReport(deps, projectQuery(request));
  await tell(deps, request.audience, report.ok ? reportMessage(report) : failed(request, report));
});

/** ← Previous / Next →: the neighbouring page replaces the report the button was on. */
export const runTurnPage = guarded('turn_page', async (deps, request: ReportRequest) => {
  const report = await showReport(deps, projectQuery(request));
  if (!report.ok) return tell(deps, request.audience, failed(request, report));
  // A click always brings its response_url; without one there is no message to replace.
  const { responseUrl } = request.audience;
  if (responseUrl) await deps.replies.replace(responseUrl, reportMessage(report));
});

/** The report posted in the conversation: the post speaks for itself, a failure is said privately. */
export const runShare = guarded('share', async (deps, request: ReportRequest) => {
  await tell(deps, request.audience, ifFailed(request, await shareReport(deps, request)));
});

/** The CSV uploaded in the conversation, with its progress message there. */
export const runExport = guarded('export', async (deps, request: ReportRequest) => {
  await tell(deps, request.audience, ifFailed(request, await exportVisitorsCsv(deps, request)));
});

/** The chart in the reply, drawn by Slack (or its picture in the person's DM), with a button to share it. */
export const runChart = guarded('chart', async (deps, request: ReportRequest) => {
  await tell(deps, request.audience, ifFailed(request, await sendChart(deps, request)));
});

/** The chart uploaded in the conversation (the share button under a sent chart). */
export const runShareChart = guarded('share_chart', async (deps, request: ReportRequest) => {
  await tell(deps, request.audience, ifFailed(request, await shareChart(deps, request)));
});

/** `/visitors digest …`: shown, ended or set, and confirmed privately. */
export const runDigest = guarded('digest', async (deps, request: DigestRequest) => {
  await tell(deps, request.audience, digestAnswer(await manageDigest(deps, request), deps.now()));
});

async function tell(deps: TaskDeps, audience: Audience, message: Message | undefined): Promise<void> {
  if (message) await deps.replies.privately(audience, message);
}

function reportMessage(report: ReportResult & { ok: true }): Message {
  return buildReport(report.page, { previous: report.previous, previousUntil: report.previousUntil });
}

/** "Try again" wording repeats the query as asked (a project only when it was named). */
function failed(request: ReportRequest, result: Failed): Message {
  return notice(failedText(result, request.query));
}

function ifFailed(request: ReportRequest, result: { ok: true } | Failed): Message | undefined {
  return result.ok ? undefined : failed(request, result);
}

/** Anything unexpected is logged and answered with a plain apology, so nobody waits on a reply that never comes. */
function guarded<R extends { audience: Audience }>(what: string, run: (deps: TaskDeps, request: R) => Promise<void>) {
  return async (deps: TaskDeps, request: R): Promise<void> => {
    try {
      await run(deps, request);
    } catch (error) {
      deps.log.error('visitors.task_failed', { what, error });
      await deps.replies.privately(request.audience, { text: errorCopy.taskFailed });
    }
  };
}
