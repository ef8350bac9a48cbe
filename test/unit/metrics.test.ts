import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics.js';
import { observedStore } from '../../src/store/observed.js';
import { createStore } from '../../src/store/store.js';
import { captureLogs } from '../support/logs.js';

describe('observedStore', () => {
  it('counts a failed store operation by name and still throws it; successes are not counted', async () => {
    const metrics = createMetrics();
    const inner = await createStore({ log: captureLogs().log });
    const store = observedStore(inner, metrics.storeError);
    await store.claims.claim('k', 'me', 1_000);
    await inner.close();
    const broken = observedStore(
      { ...inner, jobs: { ...inner.jobs, get: async () => Promise.reject(new Error('down')) } },
      metrics.storeError,
    );
    await expect(broken.jobs.get({ project: 'p', jobId: 'j' })).rejects.toThrow('down');
    const text = await metrics.render();
    expect(text).toContain('mintlify_slack_store_errors_total{op="jobs.get"} 1');
    expect(text).not.toContain('op="claims.claim"');
  });
});
