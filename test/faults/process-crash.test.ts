import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTING_CLAIM_MS } from '../../src/agent/tracking/poster.js';
import { CHANNEL_ID, threadReply } from '../fixtures/slack.js';
import type { AppProcess } from '../support/app-process.js';
import { useHarness } from '../support/harness.js';
import type { StartedJob } from '../support/steps.js';
import { eventually } from '../support/test-app.js';
import {
  FAST_POLL,
  holdCpuLock,
  LONG_JOB_MS,
  redisServerAvailable,
  sleep,
  TAKEOVER_MS,
  useRedisServer,
} from './support.js';

/**
 * The real entry point (`dist/index.js`) as child processes on one private Redis, killed with SIGKILL:
 * no shutdown hook runs, so a job the dead one was running is taken over once its queue lock lapses (TAKEOVER_MS).
 */
// Real processes start, die and restart here: on a loaded 2-core box a test can take well over 20 s.
describe.skipIf(!redisServerAvailable)('instances killed with SIGKILL', { timeout: 60_000 }, () => {
  let release: (() => void) | undefined;

  beforeAll(async () => {
    release = await holdCpuLock();
  }, 120_000);
  afterAll(() => release?.());

  const redis = useRedisServer();
  const h = useHarness({ simulator: { jobDurationMs: LONG_JOB_MS }, env: FAST_POLL });
  const spawnApp = (env: Record<string, string> = {}) => h.spawn({ REDIS_URL: redis().url, ...env });

  const getsFor = (jobId: string) => h.sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/${jobId}`));
  const outcomesPosted = (app: AppProcess) => app.output().match(/"event":"poller\.outcome_posted"/g)?.length ?? 0;

  /** Starts `count` jobs (`<prompt> 0`, `<prompt> 1`…) through `apps` in turn. */
  async function startJobs(count: number, prompt: string, ...apps: AppProcess[]): Promise<StartedJob[]> {
    const jobs: StartedJob[] = [];
    for (let i = 0; i < count; i++) jobs.push(await h.startJob(`${prompt} ${i}`, { app: apps[i % apps.length] }));
    return jobs;
  }

  /** A second post would have come by now: each job's thread holds its one outcome. */
  async function expectEachPostedOnce(jobs: StartedJob[]): Promise<void> {
    await sleep(1_000);
    for (const job of jobs) expect(h.threadPosts(job.rootTs), job.jobId).toHaveLength(1);
  }

  it('restarted after a SIGKILL mid-poll, a new instance posts every outcome exactly once', async () => {
    const first = await spawnApp();
    const jobs = await startJobs(3, 'Survive a crash', first);
    const [a, b, c] = jobs as [StartedJob, StartedJob, StartedJob];

    // One outcome is posted before the crash and must not be posted again by the next instance.
    h.sim.endJob(a.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
    await eventually(() => h.threadPosts(a.rootTs).length === 1, 5_000, 'outcome before the crash');

    // Kill it while a poll is in flight: the simulator holds the next GET for job b.
    h.sim.injectFault({ kind: 'slow', delayMs: 3_000, count: 1, match: { method: 'GET', path: new RegExp(b.jobId) } });
    const seen = getsFor(b.jobId).length;
    await eventually(() => getsFor(b.jobId).length > seen, 5_000, 'a poll in flight');
    expect(await first.kill('SIGKILL')).toBeNull(); // killed by the signal, no shutdown hook
    expect(first.output()).not.toContain('app.stopping');

    h.sim.endJob(b.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/2' });
    h.sim.endJob(c.jobId, { status: 'failed' });

    const second = await spawnApp();
    const restartedAt = Date.now();
    await eventually(
      () => h.threadPosts(b.rootTs).length === 1 && h.threadPosts(c.rootTs).length === 1,
      TAKEOVER_MS + 6_000,
      'outcomes after the restart',
    );
    // The dead instance's locks lapse first; nothing waits much longer than that.
    const postedAt = Math.max(...[b, c].map((job) => h.threadPosts(job.rootTs)[0]?.at ?? 0));
    expect(postedAt - restartedAt).toBeLessThan(TAKEOVER_MS + 3_000);
    expect(h.threadPosts(b.rootTs)[0]?.args.text).toContain('pull/2');
    expect(h.threadPosts(c.rootTs)[0]?.args.text).toContain('failed');

    await expectEachPostedOnce(jobs);
    expect(outcomesPosted(second)).toBe(2);
  });

  it('when one of two instances is killed, the survivor takes over its jobs within the lock time and posts each once', async () => {
    const [doomed, survivor] = await Promise.all([spawnApp(), spawnApp()]);
    const jobs = await startJobs(6, 'Two instances, one dies', doomed, survivor);
    // Both instances work the same lanes: either may be running a job's poll when the other dies.
    await eventually(() => jobs.every((job) => getsFor(job.jobId).length > 0), 5_000, 'polling');

    await doomed.kill('SIGKILL');
    const killedAt = Date.now();
    for (const job of jobs) h.sim.endJob(job.jobId, { status: 'completed', prLink: null });

    await eventually(
      () => jobs.every((job) => h.threadPosts(job.rootTs).length >= 1),
      TAKEOVER_MS + 6_000,
      'every outcome from the survivor',
    );
    const lastPost = Math.max(...jobs.map((job) => h.threadPosts(job.rootTs)[0]?.at ?? 0));
    // The dead worker's lock lapses, the survivor's stalled check finds it, and one poll.
    expect(lastPost - killedAt).toBeLessThan(TAKEOVER_MS + TAKEOVER_MS / 2 + 1_000);

    await expectEachPostedOnce(jobs);
    expect(outcomesPosted(survivor)).toBe(6);
  });

  it('with two live instances on one Redis, each outcome is posted exactly once', async () => {
    const [one, two] = await Promise.all([spawnApp(), spawnApp()]);
    const jobs = await startJobs(8, 'Both alive', two, one);
    await sleep(TAKEOVER_MS); // long enough for both to be working the lanes
    for (const job of jobs) h.sim.endJob(job.jobId, { status: 'completed', prLink: null });

    await eventually(() => jobs.every((job) => h.threadPosts(job.rootTs).length >= 1), 8_000, 'every outcome');
    await expectEachPostedOnce(jobs);
    expect(outcomesPosted(one) + outcomesPosted(two)).toBe(8);
  });

  it('killed between Slack’s answer and the record of it, the next instance finds the post in the thread and never repeats it', async () => {
    const first = await spawnApp();
    const { jobId, rootTs } = await h.startJob('Die right after posting', { app: first });
    // Slack stores the outcome; the instance dies before its answer arrives, so nothing is recorded.
    h.slack.fail('chat.postMessage', { storeThen: () => void first.kill('SIGKILL') }, 1, (a) => a.thread_ts === rootTs);
    h.sim.endJob(jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/8' });
    await eventually(() => first.child.signalCode === 'SIGKILL', 5_000, 'the kill');

    const second = await spawnApp();
    await eventually(
      () =>
        h.slack
          .callsTo('chat.update')
          .some((c) => c.args.ts === rootTs && JSON.stringify(c.args.blocks).includes('Pull request ready')),
      // The dead instance's posting claim must lapse first (15 s); a busy CI box took 22 s in all once.
      TAKEOVER_MS + POSTING_CLAIM_MS + 10_000,
      'the round ended by the next instance',
    );
    await sleep(800);
    expect(h.slack.messages.filter((m) => m.thread_ts === rootTs)).toHaveLength(1);
    expect(h.slack.callsTo('conversations.replies').length).toBeGreaterThan(0);
    await eventually(() => second.output().includes('"found":true'), 2_000, 'the post found in the thread');
  });

  it('killed while the job is created behind its plan card, the next instance ends the card with a word, no second job', async () => {
    // Slack expires a stream nobody appends to (minutes there; 4 s here, so what the person is left with shows).
    h.slack.streamExpiryMs = 4_000;
    const card = { SLACK_PLAN_CARD: 'true' };
    const first = await spawnApp(card);
    // The create is held: the instance dies with the card streaming and no job recorded for it.
    h.sim.injectFault({ kind: 'slow', delayMs: 2_000, count: 1, match: { operation: 'create' } });
    const typed = 'Document the *retry* headers <and> backoff';
    const { responseId } = await h.command(`/agent ${typed}`, { app: first });
    const creates = () => h.sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job'));
    await eventually(() => creates().length === 1, 8_000, 'the create sent');
    const [streamed] = [...h.slack.tenant().streams.keys()];
    const ts = String(streamed?.split('/')[1]);
    await first.kill('SIGKILL');

    await spawnApp(card);
    // The card ends within the take-over, long before Slack would expire it, echoing the instruction to run again.
    // The stream is stopped first, then the root rewritten (`markRootUnknown`): both are waited for.
    const rootSays = () => JSON.stringify(h.slack.tenant().message(CHANNEL_ID, ts)?.blocks);
    await eventually(
      () => h.slack.streamShown(CHANNEL_ID, ts) === 'final' && /restart/i.test(rootSays()),
      TAKEOVER_MS + 8_000,
      'the card ended with a word',
    );
    const answer = await h.answer(responseId, 0, 5_000);
    expect(String(answer.args.text)).toMatch(/restart/i);
    expect(String(answer.args.text)).toContain('Document the *retry* headers &lt;and&gt; backoff');
    // The create may have reached the service: nothing creates a second job, and no second card.
    await sleep(4_500);
    expect(creates()).toHaveLength(1);
    expect(h.slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(h.slack.streamShown(CHANNEL_ID, ts)).toBe('final');
  });

  it('two bots for two projects on one Redis, default namespace: each posts its own outcome once, never polls the other’s jobs', async () => {
    const a = await spawnApp({ MINTLIFY_PROJECT_ID: 'proj_a' });
    const b = await spawnApp({ MINTLIFY_PROJECT_ID: 'proj_b' });
    const jobA = await h.startJob('A job for project a', { app: a });
    const jobB = await h.startJob('A job for project b', { app: b });
    await sleep(TAKEOVER_MS); // both are working the lanes

    // A reply in A's thread reaches both bots (both are in the channel): only A forwards it.
    await h.deliver(threadReply(jobA.rootTs, { text: 'For bot A only' }), { app: b });
    await h.deliver(threadReply(jobA.rootTs, { text: 'For bot A only' }), { app: a });
    await eventually(() => h.sim.requests.some((r) => r.path === `/v2/agent/proj_a/job/${jobA.jobId}/message`), 5_000);

    // B restarts mid-job; both jobs end.
    await b.kill('SIGTERM');
    const b2 = await spawnApp({ MINTLIFY_PROJECT_ID: 'proj_b' });
    h.sim.endJob(jobA.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/10' });
    h.sim.endJob(jobB.jobId, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/20' });
    await eventually(
      () => h.threadPosts(jobA.rootTs).length === 1 && h.threadPosts(jobB.rootTs).length === 1,
      TAKEOVER_MS + 6_000,
      'each outcome',
    );
    await sleep(800);
    expect(h.threadPosts(jobA.rootTs)).toHaveLength(1);
    expect(h.threadPosts(jobB.rootTs)).toHaveLength(1);
    expect(h.sim.requests.filter((r) => r.path.endsWith('/message'))).toHaveLength(1);
    // Nobody asked project b about a's job, or the other way round.
    expect(h.sim.requests.some((r) => r.path.includes(`proj_b/job/${jobA.jobId}`))).toBe(false);
    expect(h.sim.requests.some((r) => r.path.includes(`proj_a/job/${jobB.jobId}`))).toBe(false);
    for (const out of [b.output(), b2.output()]) expect(out).not.toContain('no longer exists');
    expect(outcomesPosted(a)).toBe(1);
    expect(outcomesPosted(b2)).toBe(1);
  });

  it('a gracefully stopped instance’s jobs are picked up by its peer within the longest poll interval', async () => {
    const [leaving, staying] = await Promise.all([spawnApp(), spawnApp()]);
    const { jobId, rootTs } = await h.startJob('Hand over on stop', { app: leaving });
    await eventually(() => getsFor(jobId).length > 0, 5_000, 'polling');
    expect(await leaving.kill('SIGTERM')).toBe(0);
    const stoppedAt = Date.now();
    h.sim.endJob(jobId, { status: 'completed', prLink: null });
    await eventually(() => h.threadPosts(rootTs).length === 1, 5_000, 'the outcome from the peer');
    // The stopped instance handed its running work back on its way out, so the peer did not wait for a lock to lapse.
    expect((h.threadPosts(rootTs)[0]?.at ?? 0) - stoppedAt).toBeLessThan(TAKEOVER_MS);
    await eventually(() => outcomesPosted(staying) === 1, 2_000, 'the peer’s log line');
  });
});
