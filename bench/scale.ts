/**
 * Benchmark 6: scale out. A private redis-server, one ROLE=web process that binds and tracks the jobs (as /agent
 * does), and 1 or 2 ROLE=worker processes that poll them. With a 1 s poll interval for every job the demand is
 * jobs/s, far more than a worker can do: polls/s is then capacity, not demand. A demand row uses the default
 * backoff (5 s → 60 s) instead, where the detection delay is to be compared with the poll interval.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { stepKeys } from '../src/queue/step-store.js';
import { type FakeSlackApi, startFakeSlackApi } from '../test/fakes/fake-slack-api.js';
import { startPrivateRedis } from '../test/support/private-redis.js';
import { TEST_PROJECT_ID, testEnv } from '../test/support/test-app.js';
import { type Simulator, startSimulator } from '../tools/simulator/server.js';
import { startAppProcess } from './lib/dist.js';
import type { Child } from './lib/rpc.js';
import { percentile, round, sleep } from './lib/stats.js';
import type { StartRequest, TargetStats } from './target.js';
import { createJobs, nominalInterval } from './tracking.js';

export interface ScaleRow {
  jobs: number;
  workers: number;
  store: 'redis' | 'memory';
  /** `capacity` (every job due every second) or `demand` (the default 5 s → 60 s backoff). */
  load: 'capacity' | 'demand';
  rssMbMaxWorker: number;
  /** The largest worker's peak anonymous memory: its RSS without node's binary and other file pages (target.ts). */
  anonMbMaxWorker: number;
  /** Memory default only: RSS at the end of the steady window (rssMbMaxWorker is the peak, binding included). */
  rssMbSteady?: number;
  /** Memory default only: the heap held after a full collection, idle and with the jobs tracked (MB). */
  heapMbHeld?: { idle: number; withJobs: number };
  /** The largest worker's V8 heap and off-heap memory at the end of the row (MB). */
  memoryMbMaxWorker?: TargetStats['memoryMb'];
  /** A worker (or the one-process app) with no job yet, 10 s after its start. */
  idleRssMb: number;
  pollsPerSecond: number;
  maxWorkerShare: number;
  cpuMsPerPoll: number;
  redisCommandsPerPoll: number;
  /** The largest shares of redisCommandsPerPoll, by command (Redis rows only). */
  redisCommandsByName?: Record<string, number>;
  /** Two polls of one job less than half the poll interval apart (two workers on one poll). */
  doublePolls: number;
  delayP50Ms: number;
  /** Median nominal poll interval when the sample's jobs ended. */
  nominalIntervalMs: number;
  sample: number;
  /** Sampled jobs not posted when the window ended whose tracking still holds them (behind, not lost). */
  pending: number;
  /** Sampled jobs not posted whose tracking record is gone. */
  lost: number;
  duplicated: number;
  seconds: number;
  /** The polls queue at the end of the steady window. */
  depth: { wait: number; delayed: number; active: number };
  /** Warnings and errors the workers logged, and the last of them. */
  workerLogs: { warn: number; error: number; lastProblem?: string | undefined };
}

interface Load {
  name: 'capacity' | 'demand';
  pollIntervalMs: number;
  pollMaxIntervalMs: number;
}
const CAPACITY: Load = { name: 'capacity', pollIntervalMs: 1_000, pollMaxIntervalMs: 1_000 };
const DEMAND: Load = { name: 'demand', pollIntervalMs: 5_000, pollMaxIntervalMs: 60_000 };
const STEADY_S = 10;
const WORKER_COUNTS = (process.env.BENCH_SCALE_WORKERS ?? '1,2').split(',').map(Number);
/** Node flags for the workers only, after production's (`BENCH_WORKER_FLAGS="--no-maglev"`): how BENCHMARKS §8 tries them. */
const WORKER_FLAGS = (process.env.BENCH_WORKER_FLAGS ?? '').split(' ').filter(Boolean);
/** Jobs ended per row, at random within ENDING_S, and watched for their outcome post. */
const SAMPLE = 200;
const ENDING_S = 5;
/** How long a sample's outcomes are waited for at most (a job not posted by then is pending or lost). */
const MAX_WAIT_S = 60;
const MB = 2 ** 20;

const cpuMs = (s: TargetStats) => (s.cpuUserUs + s.cpuSystemUs) / 1000;

/** The polls lane right now (on the step scheduler, src/queue/step-store.ts): due and waiting for a worker, delayed, running. */
async function pollsQueue(redis: Redis, namespace: string) {
  const keys = stepKeys(`${namespace}:${TEST_PROJECT_ID}:queue`, 'polls');
  const now = Date.now();
  const [wait, delayed, active] = await Promise.all([
    redis.zcount(keys.due, '-inf', now),
    redis.zcount(keys.due, `(${now}`, '+inf'),
    redis.zcard(keys.lease),
  ]);
  return { wait, delayed, active };
}

