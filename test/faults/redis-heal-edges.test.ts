import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { useHarness } from '../support/harness.js';
import { dropNamespace, redisAvailable, redisStore } from '../support/redis.js';
import { type RedisProxy, startRedisProxy } from '../support/redis-proxy.js';
import { eventually } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS } from './support.js';

// Healing at its edges: Redis misbehaving as the loss watch starts, or as a loss is being healed.

const PR = 'https://github.com/acme/docs/pull/88';

const count = (logs: string, event: string) => logs.match(new RegExp(`"event":"${event}"`, 'g'))?.length ?? 0;

describe.skipIf(!redisAvailable)('healing at its edges', { timeout: 60_000 }, () => {
  const h = useHarness({ store: redisStore, simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });
  let proxy: RedisProxy;

  beforeEach(async () => {
    proxy = await startRedisProxy();
  });
  afterEach(async () => {
    proxy.dropCommandsWith(undefined);
    await h.stopApps();
    await proxy.close();
    await dropNamespace(h.namespace);
  });

  it('a marker read Redis drops as the app starts still leaves the app watching for a loss, and healing it', async () => {
    proxy.dropCommandsWith('store:marker'); // Redis drops the start's look at the marker (a blip, a failover)
    const app = await h.boot({ redisUrl: proxy.url });
    proxy.dropCommandsWith(undefined);
    expect(app.logs()).toContain('"op":"store.marker"');
    const { jobId, rootTs } = await h.startJob('Document the retry policy');
    // The watch starts at its next check (every 5 s), before a loss it can notice.
    const marker = () => app.app.deps.store.kv.get(keys.storeMarker());
    await eventually(async () => (await marker()) !== undefined, 10_000, 'the marker written');

    await dropNamespace(h.namespace); // FLUSHDB, as far as this app can tell
    await eventually(() => count(app.logs(), 'store.data_lost') === 1, 15_000, 'the loss noticed');
    await eventually(() => count(app.logs(), 'store.healed') === 1, 15_000, 'healed');
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    const prPosts = () => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(PR));
    await eventually(() => prPosts().length === 1, 10_000, 'the PR in its thread');
  });
});
