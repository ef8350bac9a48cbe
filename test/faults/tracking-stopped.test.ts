import { describe, expect, it } from 'vitest';
import type { JobStore } from '../../src/store/jobs.js';
import { threadReply } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { storeKinds } from '../support/redis.js';
import { eventually, TEST_PROJECT_ID } from '../support/test-app.js';
import { FAST_POLL, LONG_JOB_MS, sleep } from './support.js';

const PR = 'https://github.com/acme/docs/pull/78';
/** The tracking lanes' first backoff: their 12 tries fail within about 2 s, not the half hour they take in use. */
const RETRY_DELAY_MS = 1;

/**
 * A tracking step that fails on every try (here the store refuses one job's writes) fails for good: the person
 * hears it once in the job's thread with how to resume, the root says so, an operator reads it in the logs
 * (issue 30: nothing fails silently). A service that keeps failing never gets here: a poll waits it out (`Again`)
 * until the job's age limit, and the thread says so (`expired`).
 */
describe.each(storeKinds)('a tracking step that fails for good is told, once ($label)', (store) => {
  const h = useHarness({ store, simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });

  const notices = (rootTs: string) =>
    h.threadPosts(rootTs).filter((c) => String(c.args.text).includes('stopped tracking this job'));

  /** Failed-for-good tries of `lane` counted by every instance (`queue_jobs_finished_total`, the operator's metric). */
  async function failedForGood(lane: string): Promise<number> {
    let count = 0;
    for (const { deps } of h.app.instances) {
      const metric = await deps.metrics.registry.getSingleMetric('mintlify_slack_queue_jobs_finished_total')?.get();
      const value = metric?.values.find((v) => v.labels.lane === lane && v.labels.outcome === 'failed');
      count += value?.value ?? 0;
    }
    return count;
  }

  /** Every instance's store (the web's and the workers'), failing `method` for `jobId` while `failing()`. */
  function refuse(method: 'observe' | 'beginPost', jobId: string, failing: () => boolean) {
    for (const { jobs } of h.app.instances.map((instance) => instance.deps.store)) {
      const original = jobs[method].bind(jobs) as (...args: unknown[]) => Promise<unknown>;
      (jobs as unknown as Record<string, unknown>)[method] = (...args: Parameters<JobStore[typeof method]>) =>
        failing() && args[0].jobId === jobId
          ? Promise.reject(new Error('ERR the store refused this write'))
          : original(...args);
    }
  }

  it('a poll that fails on every try: the thread says tracking stopped and how to resume, once; a reply resumes it', async () => {
    const app = await h.boot({ retryDelayMs: RETRY_DELAY_MS });
    const { jobId, rootTs } = await h.startJob('Polls that keep failing');
    let failing = true;
    refuse('observe', jobId, () => failing);

    const [notice] = await eventually(() => notices(rootTs).length && notices(rootTs), 15_000, 'the notice');
    expect(String(notice?.args.text)).toContain('Reply in this thread');
    await eventually(() => h.lastRootUpdate(rootTs).includes('Tracking stopped'), 5_000, 'the root says so');
    expect(app.logs()).toContain('"event":"tracking.stopped"');
    expect(app.logs()).toContain(`"job_id":"${jobId}"`);
    await eventually(async () => (await failedForGood('polls')) === 1, 5_000, 'the failed poll counted');
    expect(await app.app.deps.store.jobs.active(TEST_PROJECT_ID)).toEqual([]);
    await sleep(500);
    expect(notices(rootTs)).toHaveLength(1);

    // What the notice says is true: a reply in the thread picks the job up again, and its result lands.
    failing = false;
    await h.deliver(threadReply(rootTs, { text: 'Carry on please' }));
    await eventually(() => h.slack.callsTo('reactions.add').some((c) => c.args.name === 'white_check_mark'), 8_000);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });
    await eventually(() => h.threadPosts(rootTs).some((c) => String(c.args.text).includes(PR)), 8_000, 'the PR');
    await eventually(() => h.lastRootUpdate(rootTs).includes('Pull request ready'), 5_000, 'the root final');
    expect(notices(rootTs)).toHaveLength(1);
  });

  it('an outcome post that fails on every try: the thread says tracking stopped and how to resume, once', async () => {
    const app = await h.boot({ retryDelayMs: RETRY_DELAY_MS });
    const { jobId, rootTs } = await h.startJob('Outcome that cannot be recorded');
    refuse('beginPost', jobId, () => true);
    h.sim.endJob(jobId, { status: 'completed', prLink: PR });

    const [notice] = await eventually(() => notices(rootTs).length && notices(rootTs), 15_000, 'the notice');
    expect(String(notice?.args.text)).toContain('Reply in this thread');
    await eventually(() => h.lastRootUpdate(rootTs).includes('Tracking stopped'), 5_000, 'the root says so');
    expect(app.logs()).toMatch(
      /"event":"tracking.stopped".*"lane":"outcomes"|"lane":"outcomes".*"event":"tracking.stopped"/,
    );
    await sleep(500);
    expect(notices(rootTs)).toHaveLength(1);
  });
});
