import { createClient } from '@keyv/redis';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEngine } from '../../src/queue/create.js';
import { defineLane, type Engine, QueueUnavailableError } from '../../src/queue/engine.js';
import { createRedisEngine } from '../../src/queue/redis.js';
import { queuePrefix } from '../../src/queue/redis-connection.js';
import { stepKeys, stepWakeChannel } from '../../src/queue/step-store.js';
import { captureLogs } from '../support/logs.js';
import { dropNamespace, redisAvailable, TEST_REDIS_URL, testNamespace } from '../support/redis.js';
import { type Connect, expectUnreachableRefused, expectWrongPasswordRefused } from '../support/redis-refusals.js';
import { eventually, sleep } from '../support/wait.js';
import { engineContract } from './engine-contract.js';
import { lanes } from './support.js';

/** Every lane of the suites, on the step scheduler (src/queue/step-worker.ts). */
const STEP_TEST_LANES = new Set(Object.values(lanes).map((lane) => lane.name));

/** Short locks, so a test sees a take-over in seconds. */
const TEST_TIMINGS = { lockDurationMs: 2_000, stalledIntervalMs: 1_000 };

describe.skipIf(!redisAvailable)('BullMQ engine', () => {
  engineContract({
    kind: 'redis',
    create: (namespace, options) =>
      createRedisEngine({ redisUrl: TEST_REDIS_URL, namespace, timings: TEST_TIMINGS, ...options }),
    dispose: dropNamespace,
  });

  describe('step lanes', () => {
    engineContract({
      kind: 'redis',
      create: (namespace, options) =>
        createRedisEngine({
          redisUrl: TEST_REDIS_URL,
          namespace,
          timings: TEST_TIMINGS,
          stepLanes: STEP_TEST_LANES,
          ...options,
        }),
      dispose: dropNamespace,
      schedulers: false,
    });
  });

  describe('several instances on one Redis', () => {
    const namespace = testNamespace();
    const opened: Engine[] = [];
    const instance = async (log = captureLogs().log) => {
      const engine = await createRedisEngine({ redisUrl: TEST_REDIS_URL, namespace, log, timings: TEST_TIMINGS });
      opened.push(engine);
      return engine;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((engine) => engine.close(500)));
      await dropNamespace(namespace);
    });

    it('a web instance adds and a worker instance runs what it added', async () => {
      const [web, worker] = [await instance(), await instance()];
      const seen: number[] = [];
      worker.work(lanes.work, async ({ n }) => {
        seen.push(n);
      });
      await web.lane(lanes.work).add({ n: 1 }, { id: 'from-web' });
      await eventually(() => seen.length === 1, 8_000, 'the run on the worker');
      expect(seen).toEqual([1]);
      expect(await web.counts('work')).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
    });

    it('runs each scheduler occurrence once, though every instance schedules and works it', async () => {
      const engines = [await instance(), await instance(), await instance()];
      const ids: string[] = [];
      for (const engine of engines) {
        engine.work(lanes.work, async (_data, meta) => {
          ids.push(meta.id);
        });
        await engine.lane(lanes.work).schedule('tick', { everyMs: 300 }, { n: 1 });
      }
      await sleep(1_600);
      expect(ids.length).toBeGreaterThanOrEqual(4);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('a job handed back at close is taken by another worker at once, not after its lock lapses', async () => {
      const [closing, other] = [await instance(), await instance()];
      let handedBackAt = 0;
      closing.work(lanes.slow, async (_data, meta) => {
        await new Promise((resolve) => meta.signal.addEventListener('abort', resolve));
      });
      await closing.lane(lanes.slow).add({ n: 1 }, { id: 'long' });
      await eventually(async () => (await closing.counts('slow')).active === 1, 8_000, 'the job running');
      const takenAt = new Promise<number>((resolve) => other.work(lanes.slow, async () => resolve(Date.now())));
      expect(await closing.close(200)).toEqual({ handedBack: 1, dropped: 0, unstarted: [] });
      handedBackAt = Date.now();
      expect((await takenAt) - handedBackAt).toBeLessThan(TEST_TIMINGS.lockDurationMs);
    });

    it('fails at once a job whose data is not what the working instance expects (two versions of the app)', async () => {
      const [older, newer] = [await instance(), await instance()];
      const renamed = defineLane({ ...lanes.work, data: z.object({ count: z.number() }) });
      newer.work(renamed, async () => {});
      await older.lane(lanes.work).add({ n: 1 }, { id: 'old-shape' });
      const failed = await eventually(async () => (await newer.failed('work'))[0], 8_000, 'the failure');
      expect(failed).toMatchObject({ id: 'old-shape', attempts: 1, error: expect.stringContaining('count') });
    });

    it('on the step scheduler, an entry another version wrote in a form this one does not read fails alone; the lane goes on', async () => {
      const logs = captureLogs();
      const steps = { redisUrl: TEST_REDIS_URL, namespace, log: logs.log, stepLanes: STEP_TEST_LANES };
      const worker = await createRedisEngine({ ...steps, timings: TEST_TIMINGS });
      opened.push(worker);
      const ran: number[] = [];
      worker.work(lanes.work, async ({ n }) => {
        ran.push(n);
      });
      // Due now, in the lane's keys (step-store.ts), as no release of this one writes it.
      const keys = stepKeys(queuePrefix(namespace), lanes.work.name);
      const redis = await createClient({ url: TEST_REDIS_URL }).connect();
      await redis.hSet(keys.jobs, 'other-form', 'v9;{"n":9}');
      await redis.zAdd(keys.due, { score: Date.now(), value: 'other-form' });
      await redis.close();
      await worker.lane(lanes.work).add({ n: 1 }, { id: 'fits' });

      await eventually(() => ran.includes(1), 5_000, 'the lane’s other job run');
      const failed = await eventually(async () => (await worker.failed('work'))[0], 5_000, 'the failure');
      expect(failed).toMatchObject({ id: 'other-form', error: expect.stringContaining('no longer reads') });
      expect(logs.text()).toContain('"event":"queue.job_failed"');
      expect(ran).toEqual([1]);
    });

    it('on the step scheduler, a worker claims what a web instance adds at once, not at its next idle look', async () => {
      const steps = { redisUrl: TEST_REDIS_URL, namespace, log: captureLogs().log, stepLanes: STEP_TEST_LANES };
      const web = await createRedisEngine({ ...steps, timings: TEST_TIMINGS });
      // A worker that would not look for due work by itself for ten minutes.
      const worker = await createRedisEngine({ ...steps, timings: { ...TEST_TIMINGS, stepIdleMs: 600_000 } });
      opened.push(web, worker);
      const ran: string[] = [];
      worker.work(lanes.work, async (_data, meta) => {
        ran.push(meta.id);
      });
      const channel = stepWakeChannel(queuePrefix(namespace));
      const redis = await createClient({ url: TEST_REDIS_URL }).connect();
      await eventually(async () => (await redis.pubSubNumSub(channel))[channel] === 1, 8_000, 'the worker listening');
      await redis.close();
      // Work due later is not announced: the worker does not see it come due.
      await web.lane(lanes.work).add({ n: 1 }, { id: 'later', delayMs: 50 });
      await sleep(1_000);
      expect(ran).toEqual([]);
      await web.lane(lanes.work).add({ n: 2 }, { id: 'now' });
      await eventually(() => ran.length === 2, 5_000, 'both claimed once the add was announced');
      expect(ran.sort()).toEqual(['later', 'now']);
    });

    it('moves what an earlier release left of a step lane on BullMQ to the step scheduler, ids and due times kept', async () => {
      const older = await instance();
      await older.lane(lanes.work).add({ n: 1 }, { id: 'old/waiting' });
      await older.lane(lanes.work).add({ n: 2 }, { id: 'old/delayed', delayMs: 60_000 });
      const steps = await createRedisEngine({
        redisUrl: TEST_REDIS_URL,
        namespace,
        log: captureLogs().log,
        timings: TEST_TIMINGS,
        stepLanes: STEP_TEST_LANES,
      });
      opened.push(steps);
      const ids: string[] = [];
      steps.work(lanes.work, async (_data, meta) => {
        ids.push(meta.id);
      });
      await eventually(() => ids.length === 1, 8_000, 'the waiting job run');
      // The move goes job by job: the waiting one may run before the delayed one has left BullMQ.
      const left = async () => Object.values(await older.counts('work')).every((count) => count === 0);
      await eventually(left, 5_000, 'nothing left on BullMQ');
      expect(ids).toEqual(['old/waiting']);
      expect(await steps.counts('work')).toMatchObject({ delayed: 1, waiting: 0 });
      expect(await older.counts('work')).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
      // Its id is the step lane's now: adding it again changes nothing.
      await steps.lane(lanes.work).add({ n: 3 }, { id: 'old/delayed' });
      expect(await steps.counts('work')).toMatchObject({ delayed: 1, waiting: 0 });
    });

    it('keeps every key under <namespace>:queue:', async () => {
      const engine = await instance();
      engine.work(lanes.work, async () => {});
      await engine.lane(lanes.work).add({ n: 1 }, { delayMs: 60_000 });
      await engine.lane(lanes.work).schedule('tick', { everyMs: 60_000 }, { n: 2 });
      const client = createClient({ url: TEST_REDIS_URL });
      await client.connect();
      try {
        const keys: string[] = [];
        for await (const batch of client.scanIterator({ MATCH: `*${namespace}*`, COUNT: 500 })) keys.push(...batch);
        expect(keys.length).toBeGreaterThan(3);
        for (const key of keys) expect(key.startsWith(`${namespace}:queue:work:`)).toBe(true);
      } finally {
        await client.close();
      }
      expect(await engine.lanes()).toEqual(['work']);
    });
  });

  it('is what createEngine gives when REDIS_URL is set', async () => {
    const engine = await createEngine({ redisUrl: TEST_REDIS_URL, namespace: testNamespace(), log: captureLogs().log });
    expect(engine.kind).toBe('redis');
    await engine.close(0);
  });

  it('reports a wrong password at once, without the password', async () => {
    const connect: Connect = (redisUrl, log) =>
      createRedisEngine({ redisUrl, namespace: testNamespace(), log }).then((engine) => engine.close(0));
    await expectWrongPasswordRefused(connect, QueueUnavailableError, 6_000);
  });
});

describe('BullMQ engine, Redis unreachable', () => {
  it('fails fast with QueueUnavailableError naming host:port and not the password', async () => {
    const connect: Connect = (redisUrl, log) => createRedisEngine({ redisUrl, namespace: 'unreachable', log });
    const message = await expectUnreachableRefused(connect, QueueUnavailableError);
    expect(message).toMatch(/127\.0\.0\.1:1 .*ECONNREFUSED/);
  });
});
