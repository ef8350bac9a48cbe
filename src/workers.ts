import { deliverRound } from './agent/tracking/deliver.js';
import { pollRound } from './agent/tracking/poll.js';
import { refreshRoot } from './agent/tracking/root-message.js';
import { toldWhenStopped } from './agent/tracking/stop.js';
import type { Deps } from './deps.js';
import { republishHome } from './home/republish.js';
import { LANES, type LaneDefinitions } from './lanes.js';
import type { Engine } from './queue/engine.js';
import { keys } from './store/keys.js';
import { runTask } from './tasks.js';
import { installationOf, unlessGone, type WorkspaceRef } from './workspace.js';

const TASK_LANES = ['agent', 'reports', 'exports', 'charts', 'digests'] as const;

/** The worker role: a processor for every lane. Processors hold no state between jobs, so any worker takes any job. */
export function startWorkers(engine: Engine, deps: Deps, lanes: LaneDefinitions = LANES): void {
  const scope = (data: { workspace: WorkspaceRef }) => deps.workspaces.scope(data.workspace);
  // Work of a workspace that removed the app is dropped, not retried: nothing more is polled or posted there.
  const unlessRemoved =
    <D extends { workspace: WorkspaceRef }, R>(work: (data: D) => Promise<R>) =>
    (data: D) =>
      work(data).catch((error: unknown) => {
        unlessGone(error);
        deps.log.info('workspace.work_dropped', { workspace: installationOf(data.workspace), reason: 'app removed' });
        return undefined;
      });
  for (const lane of TASK_LANES)
    engine.work(
      lanes[lane],
      unlessRemoved((envelope) => runTask(deps, envelope)),
    );
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

/** One instance takes the active jobs over at a time; the others find them tracked already. */
const ADOPT_CLAIM_MS = 60_000;

/**
 * Every job the store says is still tracked (its project's active index) gets its round's poll. This is how an
 * upgrade from the release that polled from the index loses nothing, and it costs nothing for jobs already on the
 * engine: adding a round's poll again is one job. Run at start, in the background.
 */
export async function adoptTrackedJobs(deps: Deps): Promise<number> {
  const { store, projects, log } = deps;
  if (!(await store.claims.claim(keys.adoptTracking(), deps.instanceId, ADOPT_CLAIM_MS))) return 0;
  let adopted = 0;
  for (const project of projects.all) {
    for (const jobId of await store.jobs.active(project)) {
      const record = await store.jobs.get({ project, jobId }).catch(() => undefined);
      if (!record || record.ended) continue;
      await deps.tracker.track({ project, jobId, round: record.round });
      adopted++;
    }
  }
  log.info('tracking.adopted', { jobs: adopted });
  return adopted;
}