/** Calls per command since Redis started (INFO commandstats counts the calls inside Lua scripts too). */
async function redisCommands(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  return new Map([...info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)].map((m) => [m[1] ?? '', Number(m[2])]));
}

const sum = (calls: Map<string, number>) => [...calls.values()].reduce((a, b) => a + b, 0);

/** The commands a poll cost, most first (the ten largest, per poll). */
function perPoll(before: Map<string, number>, after: Map<string, number>, polls: number): Record<string, number> {
  const spent = [...after].map(
    ([name, calls]) => [name, (calls - (before.get(name) ?? 0)) / Math.max(1, polls)] as const,
  );
  return Object.fromEntries(
    spent
      .filter(([, n]) => n >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([name, n]) => [name, round(n, 2)]),
  );
}

/** Starts `count` ROLE=worker processes and waits until each polls. */
async function startWorkers(count: number, env: Record<string, string>): Promise<Child[]> {
  const workers = Array.from({ length: count }, () => startAppProcess('worker', WORKER_FLAGS));
  await Promise.all(workers.map((w) => w.call('start', { variant: 'ours', env: { ...env, ROLE: 'worker' } })));
  return workers;
}

/**
 * How long an idle process is watched: V8's memory reducer usually runs 8 to 9 s after start and takes 15 to 25 MB
 * off the RSS, now and then later, so a single reading at 10 s gave 93 to 124 MB for the same process.
 */
const IDLE_WATCH_S = 20;

/** The RSS `child` (started, no work yet) settles to, in MB: the lowest of one reading a second. */
async function settledIdleRssMb(child: Child): Promise<number> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let s = 0; s < IDLE_WATCH_S; s++) {
    await sleep(1_000);
    lowest = Math.min(lowest, (await child.call<TargetStats>('stats')).rss);
  }
  return round(lowest / MB, 0);
}

/** Polls of one job closer together than `minGapMs`, across every worker's record. */
function doublePolls(records: [string, number][][], minGapMs: number): number {
  const byJob = new Map<string, number[]>();
  for (const [jobId, at] of records.flat()) byJob.set(jobId, [...(byJob.get(jobId) ?? []), at]);
  let doubles = 0;
  for (const times of byJob.values()) {
    times.sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) if ((times[i] ?? 0) - (times[i - 1] ?? 0) < minGapMs) doubles++;
  }
  return doubles;
}

interface Detection {
  /** The process whose store tracks the jobs (the web role, or the one-process app). */
  tracker: Child;
  slack: FakeSlackApi;
  sim: Simulator;
  byThread: Map<string, string>;
  sample: string[];
  load: Load;
  seededAt: number;
  cycleS: number;
}

/** Ends `sample`'s jobs at random within ENDING_S and watches the stand-in for each one's outcome post. */
async function detect({ tracker, slack, sim, byThread, sample, load, seededAt, cycleS }: Detection) {
  slack.calls.length = 0;
  const endedAt = new Map<string, number>();
  const endAt = sample.map((jobId) => ({ jobId, at: Date.now() + Math.random() * ENDING_S * 1000 }));
  const ender = setInterval(() => {
    for (const planned of endAt) {
      if (endedAt.has(planned.jobId) || planned.at > Date.now()) continue;
      sim.endJob(planned.jobId);
      endedAt.set(planned.jobId, Date.now());
    }
  }, 10);
  const posts = new Map<string, { count: number; at: number }>();
  const scan = () => {
    for (const call of slack.calls.splice(0)) {
      const jobId = call.method === 'chat.postMessage' ? byThread.get(String(call.args.thread_ts)) : undefined;
      if (!jobId) continue;
      const seen = posts.get(jobId);
      if (seen) seen.count++;
      else posts.set(jobId, { count: 1, at: call.at });
    }
    sim.requests.length = 0;
  };
  const deadline = Date.now() + (ENDING_S + Math.min(MAX_WAIT_S, Math.max(30, 2 * cycleS))) * 1000;
  while (Date.now() < deadline && posts.size < sample.length) {
    await sleep(250);
    scan();
  }
  clearInterval(ender);
  await sleep(1_000); // any duplicate post shows up
  scan();
  const delays = [...posts].map(([jobId, post]) => post.at - (endedAt.get(jobId) ?? post.at));
  const nominal = sample.map((jobId) =>
    nominalInterval((endedAt.get(jobId) ?? seededAt) - seededAt, load.pollIntervalMs, load.pollMaxIntervalMs),
  );
  const unposted = sample.filter((jobId) => !posts.has(jobId));
  const states = await tracker.call<string[]>('trackingStates', { jobIds: unposted });
  const lost = states.filter((state) => state === 'missing').length;
  return {
    delayP50Ms: round(percentile(delays, 50), 0),
    nominalIntervalMs: percentile(nominal, 50),
    sample: sample.length,
    pending: unposted.length - lost,
    lost,
    duplicated: [...posts.values()].filter((p) => p.count > 1).length,
  };
}

