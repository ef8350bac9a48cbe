import { createHash } from 'node:crypto';
import pRetry from 'p-retry';
import type { Deps, TrackedRound, Tracker } from '../../deps.js';
import { type Lane, QueueUnavailableError } from '../../queue/engine.js';
import type { JobRef } from '../../store/jobs.js';
import type { WorkspaceRef } from '../../workspace-ref.js';
import type { PollData } from './lane-data.js';

/** A round of one workspace's job: what every tracking job names. */
type WorkspaceRound = TrackedRound & { workspace: WorkspaceRef };
type WorkspaceJob = JobRef & { workspace: WorkspaceRef };

/** The workspace's part of an id: none for the one workspace of a single-workspace deployment. */
const team = ({ teamId }: WorkspaceRef) => (teamId ? `${part(teamId)}/` : '');

/** Longer parts (a corrupt record's id) are named by a hash instead, keeping every engine id short and valid. */
const MAX_PART_CHARS = 100;

/** A job's part in an engine job id: the engine reserves `:`, which a Mintlify job id may hold. */
const part = (id: string) => {
  const encoded = encodeURIComponent(id);
  return encoded.length <= MAX_PART_CHARS ? encoded : `h-${createHash('sha256').update(id).digest('hex')}`;
};

/** Job ids of the tracking lanes: the work is about one round of one job, so adding it twice is one job. */
export const trackingIds = {
  poll: (r: WorkspaceRound) => `poll/${team(r.workspace)}${part(r.project)}/${part(r.jobId)}/${r.round}`,
  outcome: (r: WorkspaceRound) => `outcome/${team(r.workspace)}${part(r.project)}/${part(r.jobId)}/${r.round}`,
  /** A root message's refreshes: at most one waits at a time, so a burst of changes costs one update. */
  refresh: (j: WorkspaceJob) => `refresh/${team(j.workspace)}${part(j.project)}/${part(j.jobId)}`,
};

/** About 4 s of tries (0.1, 0.2, 0.4, 0.8, 1.6 s apart): longer than Redis takes to reconnect after a drop. */
const TRACK_RETRY = { retries: 5, minTimeout: 100, factor: 2 };

/** Tracking starts by adding the round's poll; the poll lane does the rest (see `poll.ts`). */
export function createTracker(deps: Pick<Deps, 'config' | 'now' | 'workspace'>, polls: Lane<PollData>): Tracker {
  return {
    async track({ project, jobId, round }) {
      const intervalMs = deps.config.pollIntervalMs;
      const { workspace } = deps;
      const data = { workspace, project, jobId, round, intervalMs, lastStatus: null, refreshedAt: deps.now() };
      // The job exists and is bound: a connection being re-made (the engine refuses adds while offline) must not
      // lose it, so the add is tried again for a few seconds before the caller is told.
      await pRetry(() => polls.add(data, { id: trackingIds.poll(data), delayMs: intervalMs }), {
        ...TRACK_RETRY,
        shouldRetry: ({ error }) => error instanceof QueueUnavailableError,
      });
    },
  };
}
