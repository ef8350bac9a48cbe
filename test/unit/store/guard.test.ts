import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/metrics.js';
import { guardStore } from '../../../src/store/guard.js';
import { createStore, StoreUnavailableError } from '../../../src/store/store.js';
import { captureLogs } from '../../support/logs.js';

describe('guardStore', () => {
  it('counts a failed store operation by name and still throws it; successes are not counted', async () => {
    const metrics = createMetrics();
    const inner = await createStore({ log: captureLogs().log });
    const store = guardStore(inner, { onError: metrics.storeError });
    await store.claims.claim('k', 'me', 1_000);
    await inner.close();
    const broken = guardStore(
      { ...inner, jobs: { ...inner.jobs, get: async () => Promise.reject(new Error('down')) } },
      { onError: metrics.storeError },
    );
    await expect(broken.jobs.get({ project: 'p', jobId: 'j' })).rejects.toThrow('down');
    const text = await metrics.render();
    expect(text).toContain('mintlify_slack_store_errors_total{op="jobs.get"} 1');
    expect(text).not.toContain('op="claims.claim"');
  });

  it('fails an operation that does not answer within the deadline, counts it, and leaves quick ones alone', async () => {
    const metrics = createMetrics();
    const inner = await createStore({ log: captureLogs().log });
    const hung = { ...inner, kv: Object.assign(Object.create(inner.kv), { get: () => new Promise(() => {}) }) };
    const store = guardStore(hung, { onError: metrics.storeError, deadlineMs: 50 });
    const started = performance.now();
    await expect(store.kv.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(store.claims.claim('k', 'me', 1_000)).resolves.toBe(true);
    expect(await metrics.render()).toContain('mintlify_slack_store_errors_total{op="kv.get"} 1');
    await inner.close();
  });
});
