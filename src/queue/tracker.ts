import type { Logger } from '../log.js';
import type { JobObserver, LaneStats } from './engine.js';
import { errorText } from './job-rules.js';

type Totals = Omit<LaneStats, 'lane' | 'waiting' | 'delayed' | 'active' | 'failed'>;

export interface Failure {
  attempt: number;
  error: unknown;
  /** Undefined when the job failed for good. */
  retryInMs: number | undefined;
  durationMs: number;
}

/** What this process's workers did, per lane: counted, logged and told to the observer the same way by both engines. */
export interface LaneTotals {
  started(lane: string, waitMs: number | undefined): void;
  completed(lane: string, durationMs: number): void;
  failed(lane: string, id: string, failure: Failure): void;
  totals(lane: string): Totals;
}

export function createLaneTotals(log: Logger, observer?: JobObserver): LaneTotals {
  const lanes = new Map<string, Totals>();
  const totals = (lane: string): Totals => {
    let found = lanes.get(lane);
    if (!found) {
      found = { completedTotal: 0, retriedTotal: 0, failedTotal: 0, wait: { count: 0, sumMs: 0, maxMs: 0 } };
      lanes.set(lane, found);
    }
    return found;
  };
  return {
    started(lane, waitMs) {
      if (waitMs !== undefined) {
        const { wait } = totals(lane);
        const ms = Math.max(0, waitMs);
        wait.count++;
        wait.sumMs += ms;
        wait.maxMs = Math.max(wait.maxMs, ms);
      }
      observer?.started(lane, waitMs === undefined ? undefined : Math.max(0, waitMs));
    },
    completed(lane, durationMs) {
      totals(lane).completedTotal++;
      observer?.finished(lane, 'completed', durationMs);
    },
    failed(lane, id, { attempt, error, retryInMs, durationMs }) {
      const fields = { lane, job_id: id, attempt, error: errorText(error) };
      if (retryInMs === undefined) {
        totals(lane).failedTotal++;
        log.error('queue.job_failed', { ...fields, message: 'Failed for good: listed by `npm run queues`' });
      } else {
        totals(lane).retriedTotal++;
        log.warn('queue.job_retry', { ...fields, retry_in_ms: retryInMs });
      }
      observer?.finished(lane, retryInMs === undefined ? 'failed' : 'retried', durationMs);
    },
    totals: (lane) => structuredClone(totals(lane)),
  };
}
