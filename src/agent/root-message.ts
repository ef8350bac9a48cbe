import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import type { JobRecord } from './bindings.js';
import { rootMessage } from './messages.js';

/** Rewrites a job's root message (status line) from its record; a Slack failure is logged, never thrown. */
export async function refreshRootMessage(deps: Pick<Deps, 'slack' | 'log' | 'now'>, record: JobRecord): Promise<void> {
  await deps.slack.chat
    .update({ channel: record.channel, ts: record.threadTs, ...rootMessage(record, record, deps.now()) })
    .catch((error) =>
      deps.log.warn('slack.update_failed', {
        op: 'agent.root',
        job_id: record.jobId,
        slack_error: slackErrorCode(error),
      }),
    );
}