/** One table: `jobs` tracked by a web process, then worked by 1 worker, then by 2 (fresh workers each time). */
async function runJobs(jobs: number, load: Load, workerCounts: number[], progress: (line: string) => void) {
  const started = Date.now();
  const redis = await startPrivateRedis();
  const slack = await startFakeSlackApi();
  const sim = await startSimulator({
    createLimitPerHour: 1e9,
    followUpLimitPerHour: 1e9,
    jobDurationMs: 6 * 3_600_000,
  });
  const counter = new Redis(redis.url);
  const namespace = `bench-${randomUUID().slice(0, 8)}`;
  const env = testEnv(slack, sim.url, {
    POLL_INTERVAL_MS: String(load.pollIntervalMs),
    POLL_MAX_INTERVAL_MS: String(load.pollMaxIntervalMs),
    LOG_LEVEL: 'warn',
    REDIS_URL: redis.url,
    STORE_NAMESPACE: namespace,
  });
  const web = startAppProcess('web');
  const rows: ScaleRow[] = [];
  try {
    await web.call('start', { variant: 'ours', env: { ...env, ROLE: 'web' } } satisfies StartRequest);
    // A worker with nothing to do yet: the idle figure every row is compared with.
    const [idler] = await startWorkers(1, env);
    const idleRssMb = await settledIdleRssMb(idler as Child);
    await idler?.close(15_000);
    const created = await createJobs(sim, jobs);
    const ids = created.map((job) => job.jobId);
    const seeded = created.map((job, i) => ({ ...job, threadTs: `1900000000.${String(i).padStart(6, '0')}` }));
    await web.call('seedJobs', { jobs: seeded }, 900_000);
    const seededAt = Date.now();
    progress(`scale ${jobs} ${load.name}: created and tracked in ${round((seededAt - started) / 1000, 0)} s`);
    const byThread = new Map(seeded.map((j) => [j.threadTs, j.jobId]));
    const open = [...ids];
    for (const count of workerCounts) {
      const rowStarted = Date.now();
      const workers = await startWorkers(count, env);
      await Promise.all(workers.map((w) => w.call<number>('resetPeak')));
      await sleep(3_000); // connected and working
      const before = await Promise.all(workers.map((w) => w.call<TargetStats>('stats')));
      const commandsBefore = await redisCommands(counter);
      await Promise.all(workers.map((w) => w.call('recordPolls', { on: true })));
      const from = Date.now();
      await sleep(STEADY_S * 1000);
      const records = await Promise.all(workers.map((w) => w.call<[string, number][]>('recordPolls', { on: false })));
      const after = await Promise.all(workers.map((w) => w.call<TargetStats>('stats')));
      const seconds = (Date.now() - from) / 1000;
      const commandsAfter = await redisCommands(counter);
      const commands = sum(commandsAfter) - sum(commandsBefore);
      const depth = await pollsQueue(counter, namespace);
      const polls = after.map((a, i) => a.polls - (before[i]?.polls ?? 0));
      const total = polls.reduce((a, b) => a + b, 0);
      const cpu = after.reduce((n, a, i) => n + cpuMs(a) - cpuMs(before[i] as TargetStats), 0);

      // Each job is polled about once per jobs ÷ capacity seconds; wait that long twice over (bounded).
      const cycleS = jobs / Math.max(1, total / seconds);
      const sample = open.splice(0, SAMPLE);
      const detected = await detect({ tracker: web, slack, sim, byThread, sample, load, seededAt, cycleS });
      const end = await Promise.all(workers.map((w) => w.call<TargetStats>('stats')));
      const row: ScaleRow = {
        jobs,
        workers: count,
        store: 'redis',
        load: load.name,
        rssMbMaxWorker: round(Math.max(...end.map((s) => s.peakRss)) / MB, 0),
        anonMbMaxWorker: round(Math.max(...end.map((s) => s.peakAnon)) / MB, 0),
        memoryMbMaxWorker: end.reduce((a, b) => (b.rss > a.rss ? b : a)).memoryMb,
        idleRssMb,
        pollsPerSecond: round(total / seconds, 0),
        maxWorkerShare: round(Math.max(...polls) / Math.max(1, total), 2),
        cpuMsPerPoll: round(cpu / Math.max(1, total), 2),
        redisCommandsPerPoll: round(commands / Math.max(1, total), 1),
        redisCommandsByName: perPoll(commandsBefore, commandsAfter, total),
        doublePolls: doublePolls(records, load.pollIntervalMs / 2),
        ...detected,
        seconds: round((Date.now() - rowStarted) / 1000, 0),
        depth,
        workerLogs: {
          warn: end.reduce((n, e) => n + e.logs.warn, 0),
          error: end.reduce((n, e) => n + e.logs.error, 0),
          lastProblem: end.find((e) => e.logs.lastProblem)?.logs.lastProblem,
        },
      };
      rows.push(row);
      progress(`scale ${jobs} ${load.name} ×${count}: ${JSON.stringify(row)}`);
      await Promise.allSettled(workers.map((w) => w.close(15_000)));
    }
    return rows;
  } finally {
    await web.close(15_000);
    counter.disconnect();
    await sim.close();
    await slack.close();
    await redis.stop();
  }
}

