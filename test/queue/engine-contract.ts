import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/log.js';
import {
  Again,
  type Engine,
  type JobMeta,
  type JobObserver,
  PermanentJobError,
  QueueUnavailableError,
} from '../../src/queue/engine.js';
import { captureLogs } from '../support/logs.js';
import { eventually, sleep } from '../support/wait.js';
import { stepCases } from './step-contract.js';
import { gate, lanes } from './support.js';

/** Makes an engine on `namespace`; the contract closes it. `dispose` (optional) deletes what the namespace left. */
export interface EngineFactory {
  kind: 'memory' | 'redis';
  create(namespace: string, options: { log: Logger; observer?: JobObserver }): Promise<Engine>;
  dispose?(namespace: string): Promise<void>;
  /** False for the Redis engine's step lanes (src/queue/step-worker.ts), which take no schedulers. */
  schedulers?: false;
}

let counter = 0;
const uniqueNamespace = () => `qc-${process.pid}-${Date.now().toString(36)}-${counter++}`;

/** The behaviour every engine has, whatever is behind it (the store contract's shape). */
export function engineContract(factory: EngineFactory): void {
  let namespace: string;
  let logs: ReturnType<typeof captureLogs>;
  let engine: Engine;
  const opened: Engine[] = [];
  const open = async (observer?: JobObserver) => {
    const next = await factory.create(namespace, { log: logs.log, ...(observer && { observer }) });
    opened.push(next);
    return next;
  };
  const { kind } = factory;
  /**
   * A case only one engine has: registered for that engine alone and named with it, so the other engine's run neither
   * skips it nor counts it as passed. Redis: other instances on one store, work that outlives the process. Memory:
   * work that ends with the process.
   */
  const only = (engine: EngineFactory['kind'], name: string, test: () => Promise<void>) => {
    if (kind === engine) it(`${name} (${engine} only)`, test);
  };

  beforeEach(async () => {
    namespace = uniqueNamespace();
    logs = captureLogs();
    engine = await open();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((e) => e.close(500)));
    await factory.dispose?.(namespace);
  });

  /** The failed jobs of lane `work`, or undefined while there are none. */
  const failedJobs = async () => {
    const failed = await engine.failed('work');
    return failed.length > 0 ? failed : undefined;
  };

  /** Records each run of a lane: its data and meta. */
  const record = () => {
    const runs: { n: number; meta: JobMeta; at: number }[] = [];
    const processor = async (data: { n: number }, meta: JobMeta) => {
      runs.push({ n: data.n, meta, at: Date.now() });
    };
    return { runs, processor };
  };

  describe('adding and processing', () => {
    it('runs added work with its data, its id, its lane and a first attempt', async () => {
      const { runs, processor } = record();
      engine.work(lanes.work, processor);
      await engine.lane(lanes.work).add({ n: 1 }, { id: 'item/1' });
      await eventually(() => runs.length === 1, 8_000, 'a run');
      expect(runs[0]).toMatchObject({ n: 1, meta: { id: 'item/1', lane: 'work', attempt: 1 } });
      expect(runs[0]?.meta.signal.aborted).toBe(false);
    });

    it('refuses data that is not the lane’s and ids BullMQ reserves, storing nothing', async () => {
      const lane = engine.lane(lanes.work);
      await expect(lane.add({ n: 'one' } as unknown as { n: number })).rejects.toThrow(/n/);
      await expect(lane.add({ n: 1 }, { id: '42' })).rejects.toThrow(/plain number/);
      await expect(lane.add({ n: 1 }, { id: 'poll:proj:1' })).rejects.toThrow(/`:`/);
      expect(await engine.counts('work')).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
    });

    it('gives each lane its own concurrency, so a busy lane never holds up another', async () => {
      const door = gate();
      let running = 0;
      let most = 0;
      const fast = record();
      engine.work(lanes.slow, async () => door.wait());
      engine.work(lanes.work, async (data, meta) => {
        most = Math.max(most, ++running);
        await sleep(50);
        running--;
        await fast.processor(data, meta);
      });
      for (let n = 0; n < 3; n++) await engine.lane(lanes.slow).add({ n });
      for (let n = 0; n < 6; n++) await engine.lane(lanes.work).add({ n });
      await eventually(() => fast.runs.length === 6, 8_000, 'the fast lane done');
      expect(most).toBe(2);
      expect(await engine.counts('slow')).toMatchObject({ active: 1, waiting: 2 });
      door.open();
      await eventually(async () => (await engine.counts('slow')).waiting === 0, 8_000, 'the slow lane done');
    });

    it('runs a delayed job no sooner than its delay', async () => {
      const { runs, processor } = record();
      engine.work(lanes.work, processor);
      const added = Date.now();
      await engine.lane(lanes.work).add({ n: 1 }, { delayMs: 400 });
      expect(await engine.counts('work')).toMatchObject({ delayed: 1, waiting: 0 });
      await eventually(() => runs.length === 1, 8_000, 'the delayed run');
      expect((runs[0]?.at ?? 0) - added).toBeGreaterThanOrEqual(395);
    });

    it('only adds until the engine works the lane (the web role), then processes what waited', async () => {
      const lane = engine.lane(lanes.work);
      await lane.add({ n: 1 });
      await lane.add({ n: 2 });
      await sleep(200);
      expect(await engine.counts('work')).toMatchObject({ waiting: 2, active: 0 });
      const { runs, processor } = record();
      engine.work(lanes.work, processor);
      await eventually(() => runs.length === 2, 8_000, 'both runs');
      expect(runs.map((r) => r.n).sort()).toEqual([1, 2]);
    });
  });

  describe('one job per id', () => {
    it('keeps the first data when an id is added again while it waits', async () => {
      const lane = engine.lane(lanes.work);
      await lane.add({ n: 1 }, { id: 'same' });
      await lane.add({ n: 2 }, { id: 'same' });
      expect(await engine.counts('work')).toMatchObject({ waiting: 1 });
      const { runs, processor } = record();
      engine.work(lanes.work, processor);
      await eventually(() => runs.length === 1, 8_000, 'the run');
      await sleep(200);
      expect(runs.map((r) => r.n)).toEqual([1]);
    });

    it('keeps the first due time when an id is added again while it is delayed', async () => {
      const { runs, processor } = record();
      engine.work(lanes.work, processor);
      const added = Date.now();
      await engine.lane(lanes.work).add({ n: 1 }, { id: 'same', delayMs: 400 });
      await engine.lane(lanes.work).add({ n: 2 }, { id: 'same' });
      expect(await engine.counts('work')).toMatchObject({ delayed: 1, waiting: 0 });
      await eventually(() => runs.length === 1, 8_000, 'the run');
      expect(runs[0]?.n).toBe(1);
      expect((runs[0]?.at ?? 0) - added).toBeGreaterThanOrEqual(395);
    });

    it('does not run an id again that is running when it is added', async () => {
      const door = gate();
      const { runs, processor } = record();
      engine.work(lanes.work, async (data, meta) => {
        await processor(data, meta);
        await door.wait();
      });
      await engine.lane(lanes.work).add({ n: 1 }, { id: 'same' });
      await eventually(() => runs.length === 1, 8_000, 'the run');
      await engine.lane(lanes.work).add({ n: 2 }, { id: 'same' });
      door.open();
      await eventually(async () => (await engine.counts('work')).active === 0, 8_000, 'the run done');
      await sleep(200);
      expect(runs.map((r) => r.n)).toEqual([1]);
    });

    it('runs a completed id again when it is added again (the next round)', async () => {
      const { runs, processor } = record();
      engine.work(lanes.work, processor);
      await engine.lane(lanes.work).add({ n: 1 }, { id: 'same' });
      await eventually(async () => runs.length === 1 && (await engine.counts('work')).active === 0, 8_000, 'first run');
      await engine.lane(lanes.work).add({ n: 2 }, { id: 'same' });
      await eventually(() => runs.length === 2, 8_000, 'second run');
      expect(runs.map((r) => r.n)).toEqual([1, 2]);
    });

    it('runs the same job again later with new data when its processor says so, keeping its id throughout', async () => {
      const runs: { n: number; at: number; attempt: number }[] = [];
      engine.work(lanes.work, async ({ n }, meta) => {
        runs.push({ n, at: Date.now(), attempt: meta.attempt });
        return n < 3 ? new Again({ n: n + 1 }, 150) : undefined;
      });
      await engine.lane(lanes.work).add({ n: 1 }, { id: 'chain' });
      await eventually(() => runs.length === 2, 8_000, 'the second step');
      // While it waits for its next step, the job is the same work: adding its id again changes nothing.
      await engine.lane(lanes.work).add({ n: 9 }, { id: 'chain' });
      expect((await engine.counts('work')).delayed).toBe(1);
      await eventually(
        async () => runs.length === 3 && (await engine.counts('work')).delayed === 0,
        8_000,
        'the last step',
      );
      await sleep(300);
      expect(runs.map((r) => r.n)).toEqual([1, 2, 3]);
      expect(runs.map((r) => r.attempt)).toEqual([1, 1, 1]);
      expect((runs[1]?.at ?? 0) - (runs[0]?.at ?? 0)).toBeGreaterThanOrEqual(140);
    });

    it('runs a later add of a failed job’s id, with all its tries, in place of the failed job', async () => {
      const { runs, processor } = record();
      engine.work(lanes.work, async (data, meta) => {
        await processor(data, meta);
        // The first job fails for good; the second blips once, then succeeds.
        if (data.n === 1 || meta.attempt === 1) throw new Error('Slack was down');
      });
      const lane = engine.lane(lanes.work);
      await lane.add({ n: 1 }, { id: 'refresh/1' });
      await eventually(async () => (await engine.counts('work')).failed === 1, 8_000, 'the failure');
      await lane.add({ n: 2 }, { id: 'refresh/1' });
      await eventually(
        async () => runs.length === 5 && (await engine.counts('work')).active === 0,
        8_000,
        'the later add done',
      );
      expect(runs.map((r) => `${r.n}:${r.meta.attempt}`)).toEqual(['1:1', '1:2', '1:3', '2:1', '2:2']);
      expect(await engine.counts('work')).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
      expect(await engine.failed('work')).toEqual([]);
    });

    it('lets an operator retry a failed job (all tries again) or remove it (the id is free)', async () => {
      let failing = true;
      const { runs, processor } = record();
      engine.work(lanes.work, async (data, meta) => {
        await processor(data, meta);
        if (failing) throw new Error('refused');
      });
      const lane = engine.lane(lanes.work);
      await lane.add({ n: 1 }, { id: 'same' });
      await eventually(async () => (await engine.counts('work')).failed === 1, 8_000, 'the failure');
      expect(runs).toHaveLength(3);

      expect(await engine.retry('work', 'same')).toBe(true);
      await eventually(
        async () => (await engine.counts('work')).failed === 1 && runs.length === 6,
        8_000,
        'three more',
      );
      expect(runs.slice(3).map((r) => r.meta.attempt)).toEqual([1, 2, 3]);

      expect(await engine.remove('work', 'same')).toBe(true);
      expect(await engine.remove('work', 'same')).toBe(false);
      expect(await engine.retry('work', 'same')).toBe(false);
      failing = false;
      await lane.add({ n: 3 }, { id: 'same' });
      await eventually(() => runs.at(-1)?.n === 3, 8_000, 'the run after removal');
      expect(await engine.counts('work')).toMatchObject({ failed: 0 });
    });
  });

  describe('discarding a workspace’s jobs', () => {
    it('deletes the waiting, delayed and failed jobs whose data matches; others and a running one stay', async () => {
      const door = gate();
      const { runs, processor } = record();
      engine.work(lanes.slow, async (data, meta) => {
        await processor(data, meta);
        if (data.n === 10) await door.wait();
      });
      engine.work(lanes.once, async ({ n }) => {
        throw new Error(`refused ${n}`);
      });
      const slow = engine.lane(lanes.slow);
      await slow.add({ n: 10 }, { id: 'running' });
      await eventually(() => runs.length === 1, 5_000, 'the running job');
      for (const n of [2, 3]) await slow.add({ n }, { id: `waiting-${n}` });
      for (const n of [4, 5]) await slow.add({ n }, { id: `delayed-${n}`, delayMs: 60_000 });
      for (const n of [6, 7]) await engine.lane(lanes.once).add({ n }, { id: `failed-${n}` });
      await eventually(async () => (await engine.counts('once')).failed === 2, 8_000, 'the failures');

      const even = (data: unknown) => (data as { n: number }).n % 2 === 0;
      expect(await engine.discard('slow', even)).toBe(2);
      expect(await engine.discard('once', even)).toBe(1);
      expect(await engine.counts('slow')).toMatchObject({ waiting: 1, delayed: 1, active: 1 });
      expect((await engine.failed('once')).map((job) => job.id)).toEqual(['failed-7']);
      door.open();
      await eventually(() => runs.some((run) => run.n === 3), 5_000, 'the job left waiting');
      await sleep(200);
      expect(runs.map((run) => run.n).sort()).toEqual([10, 3]);
      // Its id is free again.
      await slow.add({ n: 2 }, { id: 'waiting-2' });
      await eventually(() => runs.some((run) => run.n === 2), 5_000, 'the id added again');
    });
  });

  describe('retries and failures', () => {
    it('retries with the lane’s fixed backoff, counting each retry', async () => {
      const { runs, processor } = record();
      engine.work(lanes.work, async (data, meta) => {
        await processor(data, meta);
        if (meta.attempt < 3) throw new Error(`try ${meta.attempt} failed`);
      });
      await engine.lane(lanes.work).add({ n: 1 }, { id: 'flaky' });
      await eventually(async () => (await engine.stats())[0]?.completedTotal === 1, 8_000, 'completion');
      expect(runs.map((r) => r.meta.attempt)).toEqual([1, 2, 3]);
      for (const [a, b] of [
        [0, 1],
        [1, 2],
      ] as const) {
        expect((runs[b]?.at ?? 0) - (runs[a]?.at ?? 0)).toBeGreaterThanOrEqual(95);
      }
      expect(await engine.stats()).toEqual([
        expect.objectContaining({ lane: 'work', retriedTotal: 2, failedTotal: 0, failed: 0, waiting: 0 }),
      ]);
      const retries = logs.lines.map((l) => JSON.parse(l)).filter((l) => l.event === 'queue.job_retry');
      expect(retries).toEqual([
        expect.objectContaining({ level: 'warn', lane: 'work', job_id: 'flaky', attempt: 1, retry_in_ms: 100 }),
        expect.objectContaining({ job_id: 'flaky', attempt: 2, error: 'try 2 failed' }),
      ]);
    });

    it('doubles an exponential backoff at each retry', async () => {
      const { runs, processor } = record();
      engine.work(lanes.doubling, async (data, meta) => {
        await processor(data, meta);
        throw new Error('no');
      });
      await engine.lane(lanes.doubling).add({ n: 1 });
      await eventually(() => runs.length === 3, 8_000, 'three tries');
      expect((runs[1]?.at ?? 0) - (runs[0]?.at ?? 0)).toBeGreaterThanOrEqual(145);
      expect((runs[2]?.at ?? 0) - (runs[1]?.at ?? 0)).toBeGreaterThanOrEqual(295);
    });

    it('puts a job out of tries in the failed set, with a log line naming it, and counts it', async () => {
      engine.work(lanes.work, async () => {
        throw new Error('Slack said channel_not_found for xoxb-123-secret');
      });
      await engine.lane(lanes.work).add({ n: 7 }, { id: 'doomed/7' });
      const [failed] = await eventually(failedJobs, 8_000, 'the failed job');
      expect(failed).toEqual({
        id: 'doomed/7',
        lane: 'work',
        data: '{"n":7}',
        error: 'Slack said channel_not_found for xoxb-[redacted]',
        attempts: 3,
        failedAt: expect.any(Number),
      });
      expect(Math.abs((failed?.failedAt ?? 0) - Date.now())).toBeLessThan(5_000);
      const line = logs.lines.map((l) => JSON.parse(l)).find((l) => l.event === 'queue.job_failed');
      expect(line).toMatchObject({ level: 'error', lane: 'work', job_id: 'doomed/7', attempt: 3 });
      expect(logs.text()).not.toContain('secret');
      expect(await engine.stats()).toEqual([expect.objectContaining({ failed: 1, failedTotal: 1, retriedTotal: 2 })]);
    });

    it('fails a job at once, without its remaining tries, when the processor says trying again cannot help', async () => {
      const { runs, processor } = record();
      engine.work(lanes.work, async (data, meta) => {
        await processor(data, meta);
        throw new PermanentJobError('channel is archived');
      });
      await engine.lane(lanes.work).add({ n: 1 }, { id: 'archived' });
      const [failed] = await eventually(failedJobs, 8_000, 'the failed job');
      expect(failed).toMatchObject({ id: 'archived', attempts: 1, error: 'channel is archived' });
      expect(runs).toHaveLength(1);
    });

    it('tells the observer of every start (with the wait of first starts) and every finish', async () => {
      const events: string[] = [];
      const observed = await open({
        started: (lane, waitMs) => events.push(`${lane} started ${waitMs === undefined ? 'retry' : 'first'}`),
        finished: (lane, outcome) => events.push(`${lane} ${outcome}`),
      });
      observed.work(lanes.work, async (_data, meta) => {
        if (meta.attempt === 1) throw new Error('once');
      });
      await observed.lane(lanes.work).add({ n: 1 });
      await eventually(() => events.length === 4, 8_000, 'four events');
      expect(events).toEqual(['work started first', 'work retried', 'work started retry', 'work completed']);
    });
  });

  stepCases({ engine: () => engine, open, logs: () => logs });

  if (factory.schedulers === false) {
    it('refuses a scheduler on a step lane, storing nothing', async () => {
      await expect(engine.lane(lanes.work).schedule('tick', { everyMs: 250 }, { n: 1 })).rejects.toThrow(/steps/);
      expect(await engine.schedules('work')).toEqual([]);
      expect(await engine.lane(lanes.work).unschedule('tick')).toBe(false);
      expect(await engine.counts('work')).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
    });
  } else {
    schedulerCases();
  }

  function schedulerCases() {
    describe('schedulers', () => {
      it('runs an every-N-ms scheduler at once and then once per period, each occurrence its own job', async () => {
        const { runs, processor } = record();
        engine.work(lanes.work, processor);
        await engine.lane(lanes.work).schedule('tick', { everyMs: 250 }, { n: 1 });
        await sleep(900);
        expect(runs.length).toBeGreaterThanOrEqual(3);
        expect(runs.length).toBeLessThanOrEqual(5);
        expect(new Set(runs.map((r) => r.meta.id)).size).toBe(runs.length);
        expect(runs[0]?.meta.id).toMatch(/^repeat:tick:\d+$/);
      });

      it('replaces a scheduler scheduled again under its id, and stops it when unscheduled', async () => {
        const lane = engine.lane(lanes.work);
        await lane.schedule('tick', { everyMs: 60_000 }, { n: 1 });
        await lane.schedule('tick', { everyMs: 60_000 }, { n: 2 });
        expect(await engine.schedules('work')).toEqual([
          { id: 'tick', schedule: { everyMs: 60_000 }, nextAt: expect.any(Number), data: { n: 2 } },
        ]);
        expect(await engine.counts('work')).toMatchObject({ waiting: 1, delayed: 0 });
        const { runs, processor } = record();
        engine.work(lanes.work, processor);
        await eventually(() => runs.length >= 1, 8_000, 'the first occurrence');
        await sleep(300);
        expect(runs.map((r) => r.n)).toEqual([2]);
        expect(await engine.counts('work')).toMatchObject({ waiting: 0, delayed: 1 });
        expect(await lane.unschedule('tick')).toBe(true);
        expect(await lane.unschedule('tick')).toBe(false);
        expect(await engine.schedules('work')).toEqual([]);
        expect(await engine.counts('work')).toMatchObject({ delayed: 0, waiting: 0 });
      });

      it('runs a cron scheduler at its times, read in its time zone', async () => {
        const lane = engine.lane(lanes.work);
        await lane.schedule('morning', { cron: '0 9 * * *', tz: 'America/New_York' }, { n: 1 });
        const [info] = await engine.schedules('work');
        const nextAt = info?.nextAt ?? 0;
        const inNewYork = new Intl.DateTimeFormat('en-GB', {
          timeZone: 'America/New_York',
          hour: '2-digit',
          minute: '2-digit',
        });
        expect(inNewYork.format(nextAt)).toBe('09:00');
        expect(nextAt - Date.now()).toBeGreaterThan(0);
        expect(nextAt - Date.now()).toBeLessThanOrEqual(25 * 3_600_000);

        const { runs, processor } = record();
        engine.work(lanes.work, processor);
        await lane.schedule('each-second', { cron: '* * * * * *', tz: 'UTC' }, { n: 2 });
        await eventually(() => runs.filter((r) => r.n === 2).length >= 2, 5_000, 'two occurrences');
      });

      it('runs a time the clocks skip when they resume, as the app’s own cron maths says (the digest’s "Next:")', async () => {
        // 02:30 does not exist in Berlin on 2027-03-28: croner, which says "Next:", gives 03:00; cron-parser gave 03:30.
        vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2027-03-27T12:00:00Z') });
        try {
          await engine.lane(lanes.work).schedule('gap', { cron: '30 2 * * *', tz: 'Europe/Berlin' }, { n: 1 });
          const [info] = await engine.schedules('work');
          expect(new Date(info?.nextAt ?? 0).toISOString()).toBe('2027-03-28T01:00:00.000Z');
        } finally {
          vi.useRealTimers();
        }
      });

      it('runs a time a DST gap skips across midnight when the clocks resume, as the digest’s "Next:" says', async () => {
        // 23:30 does not exist in America/Nuuk on Saturday 2026-03-28 (23:00 → 00:00 Sunday): croner alone skipped it.
        vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-03-28T12:00:00Z') });
        try {
          await engine.lane(lanes.work).schedule('gap', { cron: '30 23 * * *', tz: 'America/Nuuk' }, { n: 1 });
          const [info] = await engine.schedules('work');
          expect(new Date(info?.nextAt ?? 0).toISOString()).toBe('2026-03-29T01:00:00.000Z');
        } finally {
          vi.useRealTimers();
        }
      });

      it('refuses an unknown time zone and a pattern that is not cron', async () => {
        const lane = engine.lane(lanes.work);
        await expect(lane.schedule('x', { cron: '0 9 * * *', tz: 'Mars/Olympus' }, { n: 1 })).rejects.toThrow();
        await expect(lane.schedule('x', { cron: 'every morning', tz: 'UTC' }, { n: 1 })).rejects.toThrow();
        expect(await engine.schedules('work')).toEqual([]);
      });
    });
  }

  describe('which jobs still wait', () => {
    it('tells which of the given ids wait for a worker, with their data: not a running, done or unknown one', async () => {
      const lane = engine.lane(lanes.slow);
      expect(await lane.add({ n: 1 }, { id: 'first' })).toBe('first');
      const second = await lane.add({ n: 2 }); // a fresh id, as the add names it
      expect(await lane.add({ n: 9 }, { id: 'first' })).toBe('first'); // the same work: its first data kept
      expect(await lane.add({ n: 3 }, { id: 'later', delayMs: 60_000 })).toBe('later');
      expect(await engine.queued('slow', ['first', second, 'later', 'unknown'])).toEqual(
        new Map<string, unknown>([
          ['first', { n: 1 }],
          [second, { n: 2 }],
          ['later', { n: 3 }],
        ]),
      );
      const door = gate();
      engine.work(lanes.slow, async () => door.wait());
      await eventually(async () => (await engine.counts('slow')).active === 1, 8_000, 'one running');
      const waiting = await engine.queued('slow', ['first', second]);
      expect(waiting.size).toBe(1); // the running one is no longer waiting
      door.open();
      await eventually(
        async () => {
          const { waiting, active } = await engine.counts('slow');
          return waiting + active === 0;
        },
        8_000,
        'both done',
      );
      expect(await engine.queued('slow', ['first', second, 'later'])).toEqual(new Map([['later', { n: 3 }]]));
      expect(await engine.queued('slow', [])).toEqual(new Map());
    });
  });

  describe('stats', () => {
    it('counts waiting, delayed, active and failed jobs, and measures how long started jobs waited', async () => {
      const lane = engine.lane(lanes.slow);
      await lane.add({ n: 1 });
      await lane.add({ n: 2 });
      await lane.add({ n: 3 }, { delayMs: 60_000 });
      expect(await engine.stats()).toEqual([
        expect.objectContaining({ lane: 'slow', waiting: 2, delayed: 1, active: 0, failed: 0 }),
      ]);
      await sleep(300);
      const door = gate();
      engine.work(lanes.slow, async () => door.wait());
      await eventually(async () => (await engine.counts('slow')).active === 1, 8_000, 'one active');
      const [stats] = await engine.stats();
      expect(stats).toMatchObject({ waiting: 1, delayed: 1, active: 1, wait: { count: 1 } });
      expect(stats?.wait.sumMs).toBeGreaterThanOrEqual(290);
      expect(stats?.wait.maxMs).toBe(stats?.wait.sumMs);
      door.open();
      await eventually(async () => (await engine.stats())[0]?.completedTotal === 2, 8_000, 'both done');
      expect((await engine.stats())[0]?.wait.count).toBe(2);
      expect(await engine.lanes()).toEqual(['slow']);
    });

    it('counts the consumers of a lane: none while only added to, one once worked', async () => {
      engine.lane(lanes.slow);
      expect(await engine.consumers('slow')).toBe(0);
      engine.work(lanes.slow, async () => {});
      await eventually(async () => (await engine.consumers('slow')) === 1, 5_000, 'the worker counted');
    });

    only(
      'redis',
      'has a lane’s consumers counted by another instance on the same store, none once closed',
      async () => {
        engine.work(lanes.slow, async () => {});
        await eventually(async () => (await (await open()).consumers('slow')) === 1, 5_000, 'the worker counted');
        await engine.close(100);
        await eventually(async () => (await (await open()).consumers('slow')) === 0, 5_000, 'none after close');
      },
    );
  });

  describe('close', () => {
    /** Closes with job 1 running (200 ms) and job 2 never started. */
    const closeWithOneWaiting = async () => {
      const { runs, processor } = record();
      engine.work(lanes.slow, async (data, meta) => {
        await sleep(200);
        await processor(data, meta);
      });
      await engine.lane(lanes.slow).add({ n: 1 });
      await engine.lane(lanes.slow).add({ n: 2 });
      await eventually(async () => (await engine.counts('slow')).active === 1, 8_000, 'one running');
      return { report: await engine.close(5_000), runs };
    };

    /** Closes after 300 ms with a job that does not stop; resolves with the report and the job's signal. */
    const closeWithOneStuck = async () => {
      let signal: AbortSignal | undefined;
      engine.work(lanes.slow, async (_data, meta) => {
        signal = meta.signal;
        await new Promise((resolve) => meta.signal.addEventListener('abort', resolve));
        await sleep(60_000); // a processor that does not stop: its result is ignored anyway
      });
      await engine.lane(lanes.slow).add({ n: 1 }, { id: 'long' });
      await eventually(() => signal, 8_000, 'the job running');
      const started = Date.now();
      const report = await engine.close(300);
      expect(Date.now() - started).toBeLessThan(3_000);
      return { report, signal };
    };

    it('lets a running job finish within the deadline, starts nothing more and refuses adds', async () => {
      const { report, runs } = await closeWithOneWaiting();
      expect(runs.map((r) => r.n)).toEqual([1]);
      expect(report.handedBack).toBe(0);
      await expect(engine.lane(lanes.slow).add({ n: 3 })).rejects.toThrow(QueueUnavailableError);
    });

    only('memory', 'names each job that never started with its data, as it ends with the process', async () => {
      // So its requester can be told.
      const { report } = await closeWithOneWaiting();
      expect(report).toEqual({ handedBack: 0, dropped: 1, unstarted: [{ lane: 'slow', data: { n: 2 } }] });
      expect(logs.text()).toContain('"event":"queue.memory_dropped"');
    });

    only('redis', 'leaves a job that never started queued for the next worker', async () => {
      const { report } = await closeWithOneWaiting();
      expect(report).toEqual({ handedBack: 0, dropped: 0, unstarted: [] });
      expect(await (await open()).counts('slow')).toMatchObject({ waiting: 1, active: 0 });
    });

    it('aborts the signal of a job still running at the deadline and hands the job back', async () => {
      const { report, signal } = await closeWithOneStuck();
      expect(signal?.aborted).toBe(true);
      // A job handed back had started: it is not among the unstarted.
      expect(report).toMatchObject({ handedBack: 1, unstarted: [] });
    });

    only('memory', 'counts a job handed back at close among the work that ends with the process', async () => {
      expect((await closeWithOneStuck()).report).toEqual({ handedBack: 1, dropped: 1, unstarted: [] });
    });

    only('redis', 'puts a job handed back at close back in its queue for the next worker', async () => {
      expect((await closeWithOneStuck()).report).toEqual({ handedBack: 1, dropped: 0, unstarted: [] });
      expect(await (await open()).counts('slow')).toMatchObject({ waiting: 1, active: 0, failed: 0 });
    });
  });
}
