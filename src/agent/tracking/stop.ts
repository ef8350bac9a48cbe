import type { Deps } from '../../deps.js';
import type { Logger } from '../../log.js';
import type { LaneDefinition, Processor } from '../../queue/engine.js';
import { errorText, isLastTry } from '../../queue/job-rules.js';
import type { WorkspaceRef } from '../../workspace-ref.js';
import { trackingStoppedMessage } from '../job-messages.js';
import { steerOf } from '../steering.js';
import { trackingIds } from './track.js';

/** What a poll and an outcome post are about: one round of one workspace's job. */
interface TrackedStep {
  workspace: WorkspaceRef;
  project: string;
  jobId: string;
  round: number;
}

export type StopDeps = Pick<Deps, 'store' | 'slack' | 'log' | 'config' | 'lanes'>;

/**
 * A tracking lane's processor that, when a step fails on its last try, stops tracking the round and tells the
 * person before the engine records the failure (which it still logs as `queue.job_failed` and counts in
 * `queue_jobs_finished_total{outcome="failed"}`). Both engines number a step's tries from 1 (`JobMeta.attempt`),
 * so this reads the same on each; a step that fails by killing its worker (take-overs) comes to `unrun` instead.
 */
export function toldWhenStopped<D extends TrackedStep>(
  lane: Pick<LaneDefinition, 'name' | 'attempts'>,
  work: (data: D) => Promise<unknown>,
  { log, depsOf }: { log: Logger; depsOf: (data: TrackedStep) => Promise<StopDeps> },
): Processor<D> {
  const stop = (data: D, error: unknown) => {
    const fields = { lane: lane.name, project: data.project, job_id: data.jobId, round: data.round };
    return depsOf(data)
      .then((deps) => stopTracking(deps, data, { ...fields, error: errorText(error) }))
      .catch((failure: unknown) =>
        log.error('tracking.stop_failed', {
          ...fields,
          error: errorText(failure),
          hint: 'Tracking this round failed for good and the person may not have been told',
        }),
      );
  };
  const processor: Processor<D> = (data, meta) =>
    work(data).catch(async (error: unknown) => {
      // A run handed back (the engine closing) is not the step's end: its result is ignored, the step runs again.
      if (meta.signal.aborted || !isLastTry(lane, meta, error)) throw error;
      await stop(data, error);
      throw error;
    });
  // A step whose worker kept dying (take-overs) fails without running: the person hears it the same way.
  processor.unrun = stop;
  return processor;
}

/**
 * The round ends as `stopped`, once whatever the number of workers (the store's transition compares the round:
 * only the first caller gets `ok`, and a round that moved on or ended is left alone); that caller says so in the
 * thread and brings the root up to date. A store that refuses this too leaves the operator's log line only.
 */
async function stopTracking(deps: StopDeps, data: TrackedStep, fields: Record<string, unknown>): Promise<void> {
  const stopped = await deps.store.jobs.stopTracking(data, data.round, 'stopped');
  if (!stopped.ok) return;
  const { record } = stopped;
  deps.log.error('tracking.stopped', {
    ...fields,
    channel: record.channel,
    hint: 'Tracking this round failed for good: the thread says so, and a reply there resumes it',
  });
  await deps.slack.chat.postMessage({
    channel: record.channel,
    thread_ts: record.threadTs,
    ...trackingStoppedMessage(record, steerOf(record, deps.config.followUps)),
  });
  const job = { workspace: data.workspace, project: data.project, jobId: data.jobId };
  await deps.lanes.refreshes.add({ ...job, stateChanged: true }, { id: trackingIds.refresh(job) });
}
