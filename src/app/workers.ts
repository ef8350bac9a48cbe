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
import { onOneInstance } from '../store/one-instance.js';
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

/** How long a completed adoption is remembered: an instance that started while it ran finds it done. */
const ADOPTED_KEPT_MS = 60_000;

/**
 * Every job the store says is still tracked (its project's active index) gets its round's poll. This is how an
 * upgrade from the release that polled from the index loses nothing, and it costs nothing for jobs already on the
 * engine: adding a round's poll again is one job. Run at start, in the background, on one instance at a time
 * (`onOneInstance`: a store or queue error midway is tried again, a stop lets the claim go) until it completes.
 */
export async function adoptTrackedJobs(deps: Deps, { retryMs }: { retryMs?: number } = {}): Promise<number> {
  const since = deps.now();
  const adopted = await onOneInstance(deps, {
    key: keys.adoptTracking(),
    event: 'tracking.adopt',
    retryMs,
    // Another instance completed it since this one started.
    doneElsewhere: async () => ((await deps.store.kv.get<number>(keys.trackingAdopted())) ?? 0) > since,
    work: async () => {
      const jobs = await adoptAll(deps);
      await deps.store.kv.set(keys.trackingAdopted(), deps.now(), ADOPTED_KEPT_MS);
      deps.log.info('tracking.adopted', { jobs });
      return { done: jobs };
    },
  });
  return adopted ?? 0;
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
