import { createClient } from '@keyv/redis';
import { describe, expect, it } from 'vitest';
import { CHANNEL_ID } from '../fixtures/slack.js';
import { Harness } from '../support/harness.js';
import { redisStore, TEST_REDIS_URL } from '../support/redis.js';

async function keysUnder(namespace: string): Promise<string[]> {
  const client = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  const keys: string[] = [];
  for await (const batch of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) keys.push(...batch);
  await client.close();
  return keys;
}

const refused = (url: string) =>
  fetch(url).then(
    () => false,
    () => true,
  );

/** The harness itself, driven by hand (setUp/tearDown) so a test can look at what is left after its teardown. */
describe.skipIf(!redisStore.available)('the test harness (Redis store)', () => {
  const options = { store: redisStore, simulator: { jobDurationMs: 60_000 } };

  it('tears down everything it started: the apps, the stand-in, the simulator and the namespace’s keys', async () => {
    const h = new Harness(options);
    await h.setUp();
    let urls: string[] = [];
    try {
      const app = await h.boot();
      await h.startJob('Leave some keys behind');
      expect(await keysUnder(h.namespace)).not.toEqual([]);
      urls = [`${app.url}/healthz`, h.slack.apiUrl, h.sim.url];
    } finally {
      await h.tearDown();
    }
    expect(await keysUnder(h.namespace)).toEqual([]);
    for (const url of urls) expect(await refused(url), url).toBe(true);
    expect(h.apps).toEqual([]);
  });

  it('restarts on the same namespace: a job bound before the restart is still bound after it', async () => {
    const h = new Harness(options);
    await h.setUp();
    try {
      const first = await h.boot();
      const { jobId, rootTs } = await h.startJob('Survive a restart');
      await h.restart();
      expect(await refused(`${first.url}/healthz`)).toBe(true);
      expect(await h.jobOf(CHANNEL_ID, rootTs)).toMatchObject({ jobId });
    } finally {
      await h.tearDown();
    }
  });
});
