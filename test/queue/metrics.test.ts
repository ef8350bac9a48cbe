import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMemoryEngine } from '../../src/queue/memory.js';
import { createQueueMetrics } from '../../src/queue/metrics.js';
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
});
