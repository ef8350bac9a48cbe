import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Again } from '../../src/queue/engine.js';
import { createMemoryEngine } from '../../src/queue/memory.js';
import { createQueueMetrics } from '../../src/queue/queue-metrics.js';
import { expectToContainAll } from '../support/expect.js';
import { captureLogs } from '../support/logs.js';
import { eventually } from '../support/wait.js';
import { lanes } from './support.js';

describe('queue metrics', () => {
  it('show depth per lane and state, finished tries by outcome, waits and run times', async () => {
    const registry = new Registry();
    const metrics = createQueueMetrics(registry);
    const engine = createMemoryEngine({ log: captureLogs().log, observer: metrics.observer });
    metrics.track(engine);
    try {
      engine.work(lanes.work, async ({ n }, meta) => {
        if (n === 2 || meta.attempt === 1) throw new Error('no');
      });
      const lane = engine.lane(lanes.work);
      await lane.add({ n: 1 });
      await lane.add({ n: 2 });
      await lane.add({ n: 3 }, { delayMs: 60_000 });
      await eventually(async () => (await engine.counts('work')).failed === 1, 8_000, 'one failure for good');
      await eventually(async () => (await engine.stats())[0]?.completedTotal === 1, 8_000, 'one completion');

      const text = await registry.metrics();
      expectToContainAll(text, [
        'mintlify_slack_queue_jobs{lane="work",state="delayed"} 1',
        'mintlify_slack_queue_jobs{lane="work",state="failed"} 1',
        'mintlify_slack_queue_jobs{lane="work",state="waiting"} 0',
        'mintlify_slack_queue_jobs_finished_total{lane="work",outcome="completed"} 1',
        'mintlify_slack_queue_jobs_finished_total{lane="work",outcome="retried"} 3',
        'mintlify_slack_queue_jobs_finished_total{lane="work",outcome="failed"} 1',
        'mintlify_slack_queue_wait_seconds_count{lane="work"} 2',
        'mintlify_slack_queue_job_seconds_count{lane="work"} 5',
        'mintlify_slack_queue_stats_ok 1',
      ]);
    } finally {
      await engine.close(100);
    }
  });

  it('show no depth, and say so, when the counts cannot be read', async () => {
    const registry = new Registry();
    const metrics = createQueueMetrics(registry);
    const engine = createMemoryEngine({ log: captureLogs().log });
    metrics.track({
      ...engine,
      stats: () => Promise.reject(new Error('Redis did not answer')),
    });
    const text = await registry.metrics();
    expect(text).toContain('mintlify_slack_queue_stats_ok 0');
    expect(text).not.toMatch(/mintlify_slack_queue_jobs\{/);
    await engine.close(0);
  });

  it('queue_stats_ok is the result of the scrape that reports it, not of the one before', async () => {
    const registry = new Registry();
    const metrics = createQueueMetrics(registry);
    const engine = createMemoryEngine({ log: captureLogs().log });
    let answering = true;
    metrics.track({
      ...engine,
      stats: () => (answering ? engine.stats() : Promise.reject(new Error('Redis did not answer'))),
    });
    expect(await registry.metrics()).toContain('mintlify_slack_queue_stats_ok 1');
    answering = false;
    expect(await registry.metrics()).toContain('mintlify_slack_queue_stats_ok 0');
    answering = true;
    expect(await registry.metrics()).toContain('mintlify_slack_queue_stats_ok 1');
    await engine.close(0);
  });

  describe('never fail the work they measure', () => {
    afterEach(() => vi.restoreAllMocks());

    it('a job whose run time reads NaN still takes its next step and completes', async () => {
      const registry = new Registry();
      const metrics = createQueueMetrics(registry);
      const engine = createMemoryEngine({ log: captureLogs().log, observer: metrics.observer });
      const steps: number[] = [];
      try {
        engine.work(lanes.work, async ({ n }) => {
          steps.push(n);
          // The engine reads the clock once more when the try ends: a run time of NaN, which prom-client refuses.
          vi.spyOn(performance, 'now').mockReturnValueOnce(Number.NaN);
          return n < 2 ? new Again({ n: n + 1 }, 0) : undefined;
        });
        await engine.lane(lanes.work).add({ n: 1 });
        await eventually(async () => (await engine.stats())[0]?.completedTotal === 2, 5_000, 'both steps');
        expect(steps).toEqual([1, 2]);
        expect(await engine.counts('work')).toMatchObject({ active: 0, failed: 0 });
        expect(await registry.metrics()).toContain(
          'mintlify_slack_metrics_refused_total{metric="queue_job_seconds"} 2',
        );
      } finally {
        await engine.close(100);
      }
    });

    it('an observation of NaN is refused by the metric, never thrown at the caller', () => {
      const registry = new Registry();
      const { observer } = createQueueMetrics(registry);
      expect(() => observer.started('work', Number.NaN)).not.toThrow();
      expect(() => observer.finished('work', 'completed', Number.NaN)).not.toThrow();
    });
  });
});
