import { setTimeout as sleep } from 'node:timers/promises';
import { deliverRound } from '../agent/tracking/deliver.js';
import { pollRound } from '../agent/tracking/poll.js';
import { refreshRoot } from '../agent/tracking/root-message.js';
import { toldWhenStopped } from '../agent/tracking/stop.js';
import type { Deps } from '../deps.js';
import { republishHome } from '../home/republish.js';
import { LANES, type LaneDefinitions, TASK_LANES, type TaskEnvelope } from '../lanes.js';
import type { Engine, JobMeta, Processor } from '../queue/engine.js';
import { isLastTry } from '../queue/job-rules.js';
import { keys } from '../store/keys.js';
import { installationOf, unlessGone, type WorkspaceRef } from '../workspace-ref.js';
import { answerUnrun, runTask, type Work } from './dispatch.js';

/** The worker role: a processor for every lane. Processors hold no state between jobs, so any worker takes any job. */
export function startWorkers(engine: Engine, deps: Deps, work: Work, lanes: LaneDefinitions = LANES): void {
  const scope = (data: { workspace: WorkspaceRef }) => deps.workspaces.scope(data.workspace);
  // Work of a workspace that removed the app is dropped, not retried: nothing more is polled or posted there.
  const unlessRemoved =
    <A extends [{ workspace: WorkspaceRef }, ...unknown[]], R>(work: (...args: A) => Promise<R>) =>
    (...args: A) =>
      work(...args).catch((error: unknown) => {
        unlessGone(error);
        deps.log.info('workspace.work_dropped', {
          workspace: installationOf(args[0].workspace),
          reason: 'app removed',
        });
        return undefined;
      });
  // The person hears a task's `failed` words once: on its last try, or when its worker kept dying (take-overs).
  for (const lane of TASK_LANES) {
    const definition = lanes.tasks[lane];
    const processor: Processor<TaskEnvelope> = unlessRemoved((envelope: TaskEnvelope, meta: JobMeta) =>
      runTask(deps, work, envelope, (error) => isLastTry(definition, meta, error), { id: meta.id }),
    );
    processor.unrun = (envelope, _error, { id }) => answerUnrun(deps, work, envelope, 'failed', { id });
    engine.work(definition, processor);
  }
  // A poll or an outcome post out of tries stops its round and tells the person in the thread, once.
  const told = { log: deps.log, depsOf: scope };
  engine.work(
    lanes.polls,
    toldWhenStopped(
      lanes.polls,
      unlessRemoved(async (data) => pollRound(await scope(data), data)),
      told,
    ),
  );
  engine.work(
    lanes.outcomes,
    toldWhenStopped(
      lanes.outcomes,
      unlessRemoved(async (data) => deliverRound(await scope(data), data)),
      told,
    ),
  );
  engine.work(
    lanes.refreshes,
    unlessRemoved(async (data) => refreshRoot(await scope(data), data)),
  );
  engine.work(
    lanes.homes,
    unlessRemoved(async (data) => republishHome(await scope(data), data)),
  );
}

/** One instance takes the active jobs over at a time, under this claim, released when it is done. */
const ADOPT_CLAIM_MS = 60_000;
/** After a failed try, or while another instance adopts: the first wait, doubled up to ADOPT_RETRY_MAX_MS. */
const ADOPT_RETRY_MS = 1_000;
const ADOPT_RETRY_MAX_MS = 60_000;

export interface AdoptOptions {
  /** The first wait between tries (tests shorten it). */
  retryMs?: number;
}

/**
 * Every job the store says is still tracked (its project's active index) gets its round's poll. This is how an
 * upgrade from the release that polled from the index loses nothing, and it costs nothing for jobs already on the
 * engine: adding a round's poll again is one job. Run at start, in the background, until it completes (a store or
 * queue error midway is tried again) or the app stops. An instance that finds another adopting waits: done when the
 * other completes, taking over when the other died midway (its claim lapses).
 */
export async function adoptTrackedJobs(deps: Deps, { retryMs = ADOPT_RETRY_MS }: AdoptOptions = {}): Promise<number> {
  const { store, log, instanceId } = deps;
  const since = deps.now();
  let waitMs = retryMs;
  // A stopping instance lets its claim go at once (an adoption under way ends at its next job): another adopts now.
  deps.stopping?.addEventListener('abort', () => void releaseClaim(deps), { once: true });
  while (!deps.stopping?.aborted) {
    let claimed = false;
    try {
      // Another instance completed it since this one started (asked first: its claim is released when done).
      const doneAt = await store.kv.get<number>(keys.trackingAdopted());
      if (doneAt !== undefined && doneAt > since) return 0;
      claimed = await store.claims.claim(keys.adoptTracking(), instanceId, ADOPT_CLAIM_MS);
      if (claimed) {
        const adopted = await adoptAll(deps);
        await store.kv.set(keys.trackingAdopted(), deps.now(), ADOPT_CLAIM_MS);
        await store.claims.release(keys.adoptTracking(), instanceId);
        log.info('tracking.adopted', { jobs: adopted });
        return adopted;
      }
    } catch (error) {
      // the store guard counts the failure; the claim lapses by its TTL.
      if (claimed) await releaseClaim(deps);
      if (!deps.stopping?.aborted) log.warn('tracking.adopt_retry', { retry_in_ms: waitMs, error });
    }
    // aborted by a stop: the loop ends on `stopping.aborted`.
    await sleep(waitMs, undefined, { signal: deps.stopping }).catch(() => {});
    waitMs = Math.min(waitMs * 2, ADOPT_RETRY_MAX_MS);
  }
  return 0;
}

async function adoptAll(deps: Deps): Promise<number> {
  let adopted = 0;
  for (const project of deps.projects.all) {
    for (const jobId of await deps.store.jobs.active(project)) {
      deps.stopping?.throwIfAborted();
      const record = await deps.store.jobs.get({ project, jobId });
      if (!record || record.ended) continue;
      await deps.tracker.track({ project, jobId, round: record.round });
      adopted++;
    }
  }
  return adopted;
}

async function releaseClaim(deps: Deps): Promise<void> {
  await deps.store.claims
    .release(keys.adoptTracking(), deps.instanceId)
    .catch((error: unknown) => deps.log.warn('tracking.adopt_release_failed', { error }));
}
