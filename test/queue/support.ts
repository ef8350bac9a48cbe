import { z } from 'zod';
import { defineLane } from '../../src/queue/engine.js';

/** A door processors wait at until the test opens it. */
export function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait: () => opened, open };
}

const item = z.object({ n: z.number() });

/** Steps of a job on lane `steps` in test/queue/worker-process.ts. */
export const STEP_COUNT = 5;

/** Lanes the suites use: names are fixed, each test runs under a fresh namespace. */
export const lanes = {
  work: defineLane({ name: 'work', data: item, concurrency: 2, attempts: 3, backoff: { type: 'fixed', delayMs: 100 } }),
  slow: defineLane({ name: 'slow', data: item, concurrency: 1, attempts: 1, backoff: { type: 'fixed', delayMs: 0 } }),
  once: defineLane({ name: 'once', data: item, concurrency: 1, attempts: 1, backoff: { type: 'fixed', delayMs: 0 } }),
  /** Worked by test/queue/worker-process.ts. */
  takeover: defineLane({
    name: 'takeover',
    data: item,
    concurrency: 1,
    attempts: 1,
    backoff: { type: 'fixed', delayMs: 0 },
  }),
  /** Worked by test/queue/worker-process.ts: a job of several steps, one try each (a take-over is not a try). */
  steps: defineLane({
    name: 'steps',
    data: item,
    concurrency: 1,
    attempts: 1,
    backoff: { type: 'fixed', delayMs: 0 },
  }),
  doubling: defineLane({
    name: 'doubling',
    data: item,
    concurrency: 1,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 150 },
  }),
};
