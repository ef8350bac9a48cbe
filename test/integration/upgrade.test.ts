import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/store.js';
import { jobBinding } from '../fixtures/job.js';
import { CHANNEL_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { captureLogs } from '../support/logs.js';
import { redisAvailable, redisStore, TEST_REDIS_URL } from '../support/redis.js';
import { settle } from '../support/steps.js';
import { eventually, TEST_API_KEY, TEST_PROJECT_ID } from '../support/test-app.js';

/**
 * The release before the queue engine kept a tracked job as its record plus its project's active index, and polled
 * from the index; it left nothing on the engine. The first start of this release must take those jobs over.
 */
describe.skipIf(!redisAvailable)(
  'upgrade from the release that polled the active index (real process)',
  { timeout: 60_000 },
  () => {
    const h = useHarness({ store: redisStore, simulator: { jobDurationMs: 60_000 } });

    it('on first start, adopts the jobs the previous release tracked and posts the PR once', async () => {
      // What the previous release left behind: the thread, the job at Mintlify, the record and the index. No queue.
      const root = h.slack.postAs(h.slack.workspace.botUserId, CHANNEL_ID, 'Working on it: Document the upgrade');
      const created = await fetch(`${h.sim.url}/v2/agent/${TEST_PROJECT_ID}/job`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Document the upgrade' }),
      });
      const { id: jobId } = (await created.json()) as { id: string };
      const store = await createStore({ redisUrl: TEST_REDIS_URL, namespace: h.namespace, log: captureLogs().log });
      const binding = jobBinding({ jobId, threadTs: root.ts, statusTs: root.ts, createdAtMs: Date.now() });
      await store.jobs.create(binding, { status: 'active' }, Date.now());
      expect(await store.jobs.active(TEST_PROJECT_ID)).toEqual([jobId]);
      await store.close();
      const redis = new Redis(TEST_REDIS_URL);
      expect(await redis.keys(`${h.namespace}:*queue*`)).toEqual([]);
      redis.disconnect();
      h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/83' });

      const upgraded = await h.spawn();
      const posts = () => h.threadPosts(root.ts).filter((c) => String(c.args.text).includes('/pull/83'));
      await eventually(() => posts().length === 1, 10_000, 'the PR posted after the upgrade');
      expect(upgraded.output()).toMatch(/"event":"tracking\.adopted","jobs":1/);
      await settle(1_000);
      expect(posts()).toHaveLength(1);
      // Its root, the bot's, is rewritten by the new release.
      await eventually(
        () => h.slack.tenant().message(CHANNEL_ID, root.ts)?.text?.startsWith('Pull request ready'),
        5_000,
        'the root rewritten',
      );
    });
  },
);
