import type { WebClient } from '@slack/web-api';
import type { z } from 'zod';
import type { Config } from './config/config.js';
import type { Projects } from './config/projects.js';
import type { Lanes } from './lanes.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';
import type { MintlifyClient } from './mintlify/client.js';
import type { Served } from './queue/consumers.js';
import type { Replies } from './slack/reply.js';
import type { BudgetUse } from './store/budget.js';
import type { JobRecord, JobRef } from './store/jobs.js';
import type { StoreLoss } from './store/loss.js';
import type { Store } from './store/store.js';
import type { Connection } from './tenants/connection.js';
import type { WorkspaceRef } from './workspace-ref.js';

/**
 * A task as a door names it (`agentTasks.start`, `visitorsTasks.report`…: each feature's, see `src/task.ts`): its
 * kind, and the schema its data must fit.
 */
export interface TaskHandle<S extends z.ZodType> {
  readonly kind: string;
  readonly schema: S;
}

/** Hands a door's work on to its task's lane (`src/app/dispatch.ts`); the compiler checks the data against the task. */
export type Dispatch = <S extends z.ZodType>(task: TaskHandle<S>, data: z.infer<S>) => Promise<void>;

export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** What every feature needs, passed explicitly so tests can run several apps in one process. */
export interface Deps {
  config: Config;
  log: Logger;
  /** Counters and timings for `GET /metrics`. */
  metrics: Metrics;
  mintlify: MintlifyClient;
  projects: Projects;
  store: Store;
  /** Whether the store lost its data after a given time (a thread's start), so a thread may be a job's it forgot. */
  storeLoss?: Pick<StoreLoss, 'lostBefore'>;
  slack: WebClient;
  /** Aborted when a graceful stop begins: long work (a CSV export) answers then rather than being cut off. */
  stopping?: AbortSignal;
  /** The one way people are answered (privately, by reaction, in their DM). */
  replies: Replies;
  /** Identifies this process in leases, so replicas can tell their own from a peer's. */
  instanceId: string;
  now: () => number;
  /** Tests with an injected clock: digest schedulers run every this many ms instead of at their cron times. */
  digestEveryMs?: number | undefined;
  /** Told of every change of a job's state, for the features that show jobs (App Home). */
  jobWatchers?: JobWatchers;
  /** Hands a door's work on, to run after the ack in its lane: `deps.dispatch(agentTasks.start, data)`. */
  dispatch: Dispatch;
  /** The hourly budgets of job creations and follow-ups, per project. */
  quota: Quota;
  /** Starts tracking a job's round: a new job, or an accepted follow-up. */
  tracker: Tracker;
  /** The adding side of every lane of the work engine (see `lanes.ts`). */
  lanes: Lanes;
  /** The web role only: whether a worker takes a lane's jobs, so a person is told when none does. */
  served?: Served;
  /** The workspace these deps serve; `teamId: ''` is the one workspace a single-workspace deployment serves. */
  workspace: WorkspaceRef;
  /** Every workspace's deps, for work that arrives with its workspace (a queue job). */
  workspaces: Workspaces;
  /** Many-workspace mode: who installed the app here and the Mintlify project the workspace connected, if any. */
  connection?: Connection;
}

/** Told of a job's new state, with the deps of the workspace the job is in. */
export type JobWatcher = (record: JobRecord, deps: Deps) => Promise<void>;

/**
 * The features that show jobs (App Home), listed where deps are built (`buildDeps`), so every role's deps carry them;
 * the job's own refresh tells each of them, failures logged.
 */
export interface JobWatchers {
  add(watcher: JobWatcher): void;
  changed(record: JobRecord): Promise<void>;
  /** The same watchers, told with another workspace's deps. */
  serving(deps: () => Deps): JobWatchers;
}

export function createJobWatchers(log: Logger, deps: () => Deps, watchers: JobWatcher[] = []): JobWatchers {
  return {
    add: (watcher) => void watchers.push(watcher),
    async changed(record) {
      for (const watcher of watchers) {
        await watcher(record, deps()).catch((error) =>
          log.warn('job.watcher_failed', { project: record.project, job_id: record.jobId, error }),
        );
      }
    },
    serving: (other) => createJobWatchers(log, other, watchers),
  };
}

export interface Workspaces {
  /**
   * The deps of one workspace: its Slack client, Mintlify client, projects, quota and store keys. Throws
   * `WorkspaceGoneError` once the workspace removed the app.
   */
  scope(ref: WorkspaceRef): Promise<Deps>;
  /** Every workspace the app serves (for work that is not a request: digests). */
  all(): Promise<WorkspaceRef[]>;
}

export interface TrackedRound extends JobRef {
  round: number;
}

export interface Tracker {
  /** Tracks a round from now on: its first poll, at the shortest interval. Adding a round twice is one poll. */
  track(round: TrackedRound): Promise<void>;
}

export type QuotaKind = 'create' | 'follow_up';

/**
 * The project's hourly budgets for creations and follow-ups, counted in the store so replicas share them.
 * The window starts at the first use and lasts an hour, so refusals can say when it reopens.
 */
export interface Quota {
  take(project: string, kind: QuotaKind): Promise<BudgetUse>;
  /** Gives a use back when the service refused before doing the work (its own count did not move). */
  refund(project: string, kind: QuotaKind): Promise<void>;
  usage(project: string, kind: QuotaKind): Promise<BudgetUse>;
}
