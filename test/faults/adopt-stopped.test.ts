import { describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { useHarness } from '../support/harness.js';
import { redisAvailable, redisStore } from '../support/redis.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';
import { countEvents as count, FAST_POLL, LONG_JOB_MS, redisGet, runningJobs, useRedisProxy } from './support.js';

// The adoption of tracked jobs at start (workers.ts) when the instance adopting them is stopped midway.

const PR = 'https://github.com/acme/docs/pull/91';
/** Tracked jobs to adopt: at 0.3 s each, more than a stop's 8 s. */
const JOBS = 40;

describe.skipIf(!redisAvailable)('adopting tracked jobs at start, stopped midway', () => {
  const h = useHarness({ store: redisStore, simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });
  const proxy = useRedisProxy(h);

  it('an instance stopped while it adopts (SIGTERM, a deploy) lets its claim go: another adopts at once, not a minute later', async () => {
    const jobs = await runningJobs(await h.boot(), JOBS);
    await h.stopApps(); // the jobs stay tracked in the store, for the next start to adopt

    // Reading each job's record takes the adopting instance a while, well under the store's 2 s guard (a command
    // that timed out would release the claim on its own): its adoption is under way longer than its stop takes.
    proxy().slowCommandsWith(keys.job({ project: TEST_PROJECT_ID, jobId: '' }), 300);
    const adopting = await h.boot({ redisUrl: proxy().url });
    const owner = `${h.namespace}:${keys.adoptTracking()}`;
    await eventually(
      async () => (await redisGet(owner)) === adopting.app.deps.instanceId,
      10_000,
      'the first instance adopting',
    );
    const other = await h.boot();
    await adopting.stop();
    const stoppedAt = Date.now();
    await eventually(() => count(other.logs(), 'tracking.adopted') === 1, 30_000, 'adopted by the other');
    expect(Date.now() - stoppedAt).toBeLessThan(30_000);
    expect(other.logs()).toContain(`"jobs":${JOBS}`);

    for (const { jobId } of jobs) h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    const prPosts = (rootTs: string) => h.threadPosts(rootTs).filter((c) => String(c.args.text).includes(PR));
    for (const { rootTs } of jobs) await eventually(() => prPosts(rootTs).length === 1, 10_000, 'the PR in its thread');
  }, 90_000);
});
