import type { Deps } from '../../deps.js';
import { describeFailure } from '../../mintlify/failure.js';
import { isKnownStatus } from '../../mintlify/schemas.js';
import { Again } from '../../queue/engine.js';
import { budgetKey, rootUpdateBudgets } from '../../slack/tiers.js';
import { CorruptJobError, type JobRecord } from '../../store/jobs.js';
import { keys } from '../../store/keys.js';
import { DATA_LOST_MESSAGE } from '../../store/loss.js';
import { nextPollInterval } from './backoff.js';
import { afterPoll } from './decide.js';
import type { PollData } from './lane-data.js';
import type { OutcomeKind } from './outcome.js';
import { trackingIds } from './track.js';

export type PollDeps = Pick<Deps, 'config' | 'log' | 'store' | 'mintlify' | 'metrics' | 'now' | 'lanes'>;

/**
 * One poll of one round, the `polls` lane's processor. It reads the record, asks the service, and acts on the pure
 * decision (`afterPoll`): the round ended → its outcome is handed to the `outcomes` lane; still running → the record
 * notes what changed, the root is refreshed when due, and the same job runs again after the next interval
 * (`Again`). A round that moved on (a follow-up started the next one, which has its own poll) or ended stops here.
 */
export async function pollRound(deps: PollDeps, data: PollData): Promise<Again | undefined> {
  const { config, metrics, now } = deps;
  const ref = { project: data.project, jobId: data.jobId };
  const log = deps.log.child({ project: data.project, job_id: data.jobId });
  const record = await readRecord(deps, data, log);
  if (!record || record.ended || record.round !== data.round) return undefined;

  const answer = await deps.mintlify.getJob(data.project, data.jobId);
  const timing = {
    now: now(),
    intervalMs: data.intervalMs,
    minMs: config.pollIntervalMs,
    maxMs: config.pollMaxIntervalMs,
    jobMaxAgeMs: config.jobMaxAgeMs,
  };
  const decision = afterPoll(answer, record, timing, { seenRunning: data.lastStatus !== null });
  switch (decision.kind) {
    case 'not_taken_up': {
      metrics.pollResult('running');
      log.info('poller.follow_up_pending', { round: data.round, status: answer.ok ? answer.value.status : undefined });
      return new Again(data, data.intervalMs);
    }
    case 'not_landed':
      metrics.pollResult('ended');
      return endNotLanded(deps, data, decision.ended, log);
    case 'retry': {
      metrics.pollResult('failed');
      log.warn('poller.get_failed', {
        error: answer.ok ? undefined : describeFailure(answer),
        retry_in_ms: decision.waitMs,
      });
      const intervalMs = Math.min(config.pollMaxIntervalMs, decision.waitMs);
      return new Again({ ...data, intervalMs }, decision.waitMs);
    }
    case 'conclude': {
      metrics.pollResult(decision.outcome.kind === 'gone' && !answer.ok ? 'gone' : 'ended');
      const delivery = { workspace: data.workspace, ...ref, round: data.round, outcome: decision.outcome, failing: {} };
      await deps.lanes.outcomes.add(delivery, { id: trackingIds.outcome(data) });
      return undefined;
    }
    case 'running': {
      metrics.pollResult('running');
      const { observation } = decision;
      // An unsure round's job seen running again took its follow-up up: `observe` clears `unsure`, a change to show.
      const changed = await deps.store.jobs.observe(ref, observation);
      // Logged when it first shows (a change), not at every poll: the root shows it as it came.
      if (changed && !isKnownStatus(observation.status)) {
        log.warn('poller.unknown_status', { status: observation.status, hint: 'read as not ended' });
      }
      // A new elapsed time once a minute, while the workspace's budget for it lasts (see slack/tiers.ts). A refused
      // ask waits a window too: asking again at every poll cost ~6 Redis commands a poll once the budget was spent.
      const asks = now() - data.refreshedAt >= config.slackRateWindowMs;
      const due = asks && (await elapsedRefreshAllowed(deps, data));
      if (changed || due) {
        const job = { workspace: data.workspace, ...ref };
        await deps.lanes.refreshes.add({ ...job, stateChanged: changed }, { id: trackingIds.refresh(job) });
      }
      const statusChanged = data.lastStatus !== null && data.lastStatus !== observation.status;
      const intervalMs = nextPollInterval(
        data.intervalMs,
        statusChanged,
        config.pollIntervalMs,
        config.pollMaxIntervalMs,
      );
      const refreshedAt = changed || asks ? now() : data.refreshedAt;
      return new Again({ ...data, intervalMs, lastStatus: observation.status, refreshedAt }, intervalMs);
    }
  }
}

/**
 * A follow-up of unknown fate never reached the agent: its round ends quietly. Nothing to post or rewrite: the thread
 * has this end, and every view of the job showed it meanwhile (`shownEnd`).
 */
async function endNotLanded(deps: PollDeps, data: PollData, ended: OutcomeKind, log: Deps['log']): Promise<undefined> {
  await deps.store.jobs.endRound({ project: data.project, jobId: data.jobId }, data.round, ended);
  log.info('poller.follow_up_not_landed', { round: data.round, ended });
  return undefined;
}

async function elapsedRefreshAllowed(deps: PollDeps, data: PollData): Promise<boolean> {
  return (await rootUpdateBudgets(deps.store, deps.config).elapsedAsked.take(budgetKey(data.workspace))).ok;
}

/** The round's record; a corrupt one is logged and dropped from tracking, never polled through. */
async function readRecord(deps: PollDeps, data: PollData, log: Deps['log']): Promise<JobRecord | undefined> {
  const ref = { project: data.project, jobId: data.jobId };
  try {
    const record = await deps.store.jobs.get(ref);
    if (!record && (await deps.store.kv.get(keys.workspaceRemoved()))) {
      log.info('tracking.gone_with_workspace', { round: data.round }); // removed (and installed again) meanwhile
    } else if (!record) {
      // Its poll lives, its record does not: the store lost data (evicted, flushed). Healing (`healing/`) or a
      // reply in the thread binds it again.
      log.error('store.record_lost', { round: data.round, message: DATA_LOST_MESSAGE });
      deps.metrics.storeDataLost('record');
    }
    if (!record || record.ended) await deps.store.jobs.untrack(ref);
    return record;
  } catch (error) {
    if (!(error instanceof CorruptJobError)) throw error;
    log.error('store.corrupt_record', { problems: error.problems });
    await deps.store.jobs.untrack(ref);
    return undefined;
  }
}
