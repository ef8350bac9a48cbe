import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/queue/engine.js';
import { createRedisEngine } from '../../src/queue/redis.js';
import { CLEAN_CWD } from '../support/app-process.js';
import { captureLogs } from '../support/logs.js';
import { dropNamespace, redisAvailable, TEST_REDIS_URL, testNamespace } from '../support/redis.js';
import { eventually, sleep } from '../support/wait.js';
import { lanes, STEP_COUNT } from './support.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOCK_MS = 2_000;
const STALLED_MS = 1_000;

interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
}

/** Starts test/queue/worker-process.ts as its own process and waits until it works the lane. */
async function startWorker(namespace: string, steps: boolean): Promise<WorkerProcess> {
  const tsx = pathToFileURL(`${ROOT}node_modules/tsx/dist/loader.mjs`).href;
  const child = spawn(process.execPath, ['--import', tsx, `${ROOT}test/queue/worker-process.ts`], {
    cwd: CLEAN_CWD,
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL: TEST_REDIS_URL,
      NAMESPACE: namespace,
      LOCK_MS: String(LOCK_MS),
      STALLED_MS: String(STALLED_MS),
      STEPS: steps ? '1' : '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  await eventually(() => output.includes('worker.ready') || child.exitCode !== null, 20_000, 'the worker ready');
  if (!output.includes('worker.ready')) throw new Error(`worker exited before it was ready:\n${output}`);
  return { child, output: () => output };
}

/** The same lanes on the step scheduler (src/queue/step-worker.ts) as in the worker process with STEPS=1. */
const STEP_LANES = new Set([lanes.takeover.name, lanes.steps.name]);

/**
 * Real processes on one Redis: a worker killed with SIGKILL mid-job (no shutdown hook runs), with the lanes on
 * BullMQ and on the step scheduler.
 */
describe.skipIf(!redisAvailable).each([
  { engine: 'BullMQ', steps: false },
  { engine: 'the step scheduler', steps: true },
])('two worker processes, one killed mid-job ($engine)', { timeout: 60_000 }, ({ steps }) => {
  const namespace = testNamespace();
  const webEngine = () =>
    createRedisEngine({
      redisUrl: TEST_REDIS_URL,
      namespace,
      log: captureLogs().log,
      ...(steps && { stepLanes: STEP_LANES }),
    });
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const { child } of workers.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }
    }
    await dropNamespace(namespace);
  });

  /** SIGKILLs the worker that wrote `entry` (its pid last) and starts a replacement in the background. */
  async function killRunner(entry: string, replacements: Promise<unknown>[]): Promise<void> {
    const pid = Number(entry.split(' ').at(-1));
    const doomed = await eventually(() => workers.find(({ child }) => child.pid === pid), 5_000, `worker ${pid}`);
    const exited = once(doomed.child, 'exit');
    doomed.child.kill('SIGKILL');
    await exited;
    // A replacement that does not start in time leaves the survivor alone: the next kill then leaves no worker, and
    // the test fails naming the start that never came.
    const replacement = startWorker(namespace, steps).then((worker) => workers.push(worker));
    replacements.push(replacement.catch(() => {}));
  }

  it('has the job taken over by the other worker within the lock time, and completed exactly once', async () => {
    workers.push(await startWorker(namespace, steps), await startWorker(namespace, steps));
    const web = await webEngine();
    const redis = new Redis(TEST_REDIS_URL);
    try {
      await web.lane(lanes.takeover).add({ n: 1 }, { id: 'takeover/1' });
      const list = (name: string) => redis.lrange(`${namespace}:test:${name}`, 0, -1);
      const [first] = await eventually(
        async () => (await list('started')).length === 1 && list('started'),
        8_000,
        'a start',
      );
      const doomedPid = Number(first?.split(' ')[1]);
      const doomed = workers.find(({ child }) => child.pid === doomedPid);
      const survivor = workers.find(({ child }) => child.pid !== doomedPid);
      if (!doomed || !survivor) throw new Error(`no worker with pid ${doomedPid}`);
      const exited = once(doomed.child, 'exit');
      doomed.child.kill('SIGKILL');
      await exited;
      const killedAt = Date.now();

      const started = await eventually(
        async () => (await list('started')).length === 2 && list('started'),
        8_000,
        'a take-over',
      );
      const takenOverMs = Date.now() - killedAt;
      expect(started[1]).toBe(`takeover/1 ${survivor.child.pid}`);
      // The lock lapses at most LOCK_MS after the kill, and the next stalled check finds it within STALLED_MS.
      expect(takenOverMs).toBeLessThan(LOCK_MS + STALLED_MS + 1_000);

      await eventually(async () => (await list('completed')).length === 1, 8_000, 'the completion');
      await sleep(LOCK_MS + STALLED_MS);
      expect(await list('completed')).toEqual([`takeover/1 ${survivor.child.pid}`]);
      expect(await list('started')).toHaveLength(2);
      expect(survivor.output()).toMatch(/"event":"queue\.job_stalled".*"job_id":"takeover\/1"/);
      expect(await web.counts('takeover')).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
    } finally {
      await web.close(0);
      redis.disconnect();
    }
  });

  /**
   * Two workers and a stepping job `steps/1` they take: `kill(entry)` SIGKILLs the worker that wrote a list entry and
   * starts a replacement in the background (the survivor takes the step over meanwhile); `list` reads the workers'
   * lists. `run` is the test; the replacements are awaited and the engine closed after it.
   */
  async function withSteppingJob(
    run: (job: {
      web: Engine;
      list: (name: string) => Promise<string[]>;
      kill(entry: string): Promise<void>;
    }) => Promise<void>,
  ): Promise<void> {
    workers.push(await startWorker(namespace, steps), await startWorker(namespace, steps));
    const replacements: Promise<unknown>[] = [];
    const web = await webEngine();
    const redis = new Redis(TEST_REDIS_URL);
    const list = (name: string) => redis.lrange(`${namespace}:test:${name}`, 0, -1);
    try {
      await web.lane(lanes.steps).add({ n: 1 }, { id: 'steps/1' });
      await run({ web, list, kill: (entry) => killRunner(entry, replacements) });
    } finally {
      await Promise.allSettled(replacements);
      await web.close(0);
      redis.disconnect();
    }
  }

  it(
    'counts take-overs per step: a job whose worker dies during four different steps still completes, once',
    {
      timeout: 120_000,
    },
    () =>
      withSteppingJob(async ({ web, list, kill }) => {
        // More take-overs over the job's life than a step may have (MAX_STALLED, 3), one per step.
        for (let step = 1; step <= 4; step++) {
          const entry = await eventually(
            async () => (await list('steps')).find((line) => line.startsWith(`steps/1 ${step} `)),
            20_000,
            `step ${step} started`,
          );
          await kill(entry);
        }
        await eventually(
          async () => (await list('completed')).length > 0 || (await web.counts('steps')).failed > 0,
          30_000,
          'the last step or a failure',
        );
        expect(await web.failed('steps')).toEqual([]);
        await sleep(LOCK_MS + STALLED_MS);
        expect(await list('completed')).toHaveLength(1);
        const steps = (await list('steps')).map((line) => Number(line.split(' ')[1]));
        // Steps in order, never one again after the next began; each killed step ran again where it was taken over.
        expect(steps).toEqual([...steps].sort((a, b) => a - b));
        for (const step of [1, 2, 3, 4]) expect(steps.filter((s) => s === step).length).toBeGreaterThanOrEqual(2);
        expect(steps.at(-1)).toBe(STEP_COUNT);
        expect(await web.counts('steps')).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
      }),
  );

  it(
    'fails a step that keeps killing its worker after 3 take-overs, with an error log naming the job',
    {
      timeout: 120_000,
    },
    () =>
      withSteppingJob(async ({ web, list, kill }) => {
        for (let start = 1; start <= 4; start++) {
          const entry = await eventually(async () => (await list('steps'))[start - 1], 20_000, `start ${start}`);
          await kill(entry);
        }
        const failed = await eventually(async () => (await web.failed('steps'))[0], 30_000, 'the failure');
        expect(failed).toMatchObject({ id: 'steps/1', error: 'job stalled more than allowable limit' });
        // Four starts, all of step 1: the fourth take-over fails the job instead of running it a fifth time.
        expect((await list('steps')).map((line) => line.split(' ')[1])).toEqual(['1', '1', '1', '1']);
        expect(await list('completed')).toEqual([]);
        // The worker's log line reaches this process through a pipe, after the failure is in Redis.
        const failedLine = /"level":"error".*"event":"queue\.job_failed".*"job_id":"steps\/1"/;
        await eventually(
          () => failedLine.test(workers.map(({ output }) => output()).join('\n')),
          5_000,
          'the error log',
        );
      }),
  );
});
