import { describe, expect, it } from 'vitest';
import { Again, type Engine, type JobMeta, type JobObserver } from '../../src/queue/engine.js';
import type { captureLogs } from '../support/logs.js';
import { eventually } from '../support/wait.js';
import { lanes } from './support.js';

/** What the engine contract hands its step cases: the test's engine, a way to open another, its logs. */
export interface StepContext {
  engine(): Engine;
  open(observer?: JobObserver): Promise<Engine>;
  logs(): ReturnType<typeof captureLogs>;
}

type Run = { n: number; attempt: number; at: number };

/**
 * A processor that steps through `{ n: 1 … last }` with `Again(next, delayMs)` and fails the first try of each step
 * once (a transient blip), recording every try.
 */
function blippingSteps(last: number, delayMs: number) {
  const runs: Run[] = [];
  const blipped = new Set<number>();
  const processor = async ({ n }: { n: number }, meta: JobMeta) => {
    runs.push({ n, attempt: meta.attempt, at: Date.now() });
    if (!blipped.has(n)) {
      blipped.add(n);
      throw new Error(`step ${n} blipped`);
    }
    return n < last ? new Again({ n: n + 1 }, delayMs) : undefined;
  };
  return { runs, processor };
}

/** The job with `id` is done: its last step ran and nothing of the lane is left. */
async function finished(engine: Engine, lane: string, runs: Run[], last: number): Promise<boolean> {
  const counts = await engine.counts(lane);
  return runs.at(-1)?.n === last && counts.active + counts.delayed + counts.waiting === 0;
}

/** A step's budget is its own: tries, backoff and wait count for that step only (issue 30, defects 1 and 6). */
export function stepCases(context: StepContext): void {
  describe('steps (each step its own budget)', () => {
    it('gives each step its own tries: one blip per step never uses up the job', async () => {
      const engine = context.engine();
      const { runs, processor } = blippingSteps(4, 0);
      engine.work(lanes.work, processor);
      await engine.lane(lanes.work).add({ n: 1 }, { id: 'steps/tries' });
      await eventually(
        async () => (await finished(engine, 'work', runs, 4)) || (await engine.counts('work')).failed > 0,
        15_000,
        'the last step or a failure',
      );
      expect(await engine.counts('work')).toMatchObject({ failed: 0 });
      expect(runs.map(({ n, attempt }) => `${n}:${attempt}`)).toEqual([
        '1:1',
        '1:2',
        '2:1',
        '2:2',
        '3:1',
        '3:2',
        '4:1',
        '4:2',
      ]);
    });

    it('computes the backoff from the step’s own tries', async () => {
      const engine = context.engine();
      const { runs, processor } = blippingSteps(2, 0);
      engine.work(lanes.doubling, processor);
      await engine.lane(lanes.doubling).add({ n: 1 }, { id: 'steps/backoff' });
      await eventually(
        async () => (await finished(engine, 'doubling', runs, 2)) || (await engine.counts('doubling')).failed > 0,
        15_000,
        'the last step or a failure',
      );
      const retries = context
        .logs()
        .lines.map((line) => JSON.parse(line))
        .filter((line) => line.event === 'queue.job_retry');
      // Exponential from 150 ms: each step's first retry waits 150 ms, not 300 for the job's second blip.
      expect(retries.map((line) => [line.attempt, line.retry_in_ms])).toEqual([
        [1, 150],
        [1, 150],
      ]);
      expect(runs.map(({ n, attempt }) => `${n}:${attempt}`)).toEqual(['1:1', '1:2', '2:1', '2:2']);
      for (const [failed, retried] of [
        [0, 1],
        [2, 3],
      ] as const) {
        expect((runs[retried]?.at ?? 0) - (runs[failed]?.at ?? 0)).toBeGreaterThanOrEqual(145);
      }
    });

    it('fails the try whose next step’s data is not the lane’s, as a throw would, leaving nothing queued', async () => {
      const engine = context.engine();
      const runs: number[] = [];
      engine.work(lanes.once, async ({ n }) => {
        runs.push(n);
        return new Again({ n: String(n + 1) }, 0);
      });
      await engine.lane(lanes.once).add({ n: 1 }, { id: 'steps/bad-data' });
      const [failed] = await eventually(async () => {
        const jobs = await engine.failed('once');
        return jobs.length > 0 ? jobs : undefined;
      }, 8_000);
      expect(failed).toMatchObject({ id: 'steps/bad-data', attempts: 1, error: expect.stringContaining('n') });
      expect(runs).toEqual([1]);
      expect(await engine.counts('once')).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 1 });
    });

    it('measures every step’s wait from that step’s due time, not only the job’s first', async () => {
      const waits: (number | undefined)[] = [];
      const engine = await context.open({ started: (_lane, waitMs) => waits.push(waitMs), finished: () => {} });
      const stepMs = 500;
      const runs: Run[] = [];
      engine.work(lanes.work, async ({ n }, meta) => {
        runs.push({ n, attempt: meta.attempt, at: Date.now() });
        return n < 3 ? new Again({ n: n + 1 }, stepMs) : undefined;
      });
      await engine.lane(lanes.work).add({ n: 1 }, { id: 'steps/wait' });
      await eventually(() => finished(engine, 'work', runs, 3), 15_000, 'the last step');
      expect(waits).toHaveLength(3);
      // Measured from the add, the second and third steps would have waited at least 500 and 1,000 ms.
      for (const wait of waits) {
        expect(wait).toBeGreaterThanOrEqual(0);
        expect(wait).toBeLessThan(stepMs);
      }
      expect((await engine.stats()).find((stats) => stats.lane === 'work')?.wait.count).toBe(3);
    });
  });
}