/**
 * The memory default: one process (ROLE=all, in-process queues, memory store) tracking 10,000 jobs at the default
 * backoff, its RSS beside the same process idle.
 */
async function runMemoryDefault(jobs: number, progress: (line: string) => void): Promise<ScaleRow> {
  const started = Date.now();
  const slack = await startFakeSlackApi();
  const sim = await startSimulator({
    createLimitPerHour: 1e9,
    followUpLimitPerHour: 1e9,
    jobDurationMs: 6 * 3_600_000,
  });
  const env = testEnv(slack, sim.url, {
    POLL_INTERVAL_MS: String(DEMAND.pollIntervalMs),
    POLL_MAX_INTERVAL_MS: String(DEMAND.pollMaxIntervalMs),
    LOG_LEVEL: 'warn',
  });
  // --expose-gc only lets the bench ask for a full collection, to read what the jobs hold apart from garbage.
  const app = startAppProcess('all', ['--expose-gc']);
  const heldMb = async () => round((await app.call<number>('gc')) / MB, 1);
  try {
    await app.call('start', { variant: 'ours', env } satisfies StartRequest);
    const idleRssMb = await settledIdleRssMb(app);
    const idleHeldMb = await heldMb();
    await app.call<number>('resetPeak');
    const created = await createJobs(sim, jobs);
    const ids = created.map((job) => job.jobId);
    const seeded = created.map((job, i) => ({ ...job, threadTs: `1900000000.${String(i).padStart(6, '0')}` }));
    await app.call('seedJobs', { jobs: seeded }, 900_000);
    const seededAt = Date.now();
    await sleep(5_000);
    const before = await app.call<TargetStats>('stats');
    await sleep(STEADY_S * 1000);
    const after = await app.call<TargetStats>('stats');
    const heapMbHeld = { idle: idleHeldMb, withJobs: await heldMb() };
    const polls = after.polls - before.polls;
    const seconds = STEADY_S;
    const byThread = new Map(seeded.map((j) => [j.threadTs, j.jobId]));
    const cycleS = DEMAND.pollMaxIntervalMs / 1000;
    const detected = await detect({
      tracker: app,
      slack,
      sim,
      byThread,
      sample: ids.slice(0, SAMPLE),
      load: DEMAND,
      seededAt,
      cycleS,
    });
    const row: ScaleRow = {
      jobs,
      workers: 1,
      store: 'memory',
      load: DEMAND.name,
      rssMbMaxWorker: round(after.peakRss / MB, 0),
      anonMbMaxWorker: round(after.peakAnon / MB, 0),
      rssMbSteady: round(after.rss / MB, 0),
      heapMbHeld,
      memoryMbMaxWorker: after.memoryMb,
      idleRssMb,
      pollsPerSecond: round(polls / seconds, 0),
      maxWorkerShare: 1,
      cpuMsPerPoll: round((cpuMs(after) - cpuMs(before)) / Math.max(1, polls), 2),
      redisCommandsPerPoll: 0,
      doublePolls: 0,
      ...detected,
      seconds: round((Date.now() - started) / 1000, 0),
      depth: { wait: 0, delayed: 0, active: 0 },
      workerLogs: after.logs,
    };
    progress(`scale ${jobs} memory default: ${JSON.stringify(row)}`);
    return row;
  } finally {
    await app.close(15_000);
    await sim.close();
    await slack.close();
  }
}

/**
 * `parts`: `capacity` (10,000 and 50,000 jobs by default, 1 and 2 workers), `demand` (10,000 jobs, 2 workers, the
 * default backoff), `memory` (the memory default at 10,000 jobs).
 */
export async function runScale(
  progress: (line: string) => void,
  { jobCounts = [10_000, 50_000], parts = ['capacity', 'demand', 'memory'] } = {},
): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  if (parts.includes('capacity')) {
    for (const jobs of jobCounts) rows.push(...(await runJobs(jobs, CAPACITY, WORKER_COUNTS, progress)));
  }
  if (parts.includes('demand')) rows.push(...(await runJobs(10_000, DEMAND, [2], progress)));
  if (parts.includes('memory')) rows.push(await runMemoryDefault(10_000, progress));
  return rows;
}
