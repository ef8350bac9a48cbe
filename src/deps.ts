import type { webApi } from '@slack/bolt';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';
import type { MintlifyClient } from './mintlify/client.js';
import type { Projects } from './projects.js';
import type { JobRecord } from './store/jobs.js';
import type { Store } from './store/store.js';

/** Runs a task with bounded concurrency; more waits its turn. */
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
  slack: webApi.WebClient;
  /** Identifies this process in leases, so replicas can tell their own from a peer's. */
  instanceId: string;
  now: () => number;
  /**
   * Runs what a listener does after its ack (service calls, posts) with bounded concurrency, so under load the
   * backlog waits here and new requests from Slack are still acknowledged at once.
   */
  afterAck: Limiter;
  /** Long work a click starts (CSV exports: dozens of requests), kept apart so it never delays `afterAck`. */
  background: Limiter;
  /** Told of every change of a job's state, for the features that show jobs (App Home). */
  jobWatchers?: JobWatchers;
}

export type JobWatcher = (record: JobRecord) => Promise<void>;

/** A feature that shows jobs registers here; the job's own refresh tells each of them, failures logged. */
export interface JobWatchers {
  add(watcher: JobWatcher): void;
  changed(record: JobRecord): Promise<void>;
}

export function createJobWatchers(log: Logger): JobWatchers {
  const watchers: JobWatcher[] = [];
  return {
    add: (watcher) => void watchers.push(watcher),
    async changed(record) {
      for (const watcher of watchers) {
        await watcher(record).catch((error) =>
          log.warn('job.watcher_failed', { project: record.project, job_id: record.jobId, error }),
        );
      }
    },
  };
}
