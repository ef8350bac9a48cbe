import { setFlagsFromString } from 'node:v8';
import type { Role } from '../config/config.js';

/**
 * V8's heap flags by role, set once at start (node refuses them in `NODE_OPTIONS`, so they are set here rather than
 * left to whoever launches node). Measured in BENCHMARKS §8, §1 and §1b.
 * - A working role (`worker`, `all`) asks V8 not to grow its young generation (`--max-semi-space-size=8` lets it
 *   grow to 8 MB semi-spaces): on Node 20 it kept its first size (1 MB) and a worker was both smaller and faster so; Node 24
 *   grows it to about 4 MB while the app loads, before this flag (set first, heap-first.ts) can hold it, and a busy
 *   worker's to the 8 MB ceiling all the same (BENCHMARKS §8, "the knobs left"): only node's command line bounds it.
 * - `worker` holds the garbage of every poll: left to itself, V8 grows the old generation up to 4 times past what it
 *   keeps and sized a busy worker's heap for throughput. It grows at most 30 % past what the last full collection kept.
 * - `all` is the one-process deployment, the memory default among them: the small one, where memory counts more than
 *   speed. On top of the worker's bound, V8 optimises for size (it also shrinks the heap while busy): about 30 MB less
 *   at 10,000 tracked jobs, for 3 to 5 % of the poll throughput and a longer ack tail under loads it is not for.
 * - `web` holds nothing between requests and acknowledges Slack: it keeps V8's own growth, so it stops for a full
 *   collection several times less often (those pauses were the tail of its acks); a first-size young generation
 *   changed nothing its acks could show.
 */
const FIRST_SIZE_YOUNG = '--semi-space-growth-factor=1';
const HEAP_FLAGS: Record<Role, string[]> = {
  all: [FIRST_SIZE_YOUNG, '--heap-growing-percent=30', '--optimize-for-size'],
  worker: [FIRST_SIZE_YOUNG, '--heap-growing-percent=30'],
  web: [],
};

/** The role as written (a role the configuration refuses gets no flags: the app then stops with its reason). */
export function applyHeapPolicy(role: string): void {
  const flags = Object.hasOwn(HEAP_FLAGS, role) ? HEAP_FLAGS[role as Role] : [];
  for (const flag of flags) setFlagsFromString(flag);
}
