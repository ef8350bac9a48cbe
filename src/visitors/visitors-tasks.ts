import type { TaskLane } from '../lanes.js';
import { notice } from '../slack/message.js';
import { defineTask, TASK_MAX_AGE_MINUTES, type Unavailable } from '../task.js';
import { commandFor } from './date-range.js';
import { VISITORS_DIGEST } from './digest/kind.js';
import { digestUnavailable } from './digest/messages.js';
import { getSubscription } from './digest/store.js';
import { errorCopy } from './messages.js';
import {
  DigestChartSchema,
  DigestRequestSchema,
  ProgressEditSchema,
  ReportRequestSchema,
  ScheduledDigestSchema,
} from './requests.js';

// What the visitors' doors (and digest schedulers) hand on: each task's kind, lane and data (`requests.ts`);
// `visitors-work.ts` says what runs each. When a report's work is not done (see `Unavailable`), the person gets
// "try again" with the command to re-run.

/** By why the work was not done, given the command that re-runs it. */
const answers: Record<Unavailable, (command: string) => string> = {
  store: errorCopy.unavailable,
  restarting: errorCopy.restarting,
  no_worker: (command) => errorCopy.noWorker(command, TASK_MAX_AGE_MINUTES),
  expired: (command) => errorCopy.expired(command, TASK_MAX_AGE_MINUTES),
  failed: () => errorCopy.taskFailed,
};

/** A report's task; `chart`: its work is the range's chart, and "try again" says so. */
const report = (kind: string, lane: TaskLane, chart = false) =>
  defineTask({
    kind,
    lane,
    schema: ReportRequestSchema,
    unavailable: (deps, { audience, query }, why) =>
      deps.replies.privately(audience, notice(answers[why](commandFor(query, chart)))),
  });

export const visitorsTasks = {
  report: report('visitors.report', 'reports'),
  turnPage: report('visitors.turn_page', 'reports'),
  share: report('visitors.share', 'reports'),
  digest: defineTask({
    kind: 'visitors.digest',
    lane: 'reports',
    schema: DigestRequestSchema,
    unavailable: digestUnavailable(errorCopy.taskFailed, { kind: VISITORS_DIGEST, read: getSubscription }),
  }),
  /** An occurrence of a subscription's scheduler (digest/scheduler.ts): the engine runs each once. */
  scheduledDigest: defineTask({
    kind: 'visitors.scheduled_digest',
    lane: 'digests',
    schema: ScheduledDigestSchema,
  }),
  // Charts and exports make dozens of requests each: lanes of their own, never delaying reports or the agent.
  export: report('visitors.export', 'exports'),
  /** An export's last edit that Slack's 429 put off: one quick call, so on the reports lane, not behind exports. */
  finishExport: defineTask({ kind: 'visitors.finish_export', lane: 'reports', schema: ProgressEditSchema }),
  chart: report('visitors.chart', 'charts', true),
  /** A digest's chart that Slack's 429 put off: nobody waits on it, the digest above it went out. */
  digestChart: defineTask({ kind: 'visitors.digest_chart', lane: 'charts', schema: DigestChartSchema }),
  shareChart: report('visitors.share_chart', 'charts', true),
};
