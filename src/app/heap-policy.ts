import { setFlagsFromString } from 'node:v8';
import type { Role } from '../config/config.js';

/**
 * V8's heap flags by role, set once at start (node refuses them in `NODE_OPTIONS`, so they are set here rather than
 * left to whoever launches node). Measured in BENCHMARKS §8, §1 and §1b.
 * - A working role (`worker`, `all`) asks V8 not to grow its young generation (START_FLAGS set its ceiling): on Node 20 it kept its first size (1 MB) and a worker was both smaller and faster so; Node 24
 *   grows it to about 4 MB while the app loads, before this flag (set first, heap-first.ts) can hold it, and a busy
 *   worker's to its ceiling all the same (BENCHMARKS §8, "the knobs left"): only node's command line bounds it.
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

/** `role`'s row of a table by role, the role as written (a role the configuration refuses gets no flags). */
const forRole = (table: Record<Role, readonly string[]>, role: string): readonly string[] =>
  Object.hasOwn(table, role) ? table[role as Role] : [];

/** The role as written (a role the configuration refuses gets no flags: the app then stops with its reason). */
export function applyHeapPolicy(role: string): void {
  for (const flag of forRole(HEAP_FLAGS, role)) setFlagsFromString(flag);
}

/**
 * The flags V8 reads only as node starts, by role (BENCHMARKS §8, "the knobs left" and "a worker's start flags"). A
 * worker's peak RSS at 10,000 and 50,000 jobs went from 169-187 MB to 137-150, its polls/s at capacity within the
 * old flags' spread and a paced load's CPU a poll about a third more: a young generation of 2 MB semi-spaces (it
 * reached 8 MB under load), no Maglev (its code and compiles), and TurboFan compiling on the main thread (its
 * compiles kept 20 to 30 MB of glibc arenas on V8's threads). The roles that acknowledge Slack keep V8's concurrent
 * compilers and 8 MB semi-spaces. `web` scavenges on its main thread alone: about 90 KB survive each of its
 * scavenges, nothing to share out, and waking helper threads on busy cores made its pauses longer (BENCHMARKS §1b).
 */
export const START_FLAGS: Record<Role, readonly string[]> = {
  all: ['--max-semi-space-size=8'],
  web: ['--max-semi-space-size=8', '--no-parallel-scavenge'],
  worker: ['--max-semi-space-size=2', '--no-maglev', '--no-concurrent-recompilation'],
};

/** `--no-maglev`, `--maglev` and `--maglev=true` name one flag; V8 reads `_` and `-` alike. */
const flagName = (flag: string) => (flag.replace(/^--(no-)?/, '').split('=')[0] ?? '').replaceAll('_', '-');

/** `role`'s start flags that `given` (node's command line) does not set: a flag the operator gave wins. */
function missingStartFlags(role: string, given: readonly string[]): string[] {
  const named = new Set(given.map(flagName));
  return forRole(START_FLAGS, role).filter((flag) => !named.has(flagName(flag)));
}

/**
 * Restarts this process in place with `role`'s start flags when its command line lacks them: `process.execve` keeps
 * the process id, arguments and environment, so a container's PID 1 and a supervisor see one process. Where node
 * cannot (Windows), the app runs on without them.
 */
export function startWithRoleFlags(role: string): void {
  const missing = missingStartFlags(role, process.execArgv);
  if (missing.length === 0 || typeof process.execve !== 'function') return;
  const argv = [process.execPath, ...process.execArgv, ...missing, ...process.argv.slice(1)];
  process.execve(process.execPath, argv, process.env);
}
