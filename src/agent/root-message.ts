import type { Deps } from '../deps.js';
import { slackErrorCode } from '../slack/errors.js';
import type { JobRef } from '../store/jobs.js';
import { rootMessage } from './messages.js';

/** Rewrites after a rival update, at most: each transition's own refresh covers what comes after it. */
const MAX_REWRITES = 3;

/**
 * Rewrites a job's root message (its status line) from the stored record. Several updaters can race (a
 * follow-up, the poller, another replica) and Slack keeps whichever update lands last, so after each update
 * the record is read again and the message rewritten if it changed meanwhile (`rev`): the last word is always
 * the latest state. Failures are logged, never thrown.
 */
export async function refreshRootMessage(
  deps: Pick<Deps, 'slack' | 'log' | 'now' | 'store' | 'projects' | 'jobWatchers'>,
  ref: JobRef,
  { stateChanged = true }: { stateChanged?: boolean } = {},
): Promise<void> {
  try {
    let record = await deps.store.jobs.get(ref);
    for (let i = 0; record && i < MAX_REWRITES; i++) {
      const message = rootMessage(record, { now: deps.now(), showProject: deps.projects.all.length > 1 });
      await deps.slack.chat.update({ channel: record.channel, ts: record.statusTs, ...message });
      const latest = await deps.store.jobs.get(ref);
      if (!latest || latest.rev === record.rev) break;
      record = latest;
    }
    // Other views of the job (App Home) follow its state, not the elapsed-time refreshes.
    if (record && stateChanged) await deps.jobWatchers?.changed(record);
  } catch (error) {
    deps.log.warn('agent.root_refresh_failed', {
      job_id: ref.jobId,
      project: ref.project,
      slack_error: slackErrorCode(error),
      error,
    });
  }
}
