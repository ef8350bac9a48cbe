import type { webApi } from '@slack/bolt';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';
import type { MintlifyClient } from './mintlify/client.js';
import type { Projects } from './projects.js';
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
}
