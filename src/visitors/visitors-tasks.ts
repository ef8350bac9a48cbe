import type { TaskLane } from '../lanes.js';
import { notice } from '../slack/message.js';
import { defineTask, TASK_MAX_AGE_MINUTES, type Unavailable } from '../task.js';
import type { ReportQuery } from './date-range.js';
import { digestUnavailable } from './digest/messages.js';
import { errorCopy } from './messages.js';
import { DigestRequestSchema, ReportRequestSchema, ScheduledDigestSchema } from './requests.js';

// What the visitors' doors (and digest schedulers) hand on: each task's kind, lane and data (`requests.ts`);
// `visitors-work.ts` says what runs each. When a report's work is not done (see `Unavailable`), the person gets
// "try again" with the command to re-run.

const answers: Record<Unavailable, (query: ReportQuery) => string> = {
  store: errorCopy.unavailable,
  restarting: errorCopy.restarting,
  no_worker: (query) => errorCopy.noWorker(query, TASK_MAX_AGE_MINUTES),
  expired: (query) => errorCopy.expired(query, TASK_MAX_AGE_MINUTES),
  failed: () => errorCopy.taskFailed,
};

const report = (kind: string, lane: TaskLane) =>
  defineTask({
    kind,
    lane,
    schema: ReportRequestSchema,
    unavailable: (deps, { audience, query }, why) => deps.replies.privately(audience, notice(answers[why](query))),
  });

export const visitorsTasks = {
  report: report('visitors.report', 'reports'),
  turnPage: report('visitors.turn_page', 'reports'),
  share: report('visitors.share', 'reports'),
  digest: defineTask({
    kind: 'visitors.digest',
    lane: 'reports',
    schema: DigestRequestSchema,
    unavailable: digestUnavailable(errorCopy.taskFailed),
  }),
  /** An occurrence of a subscription's scheduler (digest/scheduler.ts): the engine runs each once. */
  scheduledDigest: defineTask({
    kind: 'visitors.scheduled_digest',
    lane: 'digests',
    schema: ScheduledDigestSchema,
  }),
  // Charts and exports make dozens of requests each: lanes of their own, never delaying reports or the agent.
  export: report('visitors.export', 'exports'),
  chart: report('visitors.chart', 'charts'),
  shareChart: report('visitors.share_chart', 'charts'),
};
