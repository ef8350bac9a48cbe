import { setFlagsFromString } from 'node:v8';
import type { Role } from './config.js';

/** How far past what the last full collection kept a working process's old generation may grow, in percent. */
const WORKING_HEAP_GROWING_PERCENT = 30;

/**
 * The heap policy of the process's role, set once at start (node refuses this flag in `NODE_OPTIONS`, so it is set
 * here rather than left to whoever launches node). A process that works the lanes (`all`, `worker`) holds the
 * tracked jobs and the garbage of every poll: left to itself, V8 grows its old generation up to 4 times past what it
 * keeps and sized a busy worker's heap for throughput (BENCHMARKS §8). A `web` process holds nothing between requests
 * and acknowledges Slack: it keeps V8's own growth, so it stops for a full collection several times less often, and
 * those pauses were the tail of its acks (BENCHMARKS §1b). The young generation is bounded for every role by
 * `--max-semi-space-size`, which V8 reads only at start (npm start and the image pass it).
 */
export function applyHeapPolicy(role: Role): void {
  if (role !== 'web') setFlagsFromString(`--heap-growing-percent=${WORKING_HEAP_GROWING_PERCENT}`);
}
