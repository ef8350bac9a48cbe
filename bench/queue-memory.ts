/**
 * What the in-process queue engine costs per delayed job: `npm run bench:queue-memory`.
 *
 * Adds JOBS delayed jobs (a poll's typical data, due in an hour) to one lane and reads the heap after a full GC,
 * three times in fresh engines. The job's own bytes (its id and its data as JSON text, which any queue must keep)
 * are measured apart by holding the same strings in an array, so the engine's own cost per job is the difference.
 * Also counts the process's timers: one per lane, whatever the number of jobs.
 */
import { getHeapStatistics } from 'node:v8';
import { z } from 'zod';
import { createLogger } from '../src/log.js';
import { defineLane } from '../src/queue/engine.js';
import { createMemoryEngine } from '../src/queue/memory.js';
import { machine, round } from './lib/stats.js';

const JOBS = 10_000;
const ROUNDS = 3;
const HOUR_MS = 3_600_000;

const poll = defineLane({
  name: 'poll',
  data: z.object({ project: z.string(), jobId: z.string(), round: z.number() }),
  concurrency: 4,
  attempts: 3,
  backoff: { type: 'exponential', delayMs: 1_000 },
});
const job = (i: number) => ({ project: 'proj_a', jobId: `job-${String(i).padStart(6, '0')}`, round: 1 });
const id = (i: number) => `poll/proj_a/job-${String(i).padStart(6, '0')}/1`;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('Run with node --expose-gc --import tsx bench/queue-memory.ts');
function heapUsed(): number {
  gc?.();
  gc?.();
  return getHeapStatistics().used_heap_size;
}
/** Timers set and not cleared while `run` runs (the engine's are unref'd, so Node's resource list omits them). */
async function liveTimers(run: () => Promise<void>): Promise<number> {
  const live = new Set<unknown>();
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  globalThis.setTimeout = ((...args: Parameters<typeof set>) => {
    const timer = set(...args);
    live.add(timer);
    return timer;
  }) as typeof set;
  globalThis.clearTimeout = ((timer: Parameters<typeof clear>[0]) => {
    live.delete(timer);
    clear(timer);
  }) as typeof clear;
  try {
    await run();
  } finally {
    Object.assign(globalThis, { setTimeout: set, clearTimeout: clear });
  }
  return live.size;
}

/** Bytes the id and JSON data strings take, held the way the engine holds them (one string each). */
function dataBytes(): number {
  const before = heapUsed();
  const held: string[] = [];
  for (let i = 0; i < JOBS; i++) held.push(id(i), JSON.stringify(job(i)));
  const after = heapUsed();
  if (held.length !== 2 * JOBS) throw new Error('unreachable');
  return (after - before) / JOBS;
}

async function engineBytes(): Promise<{ perJob: number; timersAdded: number }> {
  const engine = createMemoryEngine({ log: createLogger('error') });
  engine.work(poll, async () => {});
  const lane = engine.lane(poll);
  const before = heapUsed();
  // Due times in reverse order, so each add brings the earliest forward: the one timer is re-armed every time.
  const timersAdded = await liveTimers(async () => {
    for (let i = 0; i < JOBS; i++) await lane.add(job(i), { id: id(i), delayMs: HOUR_MS + JOBS - i });
  });
  const after = heapUsed();
  const counts = await engine.counts('poll');
  if (counts.delayed !== JOBS) throw new Error(`expected ${JOBS} delayed jobs, found ${counts.delayed}`);
  await engine.close(0);
  return { perJob: (after - before) / JOBS, timersAdded };
}

const totals: number[] = [];
const data: number[] = [];
let timersAdded = 0;
for (let r = 0; r < ROUNDS; r++) {
  data.push(dataBytes());
  const measured = await engineBytes();
  totals.push(measured.perJob);
  timersAdded = Math.max(timersAdded, measured.timersAdded);
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const total = median(totals);
const own = total - median(data);
console.log(
  JSON.stringify(
    {
      machine: machine(),
      delayedJobs: JOBS,
      bytesPerJob: round(total, 0),
      idAndDataBytesPerJob: round(median(data), 0),
      engineBytesPerJob: round(own, 0),
      heapMbFor10k: round((total * JOBS) / 2 ** 20, 2),
      timersAdded,
      rounds: totals.map((t) => round(t, 0)),
    },
    null,
    2,
  ),
);
