import { afterEach, describe, expect, it } from 'vitest';
import { createQuota, HOURLY_LIMIT } from '../../../src/agent/quota.js';
import { createStore, type Store } from '../../../src/store/store.js';
import { captureLogs } from '../../support/logs.js';

describe('createQuota', () => {
  let store: Store | undefined;
  afterEach(() => store?.close());
  /** The app's quota on a fresh memory store. */
  async function quota() {
    store = await createStore({ log: captureLogs().log });
    return createQuota(store);
  }

  it('counts new jobs and follow-ups apart, per project', async () => {
    const q = await quota();
    await q.take('proj_a', 'create');
    await q.take('proj_a', 'follow_up');
    await q.take('proj_a', 'follow_up');
    expect(await q.usage('proj_a', 'create')).toMatchObject({ used: 1, left: HOURLY_LIMIT - 1 });
    expect(await q.usage('proj_a', 'follow_up')).toMatchObject({ used: 2 });
    expect(await q.usage('proj_b', 'create')).toMatchObject({ used: 0, left: HOURLY_LIMIT });
  });

  it('refuses past the hourly limit, saying when the window reopens', async () => {
    const q = await quota();
    for (let i = 0; i < HOURLY_LIMIT; i++) expect((await q.take('proj_a', 'create')).ok).toBe(true);
    const refused = await q.take('proj_a', 'create');
    expect(refused).toMatchObject({ ok: false, used: HOURLY_LIMIT, left: 0 });
    expect(refused.resetInMs).toBeGreaterThan(59 * 60_000);
  });

  it('gives a slot back that bought nothing: the next person gets it', async () => {
    const q = await quota();
    for (let i = 0; i < HOURLY_LIMIT; i++) await q.take('proj_a', 'create');
    await q.refund('proj_a', 'create');
    expect((await q.take('proj_a', 'create')).ok).toBe(true);
  });

  // Fails today: store/budget.ts says a refused take takes nothing, but rate-limiter-flexible counts every consume,
  // refused ones too. At the limit, a refusal (here Bob's) eats the slot a failed start gives back afterwards, so
  // Carol is told the hour is spent while only 99 jobs count against it.
  it('takes nothing for a refused request: a slot given back after it still opens for the next person', async () => {
    const q = await quota();
    for (let i = 0; i < HOURLY_LIMIT; i++) await q.take('proj_a', 'create');
    expect((await q.take('proj_a', 'create')).ok).toBe(false); // Bob, at the limit
    await q.refund('proj_a', 'create'); // the last job the service refused
    expect((await q.take('proj_a', 'create')).ok).toBe(true); // Carol
  });
});
