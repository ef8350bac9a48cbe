import { describe, expect, it, vi } from 'vitest';
import { createEngine } from '../../src/queue/create.js';
import { createMemoryEngine } from '../../src/queue/memory.js';
import { captureLogs } from '../support/logs.js';
import { eventually } from '../support/wait.js';
import { engineContract } from './engine-contract.js';
import { lanes } from './support.js';

describe('in-process engine', () => {
  engineContract({ kind: 'memory', create: async (_namespace, options) => createMemoryEngine(options) });

  it.each([undefined, ''])(
    'is used when REDIS_URL is %j, with a warning that its work ends with the process',
    async (redisUrl) => {
      const logs = captureLogs();
      const engine = await createEngine({ redisUrl, namespace: 'ns', log: logs.log });
      expect(engine.kind).toBe('memory');
      expect(logs.lines.map((line) => JSON.parse(line))).toEqual([
        expect.objectContaining({
          level: 'warn',
          event: 'queue.memory',
          message: expect.stringContaining('REDIS_URL'),
        }),
      ]);
      await engine.close(0);
    },
  );

  it('keeps the last 1,000 failed jobs of a lane, freeing the ids of older ones', async () => {
    const engine = createMemoryEngine({ log: captureLogs().log });
    try {
      engine.work(lanes.once, async () => {
        throw new Error('no');
      });
      const lane = engine.lane(lanes.once);
      for (let n = 0; n < 1_001; n++) await lane.add({ n }, { id: `job/${n}` });
      await eventually(async () => (await engine.stats())[0]?.failedTotal === 1_001, 8_000, 'every failure');
      expect(await engine.counts('once')).toMatchObject({ failed: 1_000 });
      expect((await engine.failed('once', 1))[0]?.id).toBe('job/1000');
      expect(await engine.retry('once', 'job/0')).toBe(false);
      await lane.add({ n: 0 }, { id: 'job/0' });
      await eventually(async () => (await engine.stats())[0]?.failedTotal === 1_002, 8_000, 'the freed id ran');
    } finally {
      await engine.close(100);
    }
  });

  it('runs a job due beyond setTimeout’s range only when it is due', async () => {
    const engine = createMemoryEngine({ log: captureLogs().log });
    try {
      engine.work(lanes.work, async () => {});
      await engine.lane(lanes.work).add({ n: 1 }, { delayMs: 40 * 24 * 3_600_000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await engine.counts('work')).toMatchObject({ delayed: 1, active: 0 });
    } finally {
      await engine.close(100);
    }
  });
  it('starts a delayed job when the clock moves on between reading it and arming the timer', async () => {
    // A clock that moves one ms at every reading: the pump can see the job not yet due and the timer's arming see it
    // due, the race a busy process runs into (slack-finals saw every poll of the memory store stop under load).
    const start = Date.now();
    let readings = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => start + readings++);
    const engines = Array.from({ length: 8 }, () => createMemoryEngine({ log: captureLogs().log }));
    try {
      const ran: number[] = [];
      for (const [n, engine] of engines.entries()) {
        engine.work(lanes.once, async (data) => void ran.push(data.n));
        await new Promise((resolve) => setImmediate(resolve)); // the worker's first look is over
        await engine.lane(lanes.once).add({ n }, { delayMs: n + 1 });
      }
      clock.mockRestore(); // a job left without a timer stays put however far the real clock goes
      await eventually(() => ran.length === engines.length, 2_000, 'every delayed job to run');
    } finally {
      clock.mockRestore();
      for (const engine of engines) await engine.close(100);
    }
  });
});
